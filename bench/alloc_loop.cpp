// The loop bench_alloc times in a process of its own, so each variant can preload what it
// measures: `alloc_loop PAIRS [ranges]` runs PAIRS malloc(64) + free pairs (in blocks of
// 1,000, each inside an NVTX range "pairs" with `ranges`) after a warm-up, and prints
// "ns_per_pair X". Built without sanitizers, like every program an interposer goes into.
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

inline void* keep(void* p)
{
    asm volatile("" : : "r"(p) : "memory");
    return p;
}

void pairs(long count, bool ranges)
{
    constexpr long kBlock = 1000;
    for (long done = 0; done < count; done += kBlock) {
        const long n = count - done < kBlock ? count - done : kBlock;
        if (ranges)
            nvtxRangePushA("pairs");
        for (long i = 0; i < n; ++i)
            std::free(keep(std::malloc(64)));
        if (ranges)
            nvtxRangePop();
    }
}

} // namespace

int main(int argc, char** argv)
{
    const long count = argc > 1 ? std::atol(argv[1]) : 2000000;
    const bool ranges = argc > 2 && std::strcmp(argv[2], "ranges") == 0;
    if (ranges) { // the collector's first range (injection, thread buffer) before the timing
        nvtxRangePushA("warm-up");
        nvtxRangePop();
    }
    for (int i = 0; i < 100000; ++i)
        std::free(keep(std::malloc(64)));
    const auto t0 = std::chrono::steady_clock::now();
    pairs(count, ranges);
    const auto t1 = std::chrono::steady_clock::now();
    std::printf("ns_per_pair %.3f\n", std::chrono::duration<double, std::nano>(t1 - t0).count() / double(count));
    return 0;
}
