// The allocation interposer's cost per malloc(64) + free pair (bench/alloc_loop.cpp, 10 M
// pairs in a process of its own), each variant next to a plain run measured right before
// it in the same iteration:
//   BM_MallocFree/0  libspanscope-alloc preloaded (counting only)
//   BM_MallocFree/1  libspanscope-alloc and the collector, the loop inside NVTX ranges of
//                    1,000 pairs each (counting and attributing, the stream written to a file)
//   BM_MallocFree/2  heaptrack (Debian's) on the same loop, for reference
// Counters:
//   ns_per_pair        the variant's loop, ns per pair
//   plain_ns_per_pair  the same loop without any tool, same iteration
//   added_ns_per_pair  the difference (goals: /0 <= 5, /1 <= 8)
//   allocations_lost   /1 only: pairs of the loop minus the allocations the capture
//                      attributes to its "pairs" ranges (must be 0)
#include "model/live/job_assembler.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

constexpr long kPairs = 10000000;

// Runs `command`, returns the ns_per_pair it printed (NaN if none).
double nsPerPair(const std::string& command)
{
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe)
        return std::numeric_limits<double>::quiet_NaN();
    double ns = std::numeric_limits<double>::quiet_NaN();
    char line[256];
    while (std::fgets(line, sizeof line, pipe))
        std::sscanf(line, "ns_per_pair %lf", &ns);
    ::pclose(pipe);
    return ns;
}

// Allocations the capture in `dir` attributes to ranges named "pairs".
long long allocationsInPairs(const std::filesystem::path& dir)
{
    spanscope::model::live::JobAssembler job;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        std::ifstream in(entry.path(), std::ios::binary);
        std::stringstream bytes;
        bytes << in.rdbuf();
        const std::string data = bytes.str();
        const size_t stream = job.addStream(entry.path().string());
        job.feed(stream, data.data(), data.size());
        job.finishStream(stream);
    }
    const auto capture = job.snapshot();
    long long sum = 0;
    if (!capture->events.hasAllocations())
        return -1;
    for (const auto& row : capture->rows)
        if (capture->regionName(row.region) == "pairs")
            for (uint64_t e = row.firstEvent; e < row.firstEvent + row.count; ++e)
                sum += capture->events.allocCounts[e];
    return sum;
}

void BM_MallocFree(benchmark::State& state)
{
    const std::string loop = std::string(SPANSCOPE_ALLOC_LOOP) + " " + std::to_string(kPairs);
    const std::string alloc = SPANSCOPE_ALLOC_LIB, collector = SPANSCOPE_COLLECTOR_LIB;
    const auto dir = std::filesystem::temp_directory_path() / ("bench_alloc_" + std::to_string(::getpid()));
    std::string plainCommand = loop, command;
    switch (state.range(0)) {
    case 0: command = "LD_PRELOAD=" + alloc + " " + loop; break;
    case 1:
        plainCommand = loop + " ranges";
        command = "LD_PRELOAD='" + alloc + " " + collector + "' SPANSCOPE_START_AT_LOAD=1 NVTX_INJECTION64_PATH=" +
                  collector + " SPANSCOPE_OUTPUT_DIR=" + dir.string() + " " + loop + " ranges";
        break;
    default: command = "heaptrack -o " + (dir / "heaptrack").string() + " " + loop + " 2>/dev/null | grep ns_per_pair"; break;
    }
    double plain = 0, variant = 0;
    long long lost = 0;
    for (auto _ : state) {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        plain += nsPerPair(plainCommand);
        variant += nsPerPair(command);
        if (state.range(0) == 1) {
            const long long counted = allocationsInPairs(dir);
            lost += counted < 0 ? kPairs : kPairs - counted;
        }
    }
    std::filesystem::remove_all(dir);
    const double n = double(state.iterations());
    state.counters["ns_per_pair"] = variant / n;
    state.counters["plain_ns_per_pair"] = plain / n;
    state.counters["added_ns_per_pair"] = (variant - plain) / n;
    if (state.range(0) == 1)
        state.counters["allocations_lost"] = double(lost);
}

} // namespace

BENCHMARK(BM_MallocFree)->Arg(0)->Arg(1)->Arg(2)->Iterations(5)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
