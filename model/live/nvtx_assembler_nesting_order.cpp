// Capture::nestingOrder of a snapshot: each listed thread's push/pop ranges, in push order,
// then its CUDA calls in nesting order. The nesting walk then reads a thread's calls as two
// runs, instead of gathering them from every row of their regions and merging those rows'
// runs (a loser tree over the rows of a track: a comparison per level per call). The
// snapshot writes each push's place as it lays the calls out (NestingLists::place), so no
// pass over the call table is added; the CUDA calls, fewer, are placed after. A snapshot
// appended to the memo's layout writes only the places of the calls it appends
// (NestingLists::placeAppended, into stores kept from one snapshot to the next:
// nesting_list_stores.h).
#include "nvtx_assembler.h"

#include <algorithm>

namespace spanscope::model::live {

NvtxAssembler::NestingLists NvtxAssembler::nestingLists(const Column<uint64_t>& callsBefore, LayoutMemo* memo,
                                                        bool appendOnly) const
{
    NestingLists lists;
    std::vector<uint64_t> count(m_threads.size(), 0);
    bool anyListed = false, anyCuda = false;
    for (size_t t = 0; t < m_threads.size(); ++t) {
        const Thread& thread = m_threads[t];
        if (thread.listed && thread.pushes + thread.cudaCalls.size() > 0) {
            count[t] = thread.pushes + thread.cudaCalls.size();
            anyListed = true;
            anyCuda |= !thread.cudaCalls.empty();
        }
    }
    if (!anyListed)
        return lists;
    // CPU rows come first, one per region with calls, in region order (Layout::callsBefore).
    const size_t regions = m_regionNames.size();
    Column<uint32_t> rowOfRegion(regions, UINT32_MAX);
    uint32_t rows = 0;
    for (size_t region = 0; region < regions; ++region)
        if (callsBefore[region + 1] != callsBefore[region])
            rowOfRegion[region] = rows++;

    NestingListStores* last = memo && appendOnly && !anyCuda && !memo->lists.empty() ? &memo->lists : nullptr;
    auto fits = [&] {
        // The rows of the regions that had calls then keep their numbers (a region getting
        // its first call is numbered after them only if it comes after them).
        if (last->rowOfRegion.size() > regions
            || !std::equal(last->rowOfRegion.begin(), last->rowOfRegion.end(), rowOfRegion.begin()))
            return false;
        for (size_t t = 0; t < count.size(); ++t) {
            const bool listedThen = t < last->base.size() && last->base[t] != NestingListStores::kNotListed;
            if (listedThen != (count[t] > 0) || (listedThen && count[t] > last->room[t]))
                return false;
        }
        return true;
    };
    if (last && fits()) {
        lists.stores = NestingListStores::following(*last);
        lists.following = true;
        // Threads seen since (none of them listed) have no places.
        lists.stores.base.resize(m_threads.size(), NestingListStores::kNotListed);
        lists.stores.room.resize(m_threads.size(), 0);
        lists.stores.rowListed.resize(rows, 1);
    } else {
        // Places for each list; with a memo, room for it to double (or grow by
        // NvtxAssemblerOptions::nestingListSlack) before the lists are laid out afresh.
        std::vector<uint64_t> base(m_threads.size(), NestingListStores::kNotListed), room(m_threads.size(), 0);
        uint64_t total = 0;
        for (size_t t = 0; t < m_threads.size(); ++t) {
            if (count[t] == 0)
                continue;
            base[t] = total;
            room[t] = memo ? count[t] + std::max(count[t], m_options.nestingListSlack) : count[t];
            total += room[t];
        }
        lists.stores = NestingListStores::afresh(std::move(base), std::move(room));
        lists.stores.rowListed.assign(rows, 1);
    }
    lists.stores.count = std::move(count);
    lists.stores.rowOfRegion = std::move(rowOfRegion);
    lists.events = lists.stores.written.events->data();
    lists.rows = lists.stores.written.rows->data();
    return lists;
}

void NvtxAssembler::placeCudaCalls(const NestingLists& lists, const Column<uint32_t>& eventOf) const
{
    if (lists.stores.empty())
        return;
    for (size_t t = 0; t < m_threads.size(); ++t) {
        if (lists.stores.base[t] == NestingLists::kNotListed)
            continue;
        const Thread& thread = m_threads[t];
        uint64_t at = lists.stores.base[t] + thread.pushes;
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
            lists.events[at] = eventOf[call];
            lists.rows[at++] = lists.stores.rowOfRegion[m_calls[call].region];
        }
    }
}

void NvtxAssembler::finishNestingOrder(Capture& c, const NestingLists& lists) const
{
    NestingOrder& nesting = c.nestingOrder;
    nesting = {};
    const NestingListStores& stores = lists.stores;
    if (stores.empty() || c.events.track.size() != c.events.size()) // no call has a track of its own
        return;
    for (size_t t = 0; t < m_threads.size(); ++t) {
        if (stores.base[t] == NestingLists::kNotListed)
            continue;
        const Thread& thread = m_threads[t];
        const TrackId track{thread.track}; // every call of its lists is on it
        uint64_t begin = stores.base[t];
        for (const uint64_t calls : {uint64_t(thread.pushes), uint64_t(thread.cudaCalls.size())}) {
            if (calls == 0)
                continue;
            nesting.tracks.push_back({track, begin, begin + calls});
            begin += calls;
        }
    }
    nesting.events = EventColumn<uint32_t>::sharing(stores.written.events, stores.size);
    nesting.rows = EventColumn<uint32_t>::sharing(stores.written.rows, stores.size);
    nesting.rowListed = stores.rowListed;
    nesting.rowListed.resize(c.rows.size(), 0); // GPU rows are never listed
    nesting.rowOfRegion = stores.rowOfRegion;
}

} // namespace spanscope::model::live
