#pragma once
// Searching sorted launches from where the last search left off: calls read in start order
// find their first launch at or after their start a little further on each time, so
// galloping from there costs O(log gap) and touches memory near what was just read, where a
// binary search over a million launches costs about twenty cache misses per call.

#include <algorithm>
#include <cstddef>
#include <iterator>

namespace spanscope::model {

// The first index at or after `from` where `before` is false, for a `before` true on a
// prefix of `items`: galloping from `from`, O(log(answer - from)).
template <typename Items, typename Before>
std::size_t gallopPartition(const Items& items, std::size_t from, Before before)
{
    std::size_t low = from, step = 1; // items[from, low) are all before
    while (low + step <= items.size() && before(items[low + step - 1])) {
        low += step;
        step *= 2;
    }
    const auto high = items.begin() + std::ptrdiff_t(std::min(items.size(), low + step));
    return std::size_t(std::partition_point(items.begin() + std::ptrdiff_t(low), high, before) - items.begin());
}

} // namespace spanscope::model
