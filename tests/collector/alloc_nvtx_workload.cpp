// An NVTX program with known allocations per range, per thread and per kind of allocation
// function, for `spanscope-run --alloc` (tst_alloc_capture checks the capture against the
// numbers below). Built without sanitizers: the interposer must be the job's malloc.
//
// Exclusive allocations, as the capture must show them:
//   main   "outer"   malloc(100), calloc(4, 25)              2 allocations,  200 bytes
//   main   "inner"   new int[10] three times, aligned new    4 allocations,  184 bytes
//   worker "worker"  malloc(1000) x5, malloc(10) -> realloc(20),
//                    posix_memalign(64, 256), strdup("abc")  9 allocations, 5290 bytes
//   worker "empty"   nothing                                 0 allocations,    0 bytes
//   main   "big"     malloc(3 MiB), freed                    1 allocation, 3145728 bytes
//                    (at or above the collector's 1 MiB threshold: also sent one by one)
// Size bins (log2 of the requested size) as the capture must show them: outer 2 in
// [64, 128); inner 3 in [32, 64) and 1 in [64, 128); worker 5 in [512, 1024), one each in
// [4, 8) (strdup), [8, 16), [16, 32), [256, 512); big 1 in [2 MiB, 4 MiB).
// Outside any range, each thread also allocates (std::thread, the workload's own setup).
// Then, outside every range, the span API measures "fill" (3 iterations of one malloc(64)
// each, one thread span): it shows as the range "alloc: fill" on the "allocation spans" lane.
// A second worker thread, started after the first one ended, runs "worker" and "empty"
// once more (the same figures again).
// `alloc_nvtx_workload ROUNDS EXTRA` repeats "worker" ROUNDS times on the first thread with
// EXTRA more malloc(1000) in each (default 1 and 0): runs to compare.
#include <nvtx3/nvToolsExt.h>
#include <spanscope/alloc.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>

namespace {

template <typename T>
T* keep(T* p)
{
    asm volatile("" : : "r"(p) : "memory");
    return p;
}

struct alignas(64) Wide
{
    char bytes[64];
};

void worker(int extra)
{
    nvtxRangePushA("worker");
    for (int i = 0; i < 5 + extra; ++i)
        std::free(keep(std::malloc(1000)));
    void* p = keep(std::malloc(10));
    p = keep(std::realloc(p, 20)); // a free of the 10 and an allocation of 20
    std::free(p);
    void* aligned = nullptr;
    if (posix_memalign(&aligned, 64, 256) == 0)
        std::free(keep(aligned));
    std::free(keep(strdup("abc")));
    nvtxRangePop();
    nvtxRangePushA("empty");
    nvtxRangePop();
}

} // namespace

int main(int argc, char** argv)
{
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 1;
    const int extra = argc > 2 ? std::atoi(argv[2]) : 0;
    nvtxRangePushA("outer");
    std::free(keep(std::malloc(100)));
    nvtxRangePushA("inner");
    for (int i = 0; i < 3; ++i)
        delete[] keep(new int[10]);
    delete keep(new Wide);
    nvtxRangePop();
    std::free(keep(std::calloc(4, 25)));
    nvtxRangePop();

    nvtxRangePushA("big");
    std::free(keep(std::malloc(3u << 20)));
    nvtxRangePop();

    std::thread t([&] {
        for (int round = 0; round < rounds; ++round)
            worker(extra);
    });
    t.join();
    // A second thread after the first ended: it takes over the first's counter block, and
    // must still show only its own allocations.
    std::thread again([&] { worker(extra); });
    again.join();

    spanscope::alloc::Session session;
    {
        auto span = session.operation("fill").measureThread();
        for (int i = 0; i < 3; ++i)
            std::free(keep(std::malloc(64)));
        span.iterations(3);
    }
    return 0;
}
