// Capture::nestingOrder of a snapshot: each listed thread's push/pop ranges, in push order.
// The nesting walk then reads a thread's calls as one run in the order they were pushed,
// instead of gathering them from every row of their regions and merging those rows' runs
// (a loser tree over the rows of a track: a comparison per level per call). The snapshot
// writes each call's place as it lays the calls out (NestingLists::placeOf), so no pass
// over the call table is added.
#include "nvtx_assembler.h"

#include <algorithm>

namespace spanscope::model::live {

NvtxAssembler::NestingLists NvtxAssembler::nestingLists(Capture& c, const Column<uint64_t>& rowBegin) const
{
    NestingLists lists;
    lists.base.assign(m_threads.size(), NestingLists::kNotListed);
    uint64_t total = 0;
    for (size_t t = 0; t < m_threads.size(); ++t) {
        if (!m_threads[t].listed || m_threads[t].pushes == 0)
            continue;
        lists.base[t] = total;
        total += m_threads[t].pushes;
    }
    if (total == 0)
        return lists;
    // CPU rows come first, one per region with calls, in region order (Layout::rowBegin).
    // Such a row is listed when its region has no call off the lists.
    const size_t regions = m_regionNames.size();
    lists.rowOfRegion.resize(regions);
    std::fill(lists.rowOfRegion.begin(), lists.rowOfRegion.end(), UINT32_MAX);
    std::vector<bool>& rowListed = c.nestingOrder.rowListed;
    uint32_t row = 0;
    for (size_t region = 0; region < regions; ++region) {
        if (rowBegin[region + 1] == rowBegin[region])
            continue;
        lists.rowOfRegion[region] = row++;
        rowListed.push_back(region >= m_unlistedCallsOfRegion.size() || m_unlistedCallsOfRegion[region] == 0);
    }
    c.nestingOrder.events.resize(total);
    c.nestingOrder.rows.resize(total);
    return lists;
}

void NvtxAssembler::finishNestingOrder(Capture& c) const
{
    NestingOrder& nesting = c.nestingOrder;
    if (nesting.events.empty())
        return;
    if (c.events.track.size() != c.events.size()) { // no call has a track of its own
        nesting = {};
        return;
    }
    uint64_t begin = 0;
    for (const Thread& thread : m_threads) {
        if (!thread.listed || thread.pushes == 0)
            continue;
        nesting.tracks.push_back({TrackId{c.events.track[nesting.events[begin]]}, begin, begin + thread.pushes});
        begin += thread.pushes;
    }
    nesting.rowListed.resize(c.rows.size(), false); // GPU rows are never listed
}

} // namespace spanscope::model::live
