// Allocations the NVTX collector wants one by one: blocks of at least a threshold (1 MiB by
// default) are reported with their address when allocated and freed, so the viewer can list
// and place them. Without an observer (the collector not loaded) the threshold is
// SIZE_MAX and the hot path never calls out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace spanscope::alloc_internal {

// `allocated`: true for an allocation of `bytes` requested bytes, false for a free of a
// block with `bytes` usable bytes (which may be a block that was not large when asked for:
// the observer matches frees to the addresses it was told about).
using LargeObserver = void (*)(void* address, std::size_t bytes, bool allocated);

extern std::size_t g_largeThreshold; // atomic access
extern LargeObserver g_largeObserver; // atomic access

inline std::size_t largeThreshold()
{
    return __atomic_load_n(&g_largeThreshold, __ATOMIC_RELAXED);
}

extern constinit thread_local int t_suppress __attribute__((tls_model("initial-exec")));

// The observer's own allocations (the collector's) are not counted.
inline void notifyLarge(void* address, std::size_t bytes, bool allocated)
{
    if (LargeObserver observer = __atomic_load_n(&g_largeObserver, __ATOMIC_ACQUIRE)) {
        ++t_suppress;
        observer(address, bytes, allocated);
        --t_suppress;
    }
}

// The calling thread is exiting and its counters are about to go back to the registry:
// the collector reports what the thread allocated since its last report.
struct ThreadCounters;
using ThreadEndObserver = void (*)(const ThreadCounters* counters);
extern ThreadEndObserver g_threadEndObserver; // atomic access

} // namespace spanscope::alloc_internal

namespace spanscope::alloc_internal {

// A span of the public API ended (times in ns of CLOCK_MONOTONIC): the collector shows it
// as a range on the "allocation spans" track. Called with counting suppressed.
using SpanObserver = void (*)(const char* operation, std::size_t operationLength,
                              std::int64_t startNs, std::int64_t endNs, bool process,
                              std::uint64_t iterations, std::uint64_t bytes,
                              std::uint64_t allocations);
extern SpanObserver g_spanObserver; // atomic access

inline void notifySpan(const std::string_view operation, std::int64_t startNs, std::int64_t endNs,
                       bool process, std::uint64_t iterations, std::uint64_t bytes,
                       std::uint64_t allocations)
{
    if (SpanObserver observer = __atomic_load_n(&g_spanObserver, __ATOMIC_ACQUIRE))
        observer(operation.data(), operation.size(), startNs, endNs, process, iterations, bytes,
                 allocations);
}

} // namespace spanscope::alloc_internal
