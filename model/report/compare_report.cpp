#include "compare_report.h"

#include "duration_format.h"
#include "gpu_compare_report.h"
#include "text_table.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace spanscope::model::report {

namespace {

std::string percent(const std::optional<double>& relative)
{
    if (!relative)
        return "-";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%+.1f%%", *relative * 100.0);
    return buffer;
}

std::string number(const std::optional<double>& value, const char* format)
{
    if (!value)
        return "-";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, format, *value);
    return buffer;
}

std::string csvNumber(const std::optional<double>& value)
{
    if (!value || !std::isfinite(*value))
        return {};
    char buffer[32];
    const auto r = std::to_chars(buffer, buffer + sizeof buffer, *value);
    return std::string(buffer, r.ptr);
}

std::string testName(CompareMetric metric)
{
    if (metric == CompareMetric::P50 || metric == CompareMetric::P95)
        return "share of calls above the baseline's percentile, two-proportion z-test";
    if (metric == CompareMetric::Allocs)
        return "Mann-Whitney U on per-call allocation counts (per iteration for span API operations)";
    if (metric == CompareMetric::Bytes)
        return "Mann-Whitney U on per-call allocated bytes (per iteration for span API operations)";
    return "Mann-Whitney U on per-call durations";
}

// A value of the metric for the table: "12.3 µs", "2.50" allocations, "1.5 KiB".
std::string metricValue(double value, CompareMetric metric)
{
    if (metric == CompareMetric::Allocs)
        return number(value, "%.2f");
    if (metric == CompareMetric::Bytes)
        return value < 0 ? "-" + formatBytes(-value) : formatBytes(value);
    return formatDuration(value);
}

std::string signedMetricValue(double value, CompareMetric metric)
{
    std::string text = metricValue(value, metric);
    if (value > 0)
        text.insert(text.begin(), '+');
    return text;
}

// JSON and CSV field names carry the unit: baseline_ns, baseline_allocations, baseline_bytes.
std::string withUnit(const char* field, CompareMetric metric)
{
    return std::string(field) + "_" + metricUnit(metric);
}

std::string displayName(const std::string& name)
{
    return name.empty() ? "(unnamed)" : name;
}

} // namespace

std::string comparisonText(const Comparison& c, const analysis::GpuComparison* gpu)
{
    std::string out;
    const bool perRank = c.options.perRank;
    const bool regions = !gpu || !gpu->metric; // a GPU metric compares devices, not regions
    for (size_t k = 0; regions && k + 1 < c.labels.size(); ++k) {
        out += "baseline  " + c.labels[0] + "\ncandidate " + c.labels[k + 1] + "\n";
        out += std::string("metric ") + metricName(c.options.metric) + ", threshold "
               + number(c.options.thresholdPercent, "%.3g") + "%, significance p < "
               + number(c.options.alpha, "%.3g") + " (" + testName(c.options.metric) + ")\n\n";
        std::vector<std::string> header = {"Region"};
        if (perRank)
            header.push_back("Rank");
        for (const char* h : {"Baseline", "Candidate", "Change", "%", "Speedup", "p", "Effect", "Verdict"})
            header.push_back(h);
        TextTable table(header);
        for (const auto& region : c.regions) {
            const auto& change = region.changes[k];
            std::vector<std::string> row = {displayName(region.name)
                                            + (region.kind == RegionKind::Cpu
                                                   ? std::string()
                                                   : std::string(" [") + regionKindName(region.kind) + "]")};
            if (perRank)
                row.push_back(std::to_string(region.rank));
            const bool both = change.verdict != Verdict::Added && change.verdict != Verdict::Removed;
            const CompareMetric metric = c.options.metric;
            row.push_back(region.runs[0] && both ? metricValue(change.baseline, metric) : "-");
            row.push_back(region.runs[k + 1] && both ? metricValue(change.candidate, metric) : "-");
            row.push_back(both ? signedMetricValue(change.absolute, metric) : "-");
            row.push_back(both ? percent(change.relative) : "-");
            row.push_back(number(change.speedup, "%.2fx"));
            row.push_back(number(change.pValue, "%.2g"));
            row.push_back(number(change.effect, "%+.2f"));
            row.push_back(verdictName(change.verdict, metric));
            table.add(row);
        }
        out += table.render();
        if (k + 2 < c.labels.size())
            out += "\n";
    }
    if (gpu) {
        if (!regions)
            for (size_t k = 1; k < c.labels.size(); ++k)
                out += (k == 1 ? "baseline  " + c.labels[0] + "\n" : std::string()) + "candidate " + c.labels[k] + "\n";
        out += gpuComparisonText(*gpu, c.labels, c.options);
    }
    return out;
}

