#include "run_comparison.h"

#include "../stats/region_stats.h"
#include "distribution_tests.h"

#include <cmath>
#include <map>

namespace spanscope::model {

const char* metricName(CompareMetric metric)
{
    switch (metric) {
    case CompareMetric::Mean: return "mean";
    case CompareMetric::P50: return "p50";
    case CompareMetric::P95: return "p95";
    case CompareMetric::Total: return "total";
    case CompareMetric::Allocs: return "allocs";
    case CompareMetric::Bytes: return "bytes";
    }
    return "mean";
}

const char* metricUnit(CompareMetric metric)
{
    switch (metric) {
    case CompareMetric::Allocs: return "allocations";
    case CompareMetric::Bytes: return "bytes";
    default: return "ns";
    }
}

bool isAllocationMetric(CompareMetric metric)
{
    return metric == CompareMetric::Allocs || metric == CompareMetric::Bytes;
}

const char* verdictName(Verdict verdict, CompareMetric metric)
{
    if (isAllocationMetric(metric) && (verdict == Verdict::Slower || verdict == Verdict::Faster))
        return verdict == Verdict::Slower ? "more" : "fewer";
    return verdictName(verdict);
}

const char* verdictName(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Slower: return "slower";
    case Verdict::Faster: return "faster";
    case Verdict::Noise: return "noise";
    case Verdict::Insufficient: return "insufficient";
    case Verdict::Added: return "added";
    case Verdict::Removed: return "removed";
    case Verdict::Unknown: return "unknown";
    }
    return "unknown";
}

std::optional<CompareMetric> parseMetric(const std::string& name)
{
    for (const auto metric : kCompareMetrics)
        if (name == metricName(metric))
            return metric;
    return std::nullopt;
}

std::optional<double> metricOf(const RegionStats& stats, CompareMetric metric)
{
    switch (metric) {
    case CompareMetric::Mean: return stats.mean;
    case CompareMetric::Total: return double(stats.total);
    case CompareMetric::P50: return stats.p50;
    case CompareMetric::P95: return stats.p95;
    case CompareMetric::Allocs:
    case CompareMetric::Bytes: {
        const auto& total = metric == CompareMetric::Allocs ? stats.allocCount : stats.allocBytes;
        // Per iteration for the span API's operations (as their programs state them).
        const int64_t per = stats.allocIterations ? *stats.allocIterations : int64_t(stats.calls);
        if (!total || per <= 0)
            return std::nullopt;
        return double(*total) / double(per);
    }
    }
    return std::nullopt;
}

bool Comparison::anySignificantSlowdown() const
{
    for (const auto& region : regions)
        for (const auto& change : region.changes)
            if (change.verdict == Verdict::Slower)
                return true;
    return false;
}

