#pragma once
// The GPU analyses of runs side by side: per device (matched by rank and device id) each
// run's utilization shares, idle time and launch latency, per rank its critical path's
// length and split; and, for a chosen GPU metric, the change of each candidate against the
// baseline (the first run) with a verdict. gpu_idle (the idle share of the span) and
// critical_path (its length) are one figure per run, so the threshold alone decides;
// launch_latency compares the runs' latencies with a Mann-Whitney U test as regions
// compare their calls. Pure computation; any thread.

#include "gpu_analysis.h"
#include "model/compare/run_comparison.h"

#include <optional>
#include <string>
#include <vector>

namespace spanscope::model::analysis {

enum class GpuMetric { Idle, LaunchLatency, CriticalPath };
// "gpu_idle", "launch_latency", "critical_path". Inline: reports format comparisons without linking them.
inline const char* gpuMetricName(GpuMetric metric)
{
    switch (metric) {
    case GpuMetric::Idle:
        return "gpu_idle";
    case GpuMetric::LaunchLatency:
        return "launch_latency";
    case GpuMetric::CriticalPath:
        return "critical_path";
    }
    return "gpu_idle";
}
std::optional<GpuMetric> parseGpuMetric(const std::string& name);

struct GpuRunFigures
{
    int64_t spanNs = 0, computeNs = 0, communicationNs = 0, memoryNs = 0, idleNs = 0;
    uint64_t launches = 0;
    int64_t latencyMedianNs = 0;
    double idleShare() const { return spanNs > 0 ? double(idleNs) / double(spanNs) : 0.0; }
};

struct GpuDeviceComparison
{
    int32_t rank = 0, device = 0; // of the first run that has it
    std::vector<std::optional<GpuRunFigures>> runs; // per run; empty where it lacks the device
    std::vector<RegionChange> changes; // per candidate, for a device metric (else empty)
};

struct GpuPathComparison
{
    int32_t rank = 0;
    std::vector<std::optional<CriticalPath>> runs; // per run (nodes left out)
    std::vector<RegionChange> changes; // per candidate, for critical_path (else empty)
};

struct GpuComparison
{
    std::optional<GpuMetric> metric;
    std::vector<GpuDeviceComparison> devices; // by (rank, device)
    std::vector<GpuPathComparison> paths;     // by rank
    bool empty() const { return devices.empty(); }
    // Some device or rank got slower (more idle, later launches, a longer path) beyond the
    // threshold (and significantly, for launch_latency).
    // Inline: reports read it without linking the analyses.
    bool anySlowdown() const
    {
        for (const auto& d : devices)
            for (const RegionChange& c : d.changes)
                if (c.verdict == Verdict::Slower)
                    return true;
        for (const auto& p : paths)
            for (const RegionChange& c : p.changes)
                if (c.verdict == Verdict::Slower)
                    return true;
        return false;
    }
};

// `runs` in the order of the comparison (the baseline first); null for a run without GPU
// work. The metric's changes use options.thresholdPercent and options.alpha; with
// options.perRank devices match by (rank, device id) and paths by rank, else in order.
GpuComparison compareGpu(const std::vector<const GpuAnalysis*>& runs, std::optional<GpuMetric> metric,
                         const CompareOptions& options);

} // namespace spanscope::model::analysis
