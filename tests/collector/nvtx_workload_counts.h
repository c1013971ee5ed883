// What `nvtx_workload basic` (and `phased`) do, shared by the workload and the test that checks it.
#pragma once

#include <cstdint>

namespace spanscope::test {

inline constexpr const char* kDomainName = "spanscope-test";
inline constexpr int kThreads = 4;
inline constexpr int kIterations = 1000;
inline constexpr std::uint32_t kCoreCategory = 3;
inline constexpr std::uint32_t kStepCategory = 7;
inline constexpr std::uint32_t kColor = 0xFF00FF00;
inline constexpr std::uint64_t kPayload = 42;

// Main thread: 3 push/pop (A, W, Ex); workers: 2 per iteration (domain).
inline constexpr int kPushes = 3 + kThreads * kIterations * 2;
// Main: A, W, Ex; workers: one domain mark each.
inline constexpr int kMarks = 3 + kThreads;
// Main: W, Ex (ended at once), A "cross" (ended by worker 0); worker 0: one domain range.
inline constexpr int kRangeStarts = 4;
// Main and every worker name their thread.
inline constexpr int kThreadNames = 1 + kThreads;

// `nvtx_workload phased`: push/pop ranges per phase.
inline constexpr int kPhaseRanges = 10;

// `nvtx_workload forkworkers N`: every worker (a child forked without exec) records this many
// "worker-task" ranges (category kStepCategory, named by the parent only) on its forking
// thread and as many "thread-task" ranges on a thread of its own named "worker-thread".
inline constexpr int kWorkerRanges = 100;

// `nvtx_workload crash`: complete ranges recorded before the two left open at the crash.
inline constexpr int kCrashBeforeRanges = 20;

} // namespace spanscope::test
