// Capture::nestingOrder of a snapshot: each listed thread's push/pop ranges, in push order,
// then its CUDA calls in nesting order. The nesting walk then reads a thread's calls as two
// runs, instead of gathering them from every row of their regions and merging those rows'
// runs (a loser tree over the rows of a track: a comparison per level per call). The
// snapshot writes each push's place as it lays the calls out (NestingLists::place), so no
// pass over the call table is added; the CUDA calls, fewer, are placed after.
#include "nvtx_assembler.h"

#include <algorithm>

namespace spanscope::model::live {

NvtxAssembler::NestingLists NvtxAssembler::nestingLists(Capture& c, const Column<uint64_t>& callsBefore) const
{
    NestingLists lists;
    lists.base.assign(m_threads.size(), NestingLists::kNotListed);
    uint64_t total = 0;
    for (size_t t = 0; t < m_threads.size(); ++t) {
        const Thread& thread = m_threads[t];
        if (!thread.listed || thread.pushes + thread.cudaCalls.size() == 0)
            continue;
        lists.base[t] = total;
        total += thread.pushes + thread.cudaCalls.size();
    }
    if (total == 0)
        return lists;
    // CPU rows come first, one per region with calls, in region order (Layout::callsBefore).
    const size_t regions = m_regionNames.size();
    lists.rowOfRegion.resize(regions);
    std::fill(lists.rowOfRegion.begin(), lists.rowOfRegion.end(), UINT32_MAX);
    uint32_t rows = 0;
    for (size_t region = 0; region < regions; ++region)
        if (callsBefore[region + 1] != callsBefore[region])
            lists.rowOfRegion[region] = rows++;
    c.nestingOrder.rowListed.assign(rows, 1);
    c.nestingOrder.rowOfRegion = lists.rowOfRegion;
    c.nestingOrder.events.resize(total);
    c.nestingOrder.rows.resize(total);
    return lists;
}

void NvtxAssembler::placeCudaCalls(Capture& c, const NestingLists& lists, const Column<uint32_t>& eventOf) const
{
    NestingOrder& nesting = c.nestingOrder;
    if (nesting.events.empty())
        return;
    for (size_t t = 0; t < m_threads.size(); ++t) {
        if (lists.base[t] == NestingLists::kNotListed)
            continue;
        const Thread& thread = m_threads[t];
        uint64_t at = lists.base[t] + thread.pushes;
        // The thread's calls are a few of every call (other threads' and the GPU's come in
        // between): each one's entries are fetched some calls ahead, else each read of
        // them is a miss to memory.
        constexpr size_t kAhead = 16;
        const size_t count = thread.cudaCalls.size();
        for (size_t i = 0; i < count; ++i) {
            if (i + kAhead < count) {
                const uint32_t ahead = thread.cudaCalls[i + kAhead];
                __builtin_prefetch(&m_calls[ahead]);
                __builtin_prefetch(&eventOf[ahead]);
            }
            const uint32_t call = thread.cudaCalls[i];
            nesting.events[at] = eventOf[call];
            nesting.rows[at++] = lists.rowOfRegion[m_calls[call].region];
        }
    }
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
        if (!thread.listed)
            continue;
        for (const uint64_t calls : {uint64_t(thread.pushes), uint64_t(thread.cudaCalls.size())}) {
            if (calls == 0)
                continue;
            nesting.tracks.push_back({TrackId{c.events.track[nesting.events[begin]]}, begin, begin + calls});
            begin += calls;
        }
    }
    nesting.rowListed.resize(c.rows.size(), 0); // GPU rows are never listed
}

} // namespace spanscope::model::live