namespace {

// Regions match by name and kind: a kernel and a CPU range of one name are two regions.
struct Key
{
    std::string name;
    RegionKind kind;
    int32_t rank;
    auto operator<=>(const Key&) const = default;
};

// The capture rows each (region, rank) key covers in one run.
std::map<Key, std::vector<uint32_t>> rowsByKey(const Capture& capture, bool perRank)
{
    std::map<Key, std::vector<uint32_t>> keys;
    for (uint32_t r = 0; r < capture.rows.size(); ++r) {
        const auto& row = capture.rows[r];
        keys[{capture.regionName(row.region), capture.regionKind(row.region), perRank ? row.rank : -1}].push_back(r);
    }
    return keys;
}


// What the test compares: per-call durations, or per-call allocation counts or bytes
// (per iteration for spans of the allocation span API, in thousandths: the rank test
// depends on the order of the values only, and integers keep it exact).
std::vector<int64_t> perCallValues(const Capture& capture, const std::vector<uint32_t>& rows,
                                   CompareMetric metric)
{
    if (!isAllocationMetric(metric))
        return closedDurations(capture, rows);
    std::vector<int64_t> values;
    if (!capture.events.hasAllocations())
        return values;
    const auto& column = metric == CompareMetric::Allocs ? capture.events.allocCounts : capture.events.allocBytes;
    for (const uint32_t r : rows) {
        const auto& row = capture.rows[r];
        for (const uint64_t i : capture.rowEvents(row))
            if (column[i] < 0)
                continue;
            else if (capture.events.allocIterations.empty() || capture.events.allocIterations[i] < 0)
                values.push_back(column[i]);
            else if (capture.events.allocIterations[i] > 0) // iterations(0): no per-iteration figure
                values.push_back(int64_t(std::llround(double(column[i]) * 1000.0 /
                                                      double(capture.events.allocIterations[i]))));
    }
    return values;
}

RegionChange change(const RunInput& baseRun, const std::vector<uint32_t>* baseRows, const std::optional<RegionStats>& base,
                    const RunInput& candRun, const std::vector<uint32_t>* candRows,
                    const std::optional<RegionStats>& cand, const CompareOptions& options)
{
    RegionChange result;
    if (!base) {
        result.verdict = Verdict::Added;
        return result;
    }
    if (!cand) {
        result.verdict = Verdict::Removed;
        return result;
    }
    const auto b = metricOf(*base, options.metric), c = metricOf(*cand, options.metric);
    if (!b || !c) {
        result.verdict = Verdict::Unknown; // e.g. percentiles of an aggregate-only run
        return result;
    }
    result.baseline = *b;
    result.candidate = *c;
    result.absolute = *c - *b;
    if (*b != 0)
        result.relative = result.absolute / *b;
    if (*c != 0)
        result.speedup = *b / *c;
    bool insufficient = false;
    if (!base->summaryOnly && !cand->summaryOnly) {
        const auto baseDurations = perCallValues(*baseRun.capture, *baseRows, options.metric);
        const auto candDurations = perCallValues(*candRun.capture, *candRows, options.metric);
        // Percentile metrics are tested where they live (the share of calls above the
        // baseline's percentile); means and totals by the ranks of all calls.
        const auto test = options.metric == CompareMetric::P50   ? exceedance(baseDurations, candDurations, 0.50)
                          : options.metric == CompareMetric::P95 ? exceedance(baseDurations, candDurations, 0.95)
                                                                 : mannWhitney(baseDurations, candDurations);
        if (test.baselineN > 0 && test.candidateN > 0) {
            result.pValue = test.pValue;
            result.effect = test.effect;
            insufficient = smallestAttainablePValue(test.baselineN, test.candidateN) >= options.alpha;
        }
    }
    if (!result.pValue) {
        result.verdict = Verdict::Unknown;
        return result;
    }
    if (insufficient) {
        result.verdict = Verdict::Insufficient;
        return result;
    }
    const bool large = result.relative ? std::abs(*result.relative) * 100.0 >= options.thresholdPercent
                                       : result.absolute != 0;
    if (*result.pValue < options.alpha && large)
        result.verdict = result.absolute > 0 ? Verdict::Slower : Verdict::Faster;
    else
        result.verdict = Verdict::Noise;
    return result;
}

} // namespace

Comparison compareRuns(const std::vector<RunInput>& runs, const CompareOptions& options)
{
    Comparison comparison;
    comparison.options = options;
    for (const auto& run : runs)
        comparison.labels.push_back(run.label);
    if (runs.size() < 2)
        return comparison;

    std::vector<std::map<Key, std::vector<uint32_t>>> keysOfRun;
    for (const auto& run : runs)
        keysOfRun.push_back(rowsByKey(*run.capture, options.perRank));

    // Order: the baseline's regions by first call, then regions new in later runs.
    std::vector<Key> order;
    std::map<Key, bool> seen;
    for (size_t r = 0; r < runs.size(); ++r) {
        const auto& capture = *runs[r].capture;
        for (const uint32_t row : runs[r].summary->rowOrder) {
            const uint32_t id = capture.rows[row].region;
            Key key{capture.regionName(id), capture.regionKind(id), options.perRank ? capture.rows[row].rank : -1};
            if (!seen[key]) {
                seen[key] = true;
                order.push_back(key);
            }
        }
    }

    std::vector<int64_t> scratch;
    for (const auto& key : order) {
        if (options.region && !std::regex_search(key.name, *options.region))
            continue;
        RegionComparison region;
        region.name = key.name;
        region.kind = key.kind;
        region.rank = key.rank;
        std::vector<const std::vector<uint32_t>*> rows;
        for (size_t r = 0; r < runs.size(); ++r) {
            auto it = keysOfRun[r].find(key);
            if (it == keysOfRun[r].end()) {
                rows.push_back(nullptr);
                region.runs.emplace_back();
                continue;
            }
            rows.push_back(&it->second);
            const auto& summary = *runs[r].summary;
            if (!options.perRank) {
                region.runs.emplace_back(summary.pooled(runs[r].capture->rows[it->second.front()].region));
            } else if (it->second.size() == 1) {
                region.runs.emplace_back(summary.perRow[it->second.front()]);
            } else {
                region.runs.emplace_back(computeRegionStats(*runs[r].capture, it->second, scratch));
            }
        }
        for (size_t r = 1; r < runs.size(); ++r)
            region.changes.push_back(change(runs[0], rows[0], region.runs[0], runs[r], rows[r], region.runs[r], options));
        comparison.regions.push_back(std::move(region));
    }
    return comparison;
}

} // namespace spanscope::model
