#include "gpu_compare_report.h"

#include "duration_format.h"
#include "text_table.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace spanscope::model::report {

using analysis::GpuMetric;
using analysis::PathShare;

namespace {

std::string percentText(double share)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f%%", 100.0 * share);
    return text;
}

std::string signedPoints(double share)
{
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f pt", 100.0 * share);
    return text;
}

std::string relativeText(const std::optional<double>& relative)
{
    if (!relative)
        return "-";
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f%%", 100.0 * *relative);
    return text;
}

std::string signedDuration(double ns)
{
    return (ns > 0 ? "+" : ns < 0 ? "-" : "") + formatDuration(std::abs(ns));
}

double shareOf(int64_t part, int64_t whole)
{
    return whole > 0 ? double(part) / double(whole) : 0.0;
}

std::string csvNumber(double value)
{
    if (!std::isfinite(value))
        return {};
    char buffer[32];
    const auto r = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, r.ptr);
}

std::string csvOptional(const std::optional<double>& value)
{
    return value ? csvNumber(*value) : std::string();
}

// What the metric's values are, for the header line and the value cells.
bool isShare(GpuMetric metric)
{
    return metric == GpuMetric::Idle;
}

std::string metricValue(double value, GpuMetric metric)
{
    return isShare(metric) ? percentText(value) : formatDuration(value);
}

std::string deviceName(const analysis::GpuDeviceComparison& d)
{
    return "rank " + std::to_string(d.rank) + " GPU " + std::to_string(d.device);
}

void writeChange(JsonWriter& json, const RegionChange& c, const std::string& candidate)
{
    json.beginObject();
    json.field("candidate", candidate);
    json.field("verdict", verdictName(c.verdict));
    const bool both = c.verdict != Verdict::Added && c.verdict != Verdict::Removed && c.verdict != Verdict::Unknown;
    json.field("baseline", both ? std::optional<double>(c.baseline) : std::nullopt);
    json.field("candidate_value", both ? std::optional<double>(c.candidate) : std::nullopt);
    json.field("absolute", both ? std::optional<double>(c.absolute) : std::nullopt);
    json.field("relative", c.relative);
    json.field("p_value", c.pValue);
    json.field("effect", c.effect);
    json.endObject();
}

} // namespace

std::string gpuComparisonText(const analysis::GpuComparison& gpu, const std::vector<std::string>& labels,
                              const CompareOptions& options)
{
    if (gpu.empty())
        return {};
    std::string out = "\nGPU, per run (differences against the baseline, " + labels[0] + ")\n";
    TextTable devices({"Device", "Run", "Span", "Compute", "Communication", "Memory", "Idle", "Idle change",
                       "Latency median", "Latency change"});
    for (const auto& d : gpu.devices) {
        const auto& base = d.runs[0];
        for (size_t r = 0; r < d.runs.size(); ++r) {
            const auto& f = d.runs[r];
            if (!f) {
                devices.add({deviceName(d), labels[r], "(no GPU work)", "", "", "", "", "", "", ""});
                continue;
            }
            const bool compared = r > 0 && base;
            devices.add({deviceName(d), labels[r], formatDuration(double(f->spanNs)),
                         percentText(shareOf(f->computeNs, f->spanNs)),
                         percentText(shareOf(f->communicationNs, f->spanNs)),
                         percentText(shareOf(f->memoryNs, f->spanNs)), percentText(f->idleShare()),
                         compared ? signedPoints(f->idleShare() - base->idleShare()) : "",
                         f->launches ? formatDuration(double(f->latencyMedianNs)) : "-",
                         compared && f->launches && base->launches
                             ? signedDuration(double(f->latencyMedianNs - base->latencyMedianNs))
                             : ""});
        }
    }
    out += devices.render();
    if (!gpu.paths.empty()) {
        out += "\nCritical path, per run\n";
        std::vector<std::string> header = {"Rank", "Run", "Length", "Change"};
        for (int s = 0; s < analysis::kPathShares; ++s)
            header.push_back(analysis::pathShareName(PathShare(s)));
        TextTable paths(header);
        for (const auto& p : gpu.paths)
            for (size_t r = 0; r < p.runs.size(); ++r) {
                const auto& path = p.runs[r];
                std::vector<std::string> row = {std::to_string(p.rank), labels[r]};
                if (!path) {
                    row.push_back("(no GPU work)");
                    row.resize(header.size());
                } else {
                    row.push_back(formatDuration(double(path->lengthNs)));
                    row.push_back(r > 0 && p.runs[0]
                                      ? relativeText(p.runs[0]->lengthNs
                                                         ? std::optional<double>(double(path->lengthNs - p.runs[0]->lengthNs)
                                                                                 / double(p.runs[0]->lengthNs))
                                                         : std::nullopt)
                                      : "");
                    for (int s = 0; s < analysis::kPathShares; ++s)
                        row.push_back(percentText(shareOf(path->boundBy[s], path->lengthNs)));
                }
                paths.add(std::move(row));
            }
        out += paths.render();
    }
    if (gpu.metric) {
        const GpuMetric metric = *gpu.metric;
        char threshold[32];
        std::snprintf(threshold, sizeof threshold, "%.3g", options.thresholdPercent);
        out += std::string("\nmetric ") + analysis::gpuMetricName(metric) + ", threshold " + threshold + "% (" +
               (metric == GpuMetric::LaunchLatency ? "Mann-Whitney U on the launch latencies"
                                                   : "one figure per run: the threshold alone decides") +
               ")\n";
        TextTable changes({metric == GpuMetric::CriticalPath ? "Rank" : "Device", "Candidate", "Baseline",
                           "Candidate value", "Change", "p", "Verdict"});
        auto add = [&](const std::string& what, const std::vector<RegionChange>& list) {
            for (size_t k = 0; k < list.size(); ++k) {
                const RegionChange& c = list[k];
                const bool both = c.verdict != Verdict::Added && c.verdict != Verdict::Removed &&
                                  c.verdict != Verdict::Unknown;
                char p[32] = "-";
                if (c.pValue)
                    std::snprintf(p, sizeof p, "%.2g", *c.pValue);
                changes.add({what, labels[k + 1], both ? metricValue(c.baseline, metric) : "-",
                             both ? metricValue(c.candidate, metric) : "-", both ? relativeText(c.relative) : "-", p,
                             verdictName(c.verdict)});
            }
        };
        for (const auto& d : gpu.devices)
            add(deviceName(d), d.changes);
        for (const auto& path : gpu.paths)
            add("rank " + std::to_string(path.rank), path.changes);
        out += changes.render();
    }
    return out;
}

