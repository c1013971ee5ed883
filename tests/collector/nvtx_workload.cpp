// A small real NVTX program for the collector tests and for measuring its cost.
//
//   nvtx_workload basic        every callback kind, several threads (counts below)
//   nvtx_workload open         exits with push/pop and start/end ranges still open
//   nvtx_workload fork         forks; the child makes NVTX calls and exits; the parent waits
//   nvtx_workload forkworkers N  forks N workers without exec from inside a range while a
//                              thread keeps recording; each worker records ranges (counts in
//                              nvtx_workload_counts.h), ends the inherited range and exits
//   nvtx_workload forkchain N  a thread named "chain" records a range and forks a child that
//                              does the same, N generations deep
//   nvtx_workload forkstorm N  forks N short children (8 at a time), each one range; prints
//                              the parent's open descriptors before and after ("fds A B")
//   nvtx_workload flood MS [DIR]  4 threads push/pop as fast as they can for MS milliseconds;
//                              prints "pairs N"; with DIR, then creates DIR/flooded and
//                              waits for DIR/go before it exits
//   nvtx_workload twolibs      NVTX from this program and from a library with its own NVTX copy
//   nvtx_workload bench N      N push+pop pairs on one thread, in batches; prints ns per pair
//   nvtx_workload pairs N      exactly N "pair" push/pop pairs over 4 threads, no pauses
//   nvtx_workload phased N DIR [EXIT]  N phases of kPhaseRanges "phase" ranges each; before
//                              every phase after the first it waits until the file DIR/go-K
//                              exists (K = 2..N), so a test decides when the job goes on;
//                              after each phase it creates DIR/done-K; exits with EXIT (0)
//   nvtx_workload crash KIND DIR  kCrashBeforeRanges "before" ranges, then opens "open-outer"
//                              (push) and "open-async" (start), creates DIR/ready, waits for
//                              DIR/go and dies: KIND segv (SIGSEGV), abort, or kill (SIGKILL)
//
// The expected record counts of `basic` are in nvtx_workload_counts.h, shared with the test.
#include "nvtx_workload_counts.h"

#include <atomic>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <nvtx3/nvtx3.hpp>
#include <string>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using namespace spanscope::test;

struct TestDomain
{
    static constexpr const char* name{kDomainName};
};
struct IterationMessage
{
    static constexpr const char* message{"iteration"};
};
struct StepCategory
{
    static constexpr const char* name{"steps"};
    static constexpr uint32_t id{kStepCategory};
};

uint32_t osTid()
{
    return static_cast<uint32_t>(syscall(SYS_gettid));
}

// The range the main thread starts and worker 0 ends; ready once `crossReady` is set.
struct CrossRange
{
    nvtxRangeId_t id = 0;
    std::atomic<bool> ready{false};
};

void worker(int index, CrossRange* crossRange)
{
    const std::string name = "worker-" + std::to_string(index);
    nvtxNameOsThreadA(osTid(), name.c_str());
    const auto& iteration = nvtx3::registered_string_in<TestDomain>::get<IterationMessage>();
    const auto& steps = nvtx3::named_category_in<TestDomain>::get<StepCategory>();
    for (int i = 0; i < kIterations; ++i) {
        nvtx3::scoped_range_in<TestDomain> outer{iteration};
        nvtx3::scoped_range_in<TestDomain> inner{
            nvtx3::event_attributes{"step", steps, nvtx3::rgb{255, 0, 0}, nvtx3::payload{i}}};
    }
    if (index == 0) {
        // Ends the range the main thread started: a cross-thread start/end pair.
        while (!crossRange->ready.load())
            std::this_thread::yield();
        nvtxRangeEnd(crossRange->id);
        const auto async = nvtx3::start_range_in<TestDomain>("domain-async");
        nvtx3::end_range_in<TestDomain>(async);
    }
    nvtx3::mark_in<TestDomain>("worker-done");
}

