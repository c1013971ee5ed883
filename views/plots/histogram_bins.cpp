#include "histogram_bins.h"

#include "model/stats/percentile.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace spanscope::views {

namespace {

// Half-width (as a factor) of the one bin drawn when every duration is the same: wide
// enough to read on a log axis, narrow enough not to suggest a spread.
constexpr double kSingleValueSpread = 1.25;
// Bins for n calls: kBinsPerCubeRoot * n^(1/3) (twice the Rice rule: durations are often
// multi-modal and a log axis spreads them), never fewer than kMinBins.
constexpr double kBinsPerCubeRoot = 4.0;
constexpr int kMinBins = 5;

} // namespace

HistogramBins logHistogram(std::span<const int64_t> durations, int binCount)
{
    HistogramBins bins;
    if (durations.empty() || binCount < 1)
        return bins;

    int64_t lowestPositive = std::numeric_limits<int64_t>::max();
    int64_t highest = 0;
    for (const int64_t value : durations) {
        if (value > 0)
            lowestPositive = std::min(lowestPositive, value);
        highest = std::max(highest, value);
    }

    double lowest = 0.0, top = 0.0;
    const int forCalls = int(std::ceil(kBinsPerCubeRoot * std::cbrt(double(durations.size()))));
    int count = std::min(binCount, std::max(kMinBins, forCalls));
    if (highest <= 0 || lowestPositive == highest) {
        // One value (zeros alone are shown as 1 ns): a single bin around it.
        const double value = highest <= 0 ? 1.0 : double(highest);
        lowest = value / kSingleValueSpread;
        top = value * kSingleValueSpread;
        count = 1;
    } else {
        lowest = double(lowestPositive);
        top = double(highest);
    }

    bins.edges.resize(size_t(count) + 1);
    const double ratio = top / lowest;
    for (int i = 0; i <= count; ++i) {
        double edge = lowest * std::pow(ratio, double(i) / double(count));
        // Durations are whole ns: an edge a rounding error off a whole ns (10^k over whole
        // decades) is made whole, so a call of exactly that length opens the bin.
        if (std::abs(edge - std::round(edge)) < 1e-9 * edge)
            edge = std::round(edge);
        bins.edges[size_t(i)] = edge;
    }
    // Exact ends, so the smallest and largest calls fall inside despite rounding.
    bins.edges.front() = lowest;
    bins.edges.back() = top;
    bins.counts.assign(size_t(count), 0);

    const double logLowest = std::log(lowest);
    const double binsPerLog = double(count) / std::log(ratio);
    for (const int64_t value : durations) {
        const double v = double(value);
        if (v < lowest) {
            ++bins.belowLowest;
            ++bins.counts.front();
            continue;
        }
        int bin = std::clamp(int((std::log(v) - logLowest) * binsPerLog), 0, count - 1);
        // The logarithm can land one bin off at an edge; the edges decide.
        while (bin > 0 && v < bins.edges[size_t(bin)])
            --bin;
        while (bin + 1 < count && v >= bins.edges[size_t(bin) + 1])
            ++bin;
        ++bins.counts[size_t(bin)];
    }
    bins.total = durations.size();
    return bins;
}

std::vector<CdfPoint> cumulativeDistribution(std::span<const int64_t> sorted, size_t maxPoints)
{
    std::vector<CdfPoint> points;
    const size_t n = sorted.size();
    if (n == 0)
        return points;
    const size_t steps = std::clamp<size_t>(maxPoints, 1, n);
    points.reserve(steps + 1);
    auto addPointAt = [&](size_t index) {
        const int64_t value = sorted[index];
        if (!points.empty() && points.back().ns == double(value))
            return;
        // Every call of this value counts: the fraction is taken after the last of them.
        const size_t through =
            size_t(std::upper_bound(sorted.begin() + ptrdiff_t(index), sorted.end(), value) -
                   sorted.begin());
        points.push_back({double(value), double(through) / double(n)});
    };
    addPointAt(0);
    // The j-th of `steps` evenly spaced ranks; j == steps is the largest call.
    for (size_t j = 1; j <= steps; ++j)
        addPointAt((j * n + steps - 1) / steps - 1);
    return points;
}

DurationDistribution describeDurations(std::vector<int64_t> durations, int binCount,
                                       size_t cdfPoints)
{
    DurationDistribution result;
    if (durations.empty())
        return result;
    std::sort(durations.begin(), durations.end());
    result.calls = durations.size();
    result.minimum = durations.front();
    result.maximum = durations.back();
    long double sum = 0;
    for (const int64_t value : durations)
        sum += value;
    result.mean = double(sum / (long double)durations.size());
    result.p50 = model::percentileOfSorted(durations, 50.0);
    result.p95 = model::percentileOfSorted(durations, 95.0);
    result.p99 = model::percentileOfSorted(durations, 99.0);
    result.bins = logHistogram(durations, binCount);
    result.cdf = cumulativeDistribution(durations, cdfPoints);
    return result;
}

} // namespace spanscope::views
