#include "overlay_bins.h"

#include "model/stats/percentile.h"
#include "views/plots/histogram_bins.h"

#include <algorithm>

namespace spanscope::views {

std::vector<uint64_t> countInBins(std::span<const double> edges, std::span<const int64_t> durations)
{
    if (edges.size() < 2)
        return {};
    const size_t bins = edges.size() - 1;
    std::vector<uint64_t> counts(bins, 0);
    for (const int64_t value : durations) {
        // The first edge greater than the value closes its bin.
        const auto upper = std::upper_bound(edges.begin(), edges.end(), double(value));
        const size_t index = upper == edges.begin() ? 0 : size_t(upper - edges.begin()) - 1;
        ++counts[std::min(index, bins - 1)];
    }
    return counts;
}

OverlayBins overlayBins(std::vector<std::optional<std::vector<int64_t>>> durations, int binCount)
{
    OverlayBins result;
    std::vector<int64_t> all;
    size_t total = 0;
    for (const auto& run : durations)
        total += run ? run->size() : 0;
    all.reserve(total);
    for (const auto& run : durations)
        if (run)
            all.insert(all.end(), run->begin(), run->end());
    result.edges = logHistogram(all, binCount).edges;

    for (auto& run : durations) {
        OverlaySeries series;
        series.perCall = run.has_value();
        if (run) {
            series.calls = run->size();
            series.counts = countInBins(result.edges, *run);
            if (!run->empty()) {
                std::sort(run->begin(), run->end());
                series.p50 = model::percentileOfSorted(*run, 50.0);
                series.p95 = model::percentileOfSorted(*run, 95.0);
                series.p99 = model::percentileOfSorted(*run, 99.0);
            }
        }
        result.runs.push_back(std::move(series));
    }
    return result;
}

} // namespace spanscope::views
