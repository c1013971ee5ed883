#pragma once
// Percentiles with linear interpolation between order statistics (numpy's default):
// position p/100 * (n-1).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace spanscope::model {

// p in [0, 100]; `sorted` ascending. 0 for an empty input (the format's convention).
inline double percentileOfSorted(const std::vector<int64_t>& sorted, double p)
{
    if (sorted.empty())
        return 0.0;
    const double position = std::clamp(p, 0.0, 100.0) / 100.0 * double(sorted.size() - 1);
    const size_t below = size_t(std::floor(position));
    const size_t above = std::min(below + 1, sorted.size() - 1);
    const double fraction = position - double(below);
    return double(sorted[below]) + (double(sorted[above]) - double(sorted[below])) * fraction;
}

// Several percentiles of unsorted values in O(n) expected time; reorders `values`.
// `ps` must be ascending. Results in the same order.
std::vector<double> percentilesOfUnsorted(std::vector<int64_t>& values, const std::vector<double>& ps);

} // namespace spanscope::model
