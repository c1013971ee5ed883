#pragma once
// A capture's flows ordered by when each end starts, for finding the flows with an end in a
// time window (TimelineIndex::flowsIn) without reading the flow table whole. Made by
// sorting every flow (make()), or, for a live stream's snapshots, kept from one to the next
// and updated with the flows that changed, as the flow table is (a CUDA job's live update
// sorted millions of launch flows twice per update). Kept in chunks that copies share.
// Immutable once made; any thread may read.

#include "../chunked_array.h"
#include "flow_table.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace spanscope::model {

class FlowTimes
{
public:
    // A flow by the start of one of its ends (ns).
    struct Entry
    {
        int64_t start = 0;
        uint32_t from = 0, to = 0;
        friend bool operator==(const Entry&, const Entry&) = default;
    };
    using Entries = ChunkedArray<Entry, 16384>;

    // Every flow of `flows`; `startOf`: the start of an event.
    static FlowTimes make(const FlowTable& flows, const std::function<int64_t(uint32_t)>& startOf);
    // The flows `removed` left out (one entry each: pass what FlowTable::update() left out)
    // and `added` put in; `startOf` as it was for each end of `removed`, and is now.
    void update(const std::vector<FlowTable::Flow>& removed, const std::vector<FlowTable::Flow>& added,
                const std::function<int64_t(uint32_t)>& startOf);

    size_t size() const { return m_byFrom.size(); }
    // Ordered by (start of the end, from, to).
    const Entries& byFrom() const { return m_byFrom; }
    const Entries& byTo() const { return m_byTo; }
    // The first position whose start is not before `t`.
    static size_t lowerBound(const Entries& entries, int64_t t);

    size_t residentBytes() const { return m_byFrom.residentBytes() + m_byTo.residentBytes(); }

private:
    Entries m_byFrom, m_byTo;
};

} // namespace spanscope::model
