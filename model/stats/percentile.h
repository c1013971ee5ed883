#pragma once
// Percentiles with linear interpolation between order statistics (numpy's default):
// position p/100 * (n-1).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace spanscope::model {

// Where percentile p (clamped to [0, 100]) falls among n > 0 sorted values: `fraction` of
// the way from order statistic `below` to `above` (below + 1, or below at the top).
struct PercentilePlace
{
    uint64_t below, above;
    double fraction;

    double between(int64_t low, int64_t high) const
    {
        return double(low) + (double(high) - double(low)) * fraction;
    }
};
inline PercentilePlace percentilePlace(double p, uint64_t n)
{
    const double position = std::clamp(p, 0.0, 100.0) / 100.0 * double(n - 1);
    const auto below = uint64_t(std::floor(position));
    return {below, std::min(below + 1, n - 1), position - double(below)};
}

// p in [0, 100]; `sorted` ascending. 0 for an empty input (the format's convention).
inline double percentileOfSorted(const std::vector<int64_t>& sorted, double p)
{
    if (sorted.empty())
        return 0.0;
    const PercentilePlace place = percentilePlace(p, sorted.size());
    return place.between(sorted[place.below], sorted[place.above]);
}

// Several percentiles of unsorted values in O(n) expected time; reorders `values`.
// `ps` must be ascending. Results in the same order.
std::vector<double> percentilesOfUnsorted(std::vector<int64_t>& values, const std::vector<double>& ps);

} // namespace spanscope::model
