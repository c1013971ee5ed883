#pragma once
// Finding calls by region: the next or previous call (by start time) of any region in a
// set, for the timeline's find bar. Immutable after construction; any thread.

#include "../capture.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace spanscope::model {

class CallSearch
{
public:
    explicit CallSearch(const Capture& capture);

    // The call of a region with regions[region] == true whose start is the smallest one
    // after `time` (forward) or the largest one before it (backward); ties broken by event
    // index past `current`. O(rows x log n) for rows recorded in start order.
    std::optional<uint32_t> step(const std::vector<bool>& regions, int64_t time, uint32_t current,
                                 bool forward) const;
    // Number of calls in the matching regions.
    uint64_t count(const std::vector<bool>& regions) const;

private:
    const Capture& m_capture;
    std::vector<bool> m_rowSorted; // row's calls are in start order
};

} // namespace spanscope::model
