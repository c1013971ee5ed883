#pragma once
// Sorting what is nearly sorted. The calls of one row (or bucket) of a live capture are
// one run per thread in start order (a thread pushes its ranges in start order, recursion
// aside), the threads' runs interleaved as they were drained. Split by thread and merged
// pairwise, they are put in order in log2(threads) linear passes, where a sort takes
// log2(calls) passes of comparisons.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace spanscope::model::live {

// mergeLanes() takes at most this many lanes; beyond, sort.
inline constexpr size_t kMaxMergedLanes = 64;

// Puts items[0, count) in `less` order (a strict total order). laneOf(item) < lanes <=
// kMaxMergedLanes numbers each item's run; a lane's items are expected in order already
// (one that is not is sorted). `scratch` holds `count` items; what it holds afterwards is
// unspecified.
template <typename T, typename LaneOf, typename Less>
void mergeLanes(T* items, T* scratch, uint64_t count, size_t lanes, LaneOf&& laneOf, Less&& less)
{
    std::array<uint64_t, kMaxMergedLanes + 1> laneBegin{};
    for (uint64_t k = 0; k < count; ++k)
        ++laneBegin[laneOf(items[k]) + 1];
    std::partial_sum(laneBegin.begin(), laneBegin.end(), laneBegin.begin());
    std::array<uint64_t, kMaxMergedLanes> next;
    std::copy(laneBegin.begin(), laneBegin.end() - 1, next.begin());
    for (uint64_t k = 0; k < count; ++k)
        scratch[next[laneOf(items[k])]++] = items[k];
    std::vector<std::pair<uint64_t, uint64_t>> runs; // [first, last) in the items, adjacent
    for (size_t l = 0; l < lanes; ++l) {
        if (laneBegin[l + 1] == laneBegin[l])
            continue;
        runs.emplace_back(laneBegin[l], laneBegin[l + 1]);
        if (!std::is_sorted(scratch + laneBegin[l], scratch + laneBegin[l + 1], less))
            std::sort(scratch + laneBegin[l], scratch + laneBegin[l + 1], less);
    }
    T *from = scratch, *to = items;
    while (runs.size() > 1) {
        std::vector<std::pair<uint64_t, uint64_t>> merged;
        for (size_t r = 0; r < runs.size(); r += 2) {
            const auto [x0, x1] = runs[r];
            if (r + 1 == runs.size()) {
                std::copy(from + x0, from + x1, to + x0);
                merged.emplace_back(x0, x1);
                continue;
            }
            const uint64_t y1 = runs[r + 1].second;
            std::merge(from + x0, from + x1, from + x1, from + y1, to + x0, less);
            merged.emplace_back(x0, y1);
        }
        runs = std::move(merged);
        std::swap(from, to);
    }
    if (from != items)
        std::copy(from, from + count, items);
}

} // namespace spanscope::model::live
