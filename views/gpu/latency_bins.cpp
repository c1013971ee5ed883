#include "latency_bins.h"

#include "views/plots/histogram_bins.h"

#include <algorithm>
#include <cstdlib>

namespace spanscope::views {

LatencyBins binLatencies(std::span<const int64_t> latencies, int binCount)
{
    LatencyBins bins;
    if (latencies.empty())
        return bins;
    std::vector<int64_t> magnitudes;
    magnitudes.reserve(latencies.size());
    for (const int64_t v : latencies)
        magnitudes.push_back(v == INT64_MIN ? INT64_MAX : std::llabs(v));
    bins.edges = logHistogram(magnitudes, binCount).edges;
    bins.positive.assign(bins.edges.size() - 1, 0);
    bins.negative.assign(bins.edges.size() - 1, 0);
    for (size_t i = 0; i < latencies.size(); ++i) {
        const double m = double(std::max<int64_t>(1, magnitudes[i]));
        size_t bin = size_t(std::upper_bound(bins.edges.begin(), bins.edges.end(), m) - bins.edges.begin());
        bin = std::clamp<size_t>(bin, 1, bins.positive.size()) - 1;
        (latencies[i] < 0 ? bins.negative : bins.positive)[bin] += 1;
    }
    return bins;
}

} // namespace spanscope::views
