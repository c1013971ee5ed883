#include "gpu_comparison.h"

#include "model/compare/distribution_tests.h"

#include <cmath>
#include <map>

namespace spanscope::model::analysis {

std::optional<GpuMetric> parseGpuMetric(const std::string& name)
{
    for (GpuMetric metric : {GpuMetric::Idle, GpuMetric::LaunchLatency, GpuMetric::CriticalPath})
        if (name == gpuMetricName(metric))
            return metric;
    return std::nullopt;
}

namespace {

// The change of one figure: its verdict by the threshold, and by the test where there is one.
RegionChange changeOf(double baseline, double candidate, const CompareOptions& options,
                      std::optional<DistributionTest> test)
{
    RegionChange c;
    c.baseline = baseline;
    c.candidate = candidate;
    c.absolute = candidate - baseline;
    if (baseline != 0)
        c.relative = c.absolute / std::abs(baseline);
    if (candidate != 0)
        c.speedup = baseline / candidate;
    const double threshold = options.thresholdPercent / 100.0;
    const bool beyond = c.relative ? std::abs(*c.relative) >= threshold : c.absolute != 0;
    if (test) {
        c.pValue = test->pValue;
        c.effect = test->effect;
        if (smallestAttainablePValue(test->baselineN, test->candidateN) >= options.alpha) {
            c.verdict = Verdict::Insufficient;
            return c;
        }
    }
    const bool significant = !test || test->pValue < options.alpha;
    c.verdict = beyond && significant ? (c.absolute > 0 ? Verdict::Slower : Verdict::Faster) : Verdict::Noise;
    return c;
}

GpuRunFigures figuresOf(const DeviceFigures& d)
{
    const Utilization& u = d.utilization;
    return {u.spanNs, u.computeNs, u.communicationNs, u.memoryNs, u.idleNs, d.launchLatency.count,
            d.launchLatency.medianNs};
}

} // namespace

GpuComparison compareGpu(const std::vector<const GpuAnalysis*>& runs, std::optional<GpuMetric> metric,
                         const CompareOptions& options)
{
    GpuComparison out;
    out.metric = metric;
    // Per rank: devices by (rank, device id), paths by rank. Pooled: the runs' devices and
    // paths in order (an A/B pair of one-GPU jobs that ran on other ranks or GPUs still
    // compares), named after the first run that has them.
    std::map<std::pair<int32_t, int32_t>, std::vector<const DeviceFigures*>> devices;
    std::map<int32_t, std::vector<const CriticalPath*>> paths;
    for (size_t r = 0; r < runs.size(); ++r) {
        if (!runs[r])
            continue;
        for (size_t i = 0; i < runs[r]->devices.size(); ++i) {
            const DeviceFigures& d = runs[r]->devices[i];
            auto& slot = devices[options.perRank ? std::pair{d.rank, d.device} : std::pair{int32_t(i), 0}];
            slot.resize(runs.size(), nullptr);
            slot[r] = &d;
        }
        for (size_t i = 0; i < runs[r]->criticalPaths.size(); ++i) {
            const CriticalPath& p = runs[r]->criticalPaths[i];
            auto& slot = paths[options.perRank ? p.rank : int32_t(i)];
            slot.resize(runs.size(), nullptr);
            slot[r] = &p;
        }
    }
    for (const auto& [key, perRun] : devices) {
        GpuDeviceComparison d;
        for (const DeviceFigures* f : perRun)
            if (f) {
                d.rank = f->rank;
                d.device = f->device;
                break;
            }
        for (const DeviceFigures* f : perRun)
            d.runs.push_back(f ? std::optional<GpuRunFigures>(figuresOf(*f)) : std::nullopt);
        if (metric == GpuMetric::Idle || metric == GpuMetric::LaunchLatency)
            for (size_t k = 1; k < perRun.size(); ++k) {
                const DeviceFigures* base = perRun[0];
                const DeviceFigures* cand = perRun[k];
                RegionChange c;
                if (!base || !cand)
                    c.verdict = base ? Verdict::Removed : cand ? Verdict::Added : Verdict::Unknown;
                else if (metric == GpuMetric::Idle)
                    c = changeOf(figuresOf(*base).idleShare(), figuresOf(*cand).idleShare(), options, std::nullopt);
                else if (base->launchLatency.count == 0 || cand->launchLatency.count == 0)
                    c.verdict = Verdict::Unknown;
                else
                    c = changeOf(double(base->launchLatency.medianNs), double(cand->launchLatency.medianNs), options,
                                 mannWhitney(base->launchLatency.values, cand->launchLatency.values));
                d.changes.push_back(c);
            }
        out.devices.push_back(std::move(d));
    }
    for (const auto& [key, perRun] : paths) {
        GpuPathComparison p;
        for (const CriticalPath* path : perRun)
            if (path) {
                p.rank = path->rank;
                break;
            }
        for (const CriticalPath* path : perRun) {
            if (!path) {
                p.runs.push_back(std::nullopt);
                continue;
            }
            CriticalPath figures;
            figures.rank = path->rank;
            figures.lengthNs = path->lengthNs;
            std::copy(std::begin(path->boundBy), std::end(path->boundBy), std::begin(figures.boundBy));
            p.runs.push_back(std::move(figures));
        }
        if (metric == GpuMetric::CriticalPath)
            for (size_t k = 1; k < perRun.size(); ++k) {
                RegionChange c;
                if (!perRun[0] || !perRun[k])
                    c.verdict = perRun[0] ? Verdict::Removed : perRun[k] ? Verdict::Added : Verdict::Unknown;
                else
                    c = changeOf(double(perRun[0]->lengthNs), double(perRun[k]->lengthNs), options, std::nullopt);
                p.changes.push_back(c);
            }
        out.paths.push_back(std::move(p));
    }
    return out;
}

} // namespace spanscope::model::analysis
