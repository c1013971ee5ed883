#pragma once
// What a stretch of the timeline holds, by region: for a folded block's tooltip (the calls
// one block stands for) and for a Shift+drag measurement (every call in a time range, on
// every lane). Computed on demand, never per frame.

#include "../capture.h"
#include "timeline_index.h"

#include <cstdint>
#include <vector>

namespace spanscope::model {

struct RegionShare
{
    uint32_t region = 0;
    uint64_t calls = 0;
    int64_t busyNs = 0; // summed durations (clipped to the range for a measurement)
};

struct RangeContents
{
    uint64_t calls = 0;                // exact, always
    std::vector<RegionShare> regions;  // busiest first, then most calls, then region id
    bool sampled = false;              // regions were counted from an even sample of the calls
    std::vector<uint32_t> listedCalls; // the calls themselves, by start, when few (<= kListedCalls)

    static constexpr size_t kListedCalls = 12;
};

// Calls visited before the region breakdown switches to an even sample (the total stays
// exact): bounds a measurement of a whole 10 M-call run to a few tens of milliseconds.
inline constexpr size_t kRangeContentsBudget = size_t(1) << 20;

// The `count` calls of `lane`'s depth row `depth` from the one that is `firstEvent` on
// (what a folded block stands for). Durations are the calls' own.
RangeContents foldedContents(const Capture& capture, const TimelineIndex& index, uint32_t lane, uint16_t depth,
                             uint32_t firstEvent, uint64_t count, size_t budget = kRangeContentsBudget);

// Every call of every lane (hidden lanes excluded) that intersects [t0, t1); each call's
// busy time is its overlap with the range.
RangeContents rangeContents(const Capture& capture, const TimelineIndex& index, int64_t t0, int64_t t1,
                            const std::vector<bool>& hiddenLanes = {}, size_t budget = kRangeContentsBudget);

} // namespace spanscope::model
