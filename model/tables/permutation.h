#pragma once
// Reordering the parallel columns of a side table: the order that sorts it, then each
// column put in that order. Tables are built in whatever order a source delivers and
// finished sorted (by event, time or track), so that lookups are binary searches.

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace spanscope::model {

// Row numbers 0..n-1 sorted stably by `less(a, b)` on row numbers.
template <typename Less> std::vector<uint32_t> sortedOrder(size_t n, Less less)
{
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), less);
    return order;
}

// column[i] = old column[order[i]]. O(n), one copy of the column.
template <typename Column> void permute(Column& column, const std::vector<uint32_t>& order)
{
    const Column copy = column;
    for (size_t i = 0; i < order.size(); ++i)
        column[i] = copy[order[i]];
}

} // namespace spanscope::model