int basic()
{
    nvtxNameOsThreadA(osTid(), "main");
    nvtxNameCategoryA(kCoreCategory, "core-category");

    nvtxRangePushA("outer");
    nvtxRangePushW(L"inner-w");
    nvtxEventAttributes_t attr{};
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.category = kCoreCategory;
    attr.colorType = NVTX_COLOR_ARGB;
    attr.color = kColor;
    attr.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
    attr.payload.ullValue = kPayload;
    attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attr.message.ascii = "inner-ex";
    nvtxRangePushEx(&attr);
    nvtxRangePop();
    nvtxRangePop();
    nvtxRangePop();

    nvtxMarkA("mark-a");
    nvtxMarkW(L"mark-w");
    attr.message.ascii = "mark-ex";
    nvtxMarkEx(&attr);

    nvtxRangeEnd(nvtxRangeStartW(L"start-w"));
    attr.message.ascii = "start-ex";
    nvtxRangeEnd(nvtxRangeStartEx(&attr));

    CrossRange crossRange;
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i)
        threads.emplace_back(worker, i, &crossRange);
    crossRange.id = nvtxRangeStartA("cross"); // 0 when no tool is attached
    crossRange.ready.store(true);
    for (auto& t : threads)
        t.join();
    return 0;
}

int openRanges()
{
    nvtxRangePushA("open-1");
    nvtxRangePushA("open-2");
    nvtxRangeStartA("open-async");
    nvtxRangePushA("closed");
    nvtxRangePop();
    std::exit(0); // with two pushed ranges and one start/end range still open
}

int forkJob()
{
    nvtxRangePushA("before-fork");
    std::fflush(stdout);
    const pid_t child = fork();
    if (child < 0)
        return 2;
    if (child == 0) {
        nvtxRangePushA("in-child");
        nvtxMarkA("child-mark");
        nvtxRangePop();
        std::exit(0);
    }
    std::printf("child %d\n", int(child));
    int status = 0;
    waitpid(child, &status, 0);
    nvtxRangePop();
    nvtxMarkA("after-fork");
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 3;
}

void touch(const std::string& path)
{
    if (std::FILE* f = std::fopen(path.c_str(), "w"))
        std::fclose(f);
}