void gpuComparisonJson(const analysis::GpuComparison& gpu, const std::vector<std::string>& labels, JsonWriter& json)
{
    json.key("gpu");
    json.beginObject();
    json.key("metric");
    if (gpu.metric)
        json.value(analysis::gpuMetricName(*gpu.metric));
    else
        json.null();
    json.key("devices");
    json.beginArray();
    for (const auto& d : gpu.devices) {
        json.beginObject();
        json.field("rank", int64_t(d.rank));
        json.field("device", int64_t(d.device));
        json.key("runs");
        json.beginArray();
        for (const auto& f : d.runs) {
            if (!f) {
                json.null();
                continue;
            }
            json.beginObject();
            json.field("span_ns", f->spanNs);
            json.field("compute_ns", f->computeNs);
            json.field("communication_ns", f->communicationNs);
            json.field("memory_ns", f->memoryNs);
            json.field("idle_ns", f->idleNs);
            json.field("idle_share", f->idleShare());
            json.field("launches", f->launches);
            json.field("launch_latency_median_ns", f->latencyMedianNs);
            json.endObject();
        }
        json.endArray();
        json.key("changes");
        json.beginArray();
        for (size_t k = 0; k < d.changes.size(); ++k)
            writeChange(json, d.changes[k], labels[k + 1]);
        json.endArray();
        json.endObject();
    }
    json.endArray();
    json.key("critical_paths");
    json.beginArray();
    for (const auto& p : gpu.paths) {
        json.beginObject();
        json.field("rank", int64_t(p.rank));
        json.key("runs");
        json.beginArray();
        for (const auto& path : p.runs) {
            if (!path) {
                json.null();
                continue;
            }
            json.beginObject();
            json.field("length_ns", path->lengthNs);
            json.key("bound_by");
            json.beginObject();
            for (int s = 0; s < analysis::kPathShares; ++s)
                json.field(analysis::pathShareName(PathShare(s)), path->boundBy[s]);
            json.endObject();
            json.endObject();
        }
        json.endArray();
        json.key("changes");
        json.beginArray();
        for (size_t k = 0; k < p.changes.size(); ++k)
            writeChange(json, p.changes[k], labels[k + 1]);
        json.endArray();
        json.endObject();
    }
    json.endArray();
    json.endObject();
}

std::string gpuComparisonCsv(const analysis::GpuComparison& gpu, const std::vector<std::string>& labels)
{
    if (!gpu.metric)
        return {};
    std::string out = "rank,device,baseline,candidate,metric,baseline_value,candidate_value,absolute,relative,"
                      "p_value,effect,verdict\n";
    auto add = [&](int32_t rank, const std::string& device, const std::vector<RegionChange>& changes) {
        for (size_t k = 0; k < changes.size(); ++k) {
            const RegionChange& c = changes[k];
            const bool both =
                c.verdict != Verdict::Added && c.verdict != Verdict::Removed && c.verdict != Verdict::Unknown;
            out += std::to_string(rank) + "," + device + "," + csvField(labels[0]) + "," + csvField(labels[k + 1]) +
                   "," + analysis::gpuMetricName(*gpu.metric) + "," + (both ? csvNumber(c.baseline) : "") + "," +
                   (both ? csvNumber(c.candidate) : "") + "," + (both ? csvNumber(c.absolute) : "") + "," +
                   csvOptional(c.relative) + "," + csvOptional(c.pValue) + "," + csvOptional(c.effect) + "," +
                   verdictName(c.verdict) + "\n";
        }
    };
    for (const auto& d : gpu.devices)
        add(d.rank, std::to_string(d.device), d.changes);
    for (const auto& p : gpu.paths)
        add(p.rank, "", p.changes);
    return out;
}

} // namespace spanscope::model::report
