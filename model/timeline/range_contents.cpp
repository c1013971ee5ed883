#include "range_contents.h"

#include "../stats/saturating.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace spanscope::model {

namespace {

// A slice [first, last) of one depth row.
struct RowSlice
{
    const DepthRow* row = nullptr;
    size_t first = 0, last = 0;
};

RangeContents collect(const Capture& capture, const TimelineIndex& index, const std::vector<RowSlice>& slices,
                      int64_t t0, int64_t t1, size_t budget)
{
    const auto& events = capture.events;
    RangeContents contents;
    for (const auto& slice : slices)
        contents.calls += slice.last - slice.first;
    // Past the budget every stride-th call is counted, weighted by the stride, so the
    // breakdown keeps its proportions at a bounded cost.
    const uint64_t stride = std::max<uint64_t>(1, (contents.calls + budget - 1) / std::max<size_t>(budget, 1));
    contents.sampled = stride > 1;
    std::unordered_map<uint32_t, RegionShare> byRegion;
    for (const auto& slice : slices) {
        for (size_t i = slice.first; i < slice.last; i += stride) {
            const uint32_t e = slice.row->events[i];
            const uint32_t region = capture.rows[index.rowOf(e)].region;
            RegionShare& share = byRegion[region];
            share.region = region;
            share.calls += stride;
            const int64_t busy =
                subtractSaturating(std::min(events.end[e], t1), std::max(events.start[e], t0));
            int64_t scaled;
            if (__builtin_mul_overflow(std::max<int64_t>(0, busy), int64_t(stride), &scaled))
                scaled = std::numeric_limits<int64_t>::max();
            share.busyNs = addSaturating(share.busyNs, scaled);
        }
    }
    for (auto& [region, share] : byRegion)
        contents.regions.push_back(share);
    std::sort(contents.regions.begin(), contents.regions.end(), [](const RegionShare& a, const RegionShare& b) {
        if (a.busyNs != b.busyNs)
            return a.busyNs > b.busyNs;
        return a.calls != b.calls ? a.calls > b.calls : a.region < b.region;
    });
    if (contents.calls <= RangeContents::kListedCalls) {
        for (const auto& slice : slices)
            for (size_t i = slice.first; i < slice.last; ++i)
                contents.listedCalls.push_back(slice.row->events[i]);
        std::sort(contents.listedCalls.begin(), contents.listedCalls.end(), [&](uint32_t a, uint32_t b) {
            return events.start[a] != events.start[b] ? events.start[a] < events.start[b] : a < b;
        });
    }
    return contents;
}

} // namespace

RangeContents foldedContents(const Capture& capture, const TimelineIndex& index, uint32_t lane, uint16_t depth,
                             uint32_t firstEvent, uint64_t count, size_t budget)
{
    if (lane >= index.lanes().size() || depth >= index.lanes()[lane].depths.size())
        return {};
    const DepthRow& row = index.lanes()[lane].depths[depth];
    // The block's first call: the first at its start, then along equal starts to it.
    size_t first = TimelineIndex::firstStartingAtOrAfter(capture, row, 0, capture.events.start[firstEvent]);
    while (first < row.size() && row.events[first] != firstEvent)
        ++first;
    if (first == row.size())
        return {};
    const size_t last = std::min<size_t>(row.size(), first + count);
    return collect(capture, index, {RowSlice{&row, first, last}}, INT64_MIN, INT64_MAX, budget);
}

RangeContents rangeContents(const Capture& capture, const TimelineIndex& index, int64_t t0, int64_t t1,
                            const std::vector<bool>& hiddenLanes, size_t budget)
{
    std::vector<RowSlice> slices;
    const auto& lanes = index.lanes();
    for (size_t l = 0; l < lanes.size(); ++l) {
        if (l < hiddenLanes.size() && hiddenLanes[l])
            continue;
        for (const DepthRow& row : lanes[l].depths) {
            const auto [first, last] = index.visibleRange(capture, row, t0, t1);
            if (first < last)
                slices.push_back({&row, first, last});
        }
    }
    return collect(capture, index, slices, t0, t1, budget);
}

} // namespace spanscope::model