// Waits on a gate the test creates (a condition). The 1 ms sleep is only the interval
// between looks, not a duration anything relies on.
void waitForFile(const std::string& path)
{
    while (access(path.c_str(), F_OK) != 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// Waits for every child; true if all exited with status 0.
bool reapAll(const std::vector<pid_t>& children)
{
    bool allOk = true;
    for (const pid_t child : children) {
        int status = 0;
        allOk = waitpid(child, &status, 0) == child && WIFEXITED(status) &&
                WEXITSTATUS(status) == 0 && allOk;
    }
    return allOk;
}

[[noreturn]] void forkedWorker()
{
    // Runs in the child: its first NVTX call starts its own stream.
    const auto& steps = nvtx3::named_category_in<TestDomain>::get<StepCategory>();
    std::thread helper([] {
        nvtxNameOsThreadA(osTid(), "worker-thread");
        for (int i = 0; i < kWorkerRanges; ++i)
            nvtx3::scoped_range_in<TestDomain> range{"thread-task"};
    });
    for (int i = 0; i < kWorkerRanges; ++i)
        nvtx3::scoped_range_in<TestDomain> range{nvtx3::event_attributes{"worker-task", steps}};
    helper.join();
    nvtxRangePop(); // "spawn", pushed by the parent before the fork: the parent's range
    nvtxMarkA("worker-done");
    std::exit(0);
}

int forkWorkers(int workers)
{
    nvtxNameOsThreadA(osTid(), "parent-main");
    // Named here, used by the workers: their streams must carry the name again.
    nvtx3::named_category_in<TestDomain>::get<StepCategory>();
    // A thread that records all along, so forks happen while the collector is busy.
    std::atomic<bool> stop{false}, started{false};
    std::thread busy([&] {
        nvtxNameOsThreadA(osTid(), "parent-busy");
        // Paces itself (a pause after every ten ranges) so that even a sanitized viewer keeps
        // up and nothing is dropped: the sleep sets the recording rate; no test waits on it.
        for (long n = 1; !stop.load(); ++n) {
            nvtx3::scoped_range_in<TestDomain> range{"busy"};
            started.store(true);
            if (n % 10 == 0)
                std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
    });
    // Forks only once the thread runs: GCC 12's AddressSanitizer takes no fork handler for
    // its allocator, and a thread still starting holds its lock now and then, which would
    // hang a sanitized child (not the collector's doing; the release build does not care).
    while (!started.load())
        std::this_thread::yield();
    nvtxRangePushA("spawn");
    std::fflush(stdout);
    std::vector<pid_t> children;
    for (int i = 0; i < workers; ++i) {
        const pid_t child = fork();
        if (child == 0)
            forkedWorker();
        if (child > 0)
            children.push_back(child);
    }
    const bool ok = reapAll(children) && int(children.size()) == workers;
    nvtxRangePop();
    stop.store(true);
    busy.join();
    return ok ? 0 : 3;
}

// Named "chain": records a range, then (while `generations` > 0) forks a child that does
// the same. Every process in the chain must keep the thread's name.
int forkChain(int generations)
{
    nvtxNameOsThreadA(osTid(), "chain");
    for (;;) {
        nvtxRangePushA("link");
        nvtxRangePop();
        if (generations-- == 0)
            return 0;
        std::fflush(stdout);
        const pid_t child = fork();
        if (child < 0)
            return 2;
        if (child > 0)
            return reapAll({child}) ? 0 : 3;
    }
}

int openDescriptors()
{
    int n = 0;
    if (DIR* d = opendir("/proc/self/fd")) {
        while (readdir(d))
            ++n;
        closedir(d);
    }
    return n;
}

int forkStorm(int count)
{
    nvtxRangePushA("storm");
    const int before = openDescriptors();
    std::fflush(stdout);
    constexpr int kAtOnce = 8;
    bool ok = true;
    for (int started = 0; started < count;) {
        std::vector<pid_t> batch;
        for (int i = 0; i < kAtOnce && started < count; ++i, ++started) {
            const pid_t child = fork();
            if (child == 0) {
                nvtxRangePushA("storm-child");
                nvtxRangePop();
                std::exit(0);
            }
            if (child < 0)
                return 2;
            batch.push_back(child);
        }
        ok = reapAll(batch) && ok;
    }
    const int after = openDescriptors();
    nvtxRangePop();
    std::printf("fds %d %d\n", before, after);
    return ok ? 0 : 3;
}

// A thread that never stops recording while the process exits (main returns once it has
// recorded `pairs`): the collector's exit flush must end anyway.
int exitDuringFlood(long pairs)
{
    static std::atomic<long> recorded{0}; // outlives this function: the thread never ends
    std::thread([] {
        for (;;) {
            nvtxRangePushA("endless");
            nvtxRangePop();
            recorded.fetch_add(1, std::memory_order_relaxed);
        }
    }).detach();
    while (recorded.load(std::memory_order_relaxed) < pairs)
        std::this_thread::yield();
    return 0;
}

int flood(int ms, const std::string& dir)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    std::vector<std::thread> threads;
    std::atomic<long> pairs{0};
    for (int i = 0; i < 4; ++i)
        threads.emplace_back([&] {
            long n = 0;
            while (std::chrono::steady_clock::now() < until) {
                for (int k = 0; k < 1000; ++k) {
                    nvtxRangePushA("flood");
                    nvtxRangePop();
                }
                n += 1000;
            }
            pairs += n;
        });
    for (auto& t : threads)
        t.join();
    std::printf("pairs %ld\n", pairs.load());
    std::fflush(stdout);
    if (!dir.empty()) {
        touch(dir + "/flooded");
        waitForFile(dir + "/go");
    }
    return 0;
}

int exactPairs(long total)
{
    // Four threads share `total` exactly; no pauses, so the collector drops (and counts).
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i)
        threads.emplace_back([share = total / 4 + (i < total % 4 ? 1 : 0)] {
            for (long k = 0; k < share; ++k) {
                nvtxRangePushA("pair");
                nvtxRangePop();
            }
        });
    for (auto& t : threads)
        t.join();
    std::printf("pairs %ld\n", total);
    std::fflush(stdout); // before exit: the collector's exit flush may wait for the viewer
    return 0;
}

int bench(long n)
{
    // Warm up (the first call initialises NVTX and the injection).
    for (int i = 0; i < 1000; ++i) {
        nvtxRangePushA("bench");
        nvtxRangePop();
    }
    // Batches well inside a thread's kept blocks (about 20,000 pairs), with pauses that let
    // the sender drain: this times the capture path itself, not the cost of dropping.
    constexpr long kBatch = 4000;
    double ns = 0;
    long done = 0;
    while (done < n) {
        const auto t0 = std::chrono::steady_clock::now();
        for (long i = 0; i < kBatch; ++i) {
            nvtxRangePushA("bench");
            nvtxRangePop();
        }
        const auto t1 = std::chrono::steady_clock::now();
        ns += std::chrono::duration<double, std::nano>(t1 - t0).count();
        done += kBatch;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    std::printf("ns_per_pair %.2f\n", ns / double(done));
    return 0;
}

int crash(const std::string& kind, const std::string& dir)
{
    for (int i = 0; i < kCrashBeforeRanges; ++i) {
        nvtxRangePushA("before");
        nvtxRangePop();
    }
    nvtxRangePushA("open-outer");
    nvtxRangeStartA("open-async");
    touch(dir + "/ready");
    waitForFile(dir + "/go"); // the test has seen these ranges arrive
    if (kind == "segv")
        std::raise(SIGSEGV);
    else if (kind == "abort")
        std::abort();
    else if (kind == "kill")
        std::raise(SIGKILL);
    return 4; // unknown kind, or the signal did not end the job
}

int phased(int phases, const std::string& dir, int exitCode)
{
    // The test creates go-K once it has seen phase K-1 arrive: waiting is on its side, on
    // a condition. This job only polls for the file (1 ms between looks); no time is
    // measured or relied on.
    for (int phase = 1; phase <= phases; ++phase) {
        if (phase > 1)
            waitForFile(dir + "/go-" + std::to_string(phase));
        for (int i = 0; i < kPhaseRanges; ++i) {
            nvtxRangePushA("phase");
            nvtxRangePop();
        }
        touch(dir + "/done-" + std::to_string(phase));
    }
    return exitCode;
}

} // namespace

extern "C" void spanscopeSecondLibraryWork(); // nvtx_second_library.cpp

namespace {

int twoLibraries()
{
    // Both copies create the same domain by name: the collector merges them into one.
    nvtx3::scoped_range_in<TestDomain> range{"first-library"};
    spanscopeSecondLibraryWork();
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    const std::string mode = argc > 1 ? argv[1] : "basic";
    if (mode == "basic")
        return basic();
    if (mode == "open")
        return openRanges();
    if (mode == "fork")
        return forkJob();
    if (mode == "forkworkers" && argc > 2)
        return forkWorkers(std::atoi(argv[2]));
    if (mode == "forkchain" && argc > 2)
        return forkChain(std::atoi(argv[2]));
    if (mode == "forkstorm" && argc > 2)
        return forkStorm(std::atoi(argv[2]));
    if (mode == "exitduringflood")
        return exitDuringFlood(argc > 2 ? std::atol(argv[2]) : 1000000);
    if (mode == "flood")
        return flood(argc > 2 ? std::atoi(argv[2]) : 1000, argc > 3 ? argv[3] : "");
    if (mode == "twolibs")
        return twoLibraries();
    if (mode == "phased" && argc > 3)
        return phased(std::atoi(argv[2]), argv[3], argc > 4 ? std::atoi(argv[4]) : 0);
    if (mode == "crash" && argc > 3)
        return crash(argv[2], argv[3]);
    if (mode == "pairs" && argc > 2)
        return exactPairs(std::atol(argv[2]));
    if (mode == "bench")
        return bench(argc > 2 ? std::atol(argv[2]) : 10000000);
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 1;
}
