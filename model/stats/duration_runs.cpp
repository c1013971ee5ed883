#include "duration_runs.h"

#include "percentile.h"

#include <algorithm>

namespace spanscope::model {

DurationRuns DurationRuns::with(std::vector<int64_t> added) const
{
    DurationRuns next = *this;
    if (added.empty())
        return next;
    next.m_size += added.size();
    std::sort(added.begin(), added.end());
    auto run = std::make_shared<Column<int64_t>>(added.begin(), added.end());
    // A merged run is new storage: the runs it came from stay as they were for the sets
    // that hold them.
    while (!next.m_runs.empty() && next.m_runs.back()->size() <= 2 * run->size()) {
        const Column<int64_t>& before = *next.m_runs.back();
        auto merged = std::make_shared<Column<int64_t>>(before.size() + run->size());
        std::merge(before.begin(), before.end(), run->begin(), run->end(), merged->begin());
        run = std::move(merged);
        next.m_runs.pop_back();
    }
    next.m_runs.push_back(std::move(run));
    return next;
}

void DurationRuns::viewsInto(std::vector<std::span<const int64_t>>& out) const
{
    for (const Run& run : m_runs)
        out.emplace_back(*run);
}

int64_t orderStatistic(std::span<const std::span<const int64_t>> runs, uint64_t k)
{
    // The smallest value v with more than k values <= v is the k-th: bisect on values.
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const auto& run : runs)
        if (!run.empty()) {
            lo = std::min(lo, run.front());
            hi = std::max(hi, run.back());
        }
    while (lo < hi) {
        // Halfway without overflow, whatever the signs.
        const auto mid = int64_t(uint64_t(lo) + (uint64_t(hi) - uint64_t(lo)) / 2);
        uint64_t atMost = 0;
        for (const auto& run : runs)
            atMost += uint64_t(std::upper_bound(run.begin(), run.end(), mid) - run.begin());
        if (atMost > k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

double percentileOfRuns(std::span<const std::span<const int64_t>> runs, double p)
{
    uint64_t n = 0;
    for (const auto& run : runs)
        n += run.size();
    if (n == 0)
        return 0.0;
    const PercentilePlace place = percentilePlace(p, n); // as percentileOfSorted, to the bit
    const int64_t low = orderStatistic(runs, place.below);
    return place.between(low, place.above == place.below ? low : orderStatistic(runs, place.above));
}

} // namespace spanscope::model
