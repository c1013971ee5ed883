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
    const size_t regions = m_regionNames.size();
    lists.rowOfRegion.resize(regions);
    std::fill(lists.rowOfRegion.begin(), lists.rowOfRegion.end(), UINT32_MAX);
    uint32_t rows = 0;
    for (size_t region = 0; region < regions; ++region)
        if (rowBegin[region + 1] != rowBegin[region])
            lists.rowOfRegion[region] = rows++;
    c.nestingOrder.rowListed.assign(rows, 1);
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
    nesting.rowListed.resize(c.rows.size(), 0); // GPU rows are never listed
}

} // namespace spanscope::model::live