void comparisonJson(const Comparison& c, JsonWriter& json, const analysis::GpuComparison* gpu)
{
    json.beginObject();
    json.field("baseline", c.labels.empty() ? std::string() : c.labels[0]);
    json.key("candidates");
    json.beginArray();
    for (size_t k = 1; k < c.labels.size(); ++k)
        json.value(c.labels[k]);
    json.endArray();
    json.field("metric", gpu && gpu->metric ? analysis::gpuMetricName(*gpu->metric) : metricName(c.options.metric));
    json.field("threshold_pct", c.options.thresholdPercent);
    json.field("alpha", c.options.alpha);
    json.field("per_rank", c.options.perRank);
    json.field("any_significant_slowdown",
               gpu && gpu->metric ? gpu->anySlowdown() : c.anySignificantSlowdown());
    json.key("regions");
    json.beginArray();
    for (const auto& region : c.regions) {
        if (gpu && gpu->metric)
            break; // a GPU metric compares devices and ranks ("gpu"), not regions
        json.beginObject();
        json.field("name", region.name);
        json.field("kind", regionKindName(region.kind));
        if (c.options.perRank)
            json.field("rank", int64_t(region.rank));
        json.key("runs");
        json.beginArray();
        for (const auto& stats : region.runs) {
            if (!stats) {
                json.null();
                continue;
            }
            json.beginObject();
            json.field("calls", stats->calls);
            json.field("total_ns", stats->total);
            json.field("mean_ns", stats->mean);
            json.field("p50_ns", stats->p50);
            json.field("p95_ns", stats->p95);
            json.field("exclusive_ns", stats->exclusive);
            json.field("gpu_total_ns", stats->gpuTotal);
            json.field("alloc_count", stats->allocCount);
            json.field("alloc_bytes", stats->allocBytes);
            json.field("alloc_iterations", stats->allocIterations); // span API operations
            json.endObject();
        }
        json.endArray();
        json.key("changes");
        json.beginArray();
        for (size_t k = 0; k < region.changes.size(); ++k) {
            const auto& change = region.changes[k];
            const bool both = change.verdict != Verdict::Added && change.verdict != Verdict::Removed;
            json.beginObject();
            json.field("candidate", c.labels[k + 1]);
            const CompareMetric metric = c.options.metric;
            json.field("verdict", verdictName(change.verdict, metric));
            json.field(withUnit("baseline", metric), both ? std::optional<double>(change.baseline) : std::nullopt);
            json.field(withUnit("candidate", metric), both ? std::optional<double>(change.candidate) : std::nullopt);
            json.field(withUnit("absolute", metric), both ? std::optional<double>(change.absolute) : std::nullopt);
            json.field("relative", change.relative);
            json.field("speedup", change.speedup);
            json.field("p_value", change.pValue);
            json.field("effect", change.effect);
            json.endObject();
        }
        json.endArray();
        json.endObject();
    }
    json.endArray();
    if (gpu)
        gpuComparisonJson(*gpu, c.labels, json);
    json.endObject();
}

std::string comparisonCsv(const Comparison& c)
{
    const CompareMetric metric = c.options.metric;
    std::string out = "region,rank,baseline,candidate,metric," + withUnit("baseline", metric) + "," +
                      withUnit("candidate", metric) + "," + withUnit("absolute", metric) +
                      ",relative,speedup,p_value,effect,verdict,kind\n";
    for (const auto& region : c.regions) {
        for (size_t k = 0; k < region.changes.size(); ++k) {
            const auto& change = region.changes[k];
            const bool both = change.verdict != Verdict::Added && change.verdict != Verdict::Removed;
            const std::vector<std::string> cells = {
                csvField(region.name),
                c.options.perRank ? std::to_string(region.rank) : std::string(),
                csvField(c.labels[0]),
                csvField(c.labels[k + 1]),
                metricName(c.options.metric),
                both ? csvNumber(change.baseline) : std::string(),
                both ? csvNumber(change.candidate) : std::string(),
                both ? csvNumber(change.absolute) : std::string(),
                csvNumber(change.relative),
                csvNumber(change.speedup),
                csvNumber(change.pValue),
                csvNumber(change.effect),
                verdictName(change.verdict, metric),
                regionKindName(region.kind)};
            for (size_t i = 0; i < cells.size(); ++i)
                out += (i ? "," : "") + cells[i];
            out += '\n';
        }
    }
    return out;
}

} // namespace spanscope::model::report
