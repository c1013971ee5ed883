// Loading a 10 M-call region file against a plain HDF5 read of the same datasets, for two
// file shapes (the second benchmark argument): 0 = steps of 9 short child calls (10
// regions of 1 M calls), 1 = a long run's shape, 50 regions of 200,000 calls each (an
// iteration holding 49 child calls). Both are one rank, start/end only.
//
// BM_SummaryProcess times whole processes instead (see there): the CLI against a plain read.
//
// Counters (per case):
//   ns_per_event       wall ns per call for the measured operation
//   ratio_to_raw_read  measured time / plain H5Dread of the same event datasets, same run
//   bytes_per_event    resident bytes per call held by the loaded capture (load cases)
//   raw_read_process_ms, raw_read_huge_pages_process_ms, cli_ms, ratio_to_raw_read_huge_pages
//                      BM_SummaryProcess: best of 3 whole-process wall times
// Targets: load <= 1.5x raw read, <= 24 bytes per call; the whole summary (nesting,
// percentiles, exclusive, report) <= 4x a plain read on both shapes, as whole processes.

#include "bench_support.h"
#include "model/capture_loader.h"
#include "model/io/region_file_reader.h"
#include "model/report/summary_report.h"
#include "support/h5_builder.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <filesystem>
#include <vector>

using namespace spanscope;

