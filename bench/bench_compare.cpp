// Comparing two 10 M-call runs (the second 3% slower in its child regions): matching,
// per-region statistics already computed at load, and the distribution tests.
//
// Counters: ns_per_event (per call of both runs), regions compared. Target (comparison
// issue): the whole comparison under a second on this machine.

#include "model/compare/run_comparison.h"
#include "model/stats/capture_summary.h"
#include "model/stats/nesting.h"
#include "synthetic_capture.h"

#include <benchmark/benchmark.h>

using namespace spanscope;

namespace {

struct Run
{
    std::shared_ptr<model::Capture> capture;
    std::shared_ptr<const model::CaptureSummary> summary;
};

Run prepare(double scale)
{
    Run run;
    run.capture = bench::syntheticCapture(10'000'000, 4, scale);
    model::computeNesting(*run.capture);
    run.summary = model::summarizeCapture(*run.capture);
    return run;
}

void BM_Compare(benchmark::State& state)
{
    static const Run baseline = prepare(1.0);
    static const Run candidate = prepare(1.03);
    model::CompareOptions options;
    options.metric = model::CompareMetric(state.range(0));
    size_t regions = 0;
    for (auto _ : state) {
        const auto comparison = model::compareRuns(
            {{baseline.capture.get(), baseline.summary.get(), "a"}, {candidate.capture.get(), candidate.summary.get(), "b"}},
            options);
        regions = comparison.regions.size();
        benchmark::DoNotOptimize(regions);
    }
    const double events = double(baseline.capture->events.size() + candidate.capture->events.size());
    state.counters["ns_per_event"] =
        benchmark::Counter(events, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
    state.counters["regions"] = double(regions);
}

} // namespace

BENCHMARK(BM_Compare)->Arg(int(model::CompareMetric::Mean))->Arg(int(model::CompareMetric::P95))
    ->ArgName("metric")->Unit(benchmark::kMillisecond)->Iterations(3);

BENCHMARK_MAIN();
