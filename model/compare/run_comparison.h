#pragma once
// Comparing runs: regions matched by name and kind (pooled over ranks, or per rank), each run's
// figures side by side, the change of a chosen metric against the baseline (the first
// run), and whether it is real: for means and totals a Mann-Whitney U test on the per-call
// durations (effect: Cliff's delta), for p50/p95 an exceedance test on the share of calls
// above the baseline's percentile (effect: the change of that share). Runs without per-call data (aggregate files) show the
// change with significance unknown. Pure computation over immutable captures; any thread.

#include "../capture.h"
#include "../stats/capture_summary.h"

#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace spanscope::model {

// Allocs and Bytes: allocations and requested bytes per call (exclusive, captures recorded
// with spanscope-run --alloc); their test is the rank test on the per-call values, and a
// rise is reported as "more" (Verdict::Slower: gates fail on it), a fall as "fewer".
enum class CompareMetric { Mean, P50, P95, Total, Allocs, Bytes };
inline constexpr CompareMetric kCompareMetrics[] = {CompareMetric::Mean, CompareMetric::P50,
                                                    CompareMetric::P95, CompareMetric::Total,
                                                    CompareMetric::Allocs, CompareMetric::Bytes};
// Insufficient: too few calls for any test to find a change at the significance level
// (smallestAttainablePValue); a verdict of its own, not noise, though gates ignore both.
enum class Verdict { Slower, Faster, Noise, Insufficient, Added, Removed, Unknown };

const char* metricName(CompareMetric metric);
// What the metric's values count: "ns", "allocations" or "bytes".
const char* metricUnit(CompareMetric metric);
bool isAllocationMetric(CompareMetric metric);
const char* verdictName(Verdict verdict);
// As verdictName, but "more"/"fewer" instead of "slower"/"faster" for allocation metrics.
const char* verdictName(Verdict verdict, CompareMetric metric);
std::optional<CompareMetric> parseMetric(const std::string& name);

struct CompareOptions
{
    CompareMetric metric = CompareMetric::Mean;
    double thresholdPercent = 5.0; // smaller relative changes are noise whatever the test says
    double alpha = 0.01;           // significance level of the rank test
    bool perRank = false;          // match (region, rank) instead of pooling ranks
    std::optional<std::regex> region; // only regions whose name matches (search, not full match)
};

struct RunInput
{
    const Capture* capture = nullptr;
    const CaptureSummary* summary = nullptr;
    std::string label; // shown in reports, usually the file name
};

struct RegionChange
{
    double baseline = 0, candidate = 0; // the metric, in metricUnit()
    double absolute = 0;                // candidate - baseline, in metricUnit()
    std::optional<double> relative;     // absolute / baseline; none when the baseline is 0
    std::optional<double> speedup;      // baseline / candidate; none when the candidate is 0
    std::optional<double> pValue;       // see the header; none without per-call data
    std::optional<double> effect;       // Cliff's delta, or change of the exceedance share
    Verdict verdict = Verdict::Unknown;
};

struct RegionComparison
{
    std::string name;
    RegionKind kind = RegionKind::Cpu; // regions match by (name, kind) across runs
    int32_t rank = -1; // -1 when pooled
    std::vector<std::optional<RegionStats>> runs; // per run; empty where the run lacks it
    std::vector<RegionChange> changes;            // per candidate (runs 1..n-1)
};

struct Comparison
{
    std::vector<std::string> labels;
    CompareOptions options;
    std::vector<RegionComparison> regions; // baseline's region order, then new regions
    // True when some region got slower beyond the threshold with a significant test.
    bool anySignificantSlowdown() const;
};

// The metric of one region's statistics, in metricUnit(); none where the run lacks it
// (percentiles of an aggregate file, allocations of a capture recorded without --alloc).
std::optional<double> metricOf(const RegionStats& stats, CompareMetric metric);

// Needs at least two runs; the first is the baseline.
Comparison compareRuns(const std::vector<RunInput>& runs, const CompareOptions& options);

} // namespace spanscope::model