namespace {

constexpr int64_t kCalls = 10'000'000;

// Regions below each "step" call (one call of each per step), by file shape.
int childRegions(int shape)
{
    return shape == 0 ? 9 : 49;
}

// One rank; `step` calls each containing childRegions(shape) back-to-back child calls.
void generate(int shape, std::vector<std::vector<int64_t>>& starts,
              std::vector<std::vector<int64_t>>& ends)
{
    const int children = childRegions(shape);
    const int64_t steps = kCalls / (children + 1);
    starts.assign(children + 1, {});
    ends.assign(children + 1, {});
    for (auto& v : starts)
        v.reserve(size_t(steps));
    for (auto& v : ends)
        v.reserve(size_t(steps));
    int64_t t = 1'000'000;
    for (int64_t s = 0; s < steps; ++s) {
        const int64_t stepStart = t;
        t += 10;
        for (int c = 1; c <= children; ++c) {
            const int64_t length = 50 + (s * 7 + c * 13) % 400;
            starts[c].push_back(t);
            ends[c].push_back(t + length);
            t += length + 5;
        }
        starts[0].push_back(stepStart);
        ends[0].push_back(t);
        t += 20;
    }
}

std::string regionName(int r)
{
    return r == 0 ? "step" : "child." + std::to_string(r);
}

std::string inputFile(int schema, int shape)
{
    const std::string path = bench::benchDir() + "/load-10M-schema" + std::to_string(schema) +
                             (shape == 0 ? "" : "-regions" + std::to_string(childRegions(shape) + 1)) +
                             ".h5";
    if (std::filesystem::exists(path))
        return path;
    const int children = childRegions(shape);
    std::vector<std::vector<int64_t>> starts, ends;
    generate(shape, starts, ends);
    const std::string partial = path + ".partial";
    {
        testing::H5Builder b(partial);
        if (schema == 1) {
            for (int r = 0; r <= children; ++r) {
                const std::string base = "/rank0/regions/" + regionName(r);
                b.ints(base + "/start_times", starts[size_t(r)]);
                b.ints(base + "/end_times", ends[size_t(r)]);
            }
        } else {
            std::vector<testing::ColumnarRow> rows;
            for (int r = 0; r <= children; ++r)
                rows.push_back({regionName(r), 0, std::move(starts[size_t(r)]), std::move(ends[size_t(r)])});
            testing::writeColumnar(b, rows);
        }
    }
    std::filesystem::rename(partial, path);
    return path;
}

// The event datasets read with plain H5Dread into fresh buffers of type Buffer, all held
// until the read is complete, as any loader must hold them.
template <typename Buffer>
void readEventDatasets(const std::string& path, int schema, int shape)
{
    std::vector<Buffer> held;
    hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    std::vector<std::string> datasets;
    if (schema == 1) {
        for (int r = 0; r <= childRegions(shape); ++r) {
            datasets.push_back("/rank0/regions/" + regionName(r) + "/start_times");
            datasets.push_back("/rank0/regions/" + regionName(r) + "/end_times");
        }
    } else {
        datasets = {"/events/start_deltas", "/events/durations"};
    }
    for (const auto& name : datasets) {
        hid_t ds = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
        hid_t space = H5Dget_space(ds);
        Buffer values(size_t(H5Sget_simple_extent_npoints(space)));
        if (H5Dread(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0 || values.size() < 1000)
            std::fprintf(stderr, "raw read of %s failed\n", name.c_str());
        benchmark::DoNotOptimize(values.data());
        held.push_back(std::move(values));
        H5Sclose(space);
        H5Dclose(ds);
    }
    H5Fclose(file);
}

// The in-process baseline reads into columns (model/column.h: mapped, transparent huge
// pages), as the loader does: with malloc'd vectors it pays ~40,000 page faults for 10 M
// calls (0.57 s against 0.12 s on a 2-core VM) and the ratio would flatter the loader.
void rawRead(const std::string& path, int schema, int shape)
{
    readEventDatasets<model::Column<int64_t>>(path, schema, shape);
}

void setCounters(benchmark::State& state, double baselineNs)
{
    const double perIteration = state.iterations() ? double(state.counters["total_ns"]) / double(state.iterations()) : 0;
    state.counters.erase("total_ns");
    state.counters["ns_per_event"] = perIteration / double(kCalls);
    state.counters["ratio_to_raw_read"] = perIteration / baselineNs;
    state.counters["raw_read_ms"] = baselineNs / 1e6;
}

void BM_RawRead(benchmark::State& state)
{
    const int schema = int(state.range(0)), shape = int(state.range(1));
    const auto path = inputFile(schema, shape);
    double total = 0;
    for (auto _ : state)
        total += bench::bestOf(1, [&] { rawRead(path, schema, shape); });
    state.counters["ns_per_event"] = total / double(state.iterations()) / double(kCalls);
}

void BM_Load(benchmark::State& state)
{
    const int schema = int(state.range(0)), shape = int(state.range(1));
    const auto path = inputFile(schema, shape);
    const double baseline = bench::bestOf(3, [&] { rawRead(path, schema, shape); });
    double total = 0;
    double bytes = 0, rss = 0;
    (void)model::io::readRegionFile(path); // warm-up: first touch of fresh memory
    for (auto _ : state) {
        const int64_t before = bench::residentBytes();
        std::shared_ptr<model::Capture> capture;
        total += bench::bestOf(1, [&] {
            auto result = model::io::readRegionFile(path);
            if (!result.ok())
                state.SkipWithError(result.error().toString().c_str());
            else
                capture = std::move(result.value());
        });
        if (!capture)
            break;
        bytes = double(capture->residentBytes()) / double(kCalls);
        rss = double(bench::residentBytes() - before) / double(kCalls);
    }
    state.counters["total_ns"] = total;
    setCounters(state, baseline);
    state.counters["bytes_per_event"] = bytes;
    state.counters["rss_bytes_per_event"] = rss;
}

// What `spanscope-cli summary FILE` does: load, nesting, all statistics, the text report.
void BM_Summary(benchmark::State& state)
{
    const int schema = int(state.range(0)), shape = int(state.range(1));
    const auto path = inputFile(schema, shape);
    const double baseline = bench::bestOf(3, [&] { rawRead(path, schema, shape); });
    double total = 0;
    double bytes = 0;
    (void)model::loadCapture(path); // warm-up, as for the baseline
    for (auto _ : state) {
        total += bench::bestOf(1, [&] {
            auto loaded = model::loadCapture(path);
            if (!loaded.ok()) {
                state.SkipWithError(loaded.error().toString().c_str());
                return;
            }
            const auto text = model::report::summaryText({*loaded.value().capture, *loaded.value().summary});
            bytes = double(loaded.value().capture->residentBytes()) / double(kCalls);
            benchmark::DoNotOptimize(text.data());
        });
    }
    state.counters["total_ns"] = total;
    setCounters(state, baseline);
    state.counters["bytes_per_event"] = bytes; // with nesting depth, as the viewer holds it
}

// The analysis alone (nesting on both cores, every statistic), on a capture loaded once:
// the part of the summary that is spanscope's own work rather than HDF5's.
void BM_Analysis(benchmark::State& state)
{
    const int schema = int(state.range(0)), shape = int(state.range(1));
    auto read = model::io::readRegionFile(inputFile(schema, shape));
    if (!read.ok()) {
        state.SkipWithError(read.error().toString().c_str());
        return;
    }
    const std::shared_ptr<model::Capture> capture = read.value();
    double total = 0;
    for (auto _ : state)
        total += bench::bestOf(1, [&] {
            auto analyzed = model::analyzeCapture(capture, {nullptr, 0, 1}, model::LoadOptions{false, false});
            benchmark::DoNotOptimize(analyzed->summary.get());
        });
    state.counters["ns_per_event"] = total / double(state.iterations()) / double(kCalls); // wall
}

// Whole processes, as a user meets them: `spanscope-cli summary --format json FILE` against
// a process that only reads the same datasets with plain H5Dread into malloc'd vectors
// (this binary, --raw-read: ratio_to_raw_read), and into huge-page columns as the loader
// does (--raw-read-huge-pages: the stricter ratio_to_raw_read_huge_pages; on VMs where a
// fresh 4 KiB page is slow to fault the two differ several times). Best of 3 each;
// includes starting, HDF5's initialisation and returning the memory.
void BM_SummaryProcess(benchmark::State& state)
{
    const int schema = int(state.range(0)), shape = int(state.range(1));
    const auto path = inputFile(schema, shape);
    auto rawReadProcess = [&](const char* mode) {
        return bench::runCommand("'/proc/" + std::to_string(getpid()) + "/exe' " + mode + " '" + path + "' "
                                 + std::to_string(schema) + " " + std::to_string(shape));
    };
    for (auto _ : state) {
        const double raw = rawReadProcess("--raw-read");
        const double rawHuge = rawReadProcess("--raw-read-huge-pages");
        const double cli = bench::runCommand(std::string("'") + SPANSCOPE_CLI + "' summary --format json '" + path
                                             + "' > /dev/null");
        state.counters["raw_read_process_ms"] = raw / 1e6;
        state.counters["raw_read_huge_pages_process_ms"] = rawHuge / 1e6;
        state.counters["cli_ms"] = cli / 1e6;
        state.counters["ratio_to_raw_read"] = cli / raw;
        state.counters["ratio_to_raw_read_huge_pages"] = cli / rawHuge;
        state.counters["ns_per_event"] = cli / double(kCalls);
    }
}

} // namespace

// Arguments: schema (1 or 3), file shape (see the top).
#define SPANSCOPE_LOAD_CASES ->Args({1, 0})->Args({3, 0})->Args({1, 1})->Args({3, 1})
BENCHMARK(BM_RawRead) SPANSCOPE_LOAD_CASES->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Load) SPANSCOPE_LOAD_CASES->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Summary) SPANSCOPE_LOAD_CASES->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_Analysis) SPANSCOPE_LOAD_CASES->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_SummaryProcess) SPANSCOPE_LOAD_CASES->Unit(benchmark::kMillisecond)->Iterations(1);

int main(int argc, char** argv)
{
    if (argc == 5 && std::string(argv[1]) == "--raw-read") { // BM_SummaryProcess's baselines
        readEventDatasets<std::vector<int64_t>>(argv[2], std::atoi(argv[3]), std::atoi(argv[4]));
        return 0;
    }
    if (argc == 5 && std::string(argv[1]) == "--raw-read-huge-pages") {
        readEventDatasets<model::Column<int64_t>>(argv[2], std::atoi(argv[3]), std::atoi(argv[4]));
        return 0;
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
