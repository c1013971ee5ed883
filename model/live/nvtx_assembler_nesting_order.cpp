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
                                                        bool appended) const
{
    NestingLists lists;
    // Per list: a listed thread's pushes, then its CUDA calls.
    const size_t listCount = 2 * m_threads.size();
    std::vector<uint64_t> count(listCount, 0);
    std::vector<bool> listed(m_threads.size(), false);
    bool anyListed = false;
    for (uint32_t t = 0; t < m_threads.size(); ++t) {
        const Thread& thread = m_threads[t];
        if (thread.listed && thread.pushes + thread.cudaCalls.size() > 0) {
            count[NestingListStores::pushes(t)] = thread.pushes;
            count[NestingListStores::cudaCalls(t)] = thread.cudaCalls.size();
            listed[t] = anyListed = true;
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

    NestingListStores* last = memo && appended && !memo->lists.empty() ? &memo->lists : nullptr;
    auto fits = [&] {
        // The rows of the regions that had calls then keep their numbers (a region getting
        // its first call is numbered after them only if it comes after them).
        if (last->rowOfRegion.size() > regions
            || !std::equal(last->rowOfRegion.begin(), last->rowOfRegion.end(), rowOfRegion.begin()))
            return false;
        for (size_t l = 0; l < count.size(); ++l) {
            const bool listedThen = l < last->base.size() && last->base[l] != NestingListStores::kNotListed;
            if (listedThen != listed[l / 2] || (listedThen && count[l] > last->room[l]))
                return false;
        }
        return true;
    };
    if (last && fits()) {
        lists.stores = NestingListStores::following(*last);
        lists.following = true;
        // Threads seen since (none of them listed) have no places.
        lists.stores.base.resize(listCount, NestingListStores::kNotListed);
        lists.stores.room.resize(listCount, 0);
        lists.stores.rowListed.resize(rows, 1);
    } else {
        // Places for each list of a listed thread; with a memo, room for it to double (or
        // grow by NvtxAssemblerOptions::nestingListSlack) before the lists are laid out
        // afresh.
        std::vector<uint64_t> base(listCount, NestingListStores::kNotListed), room(listCount, 0);
        uint64_t total = 0;
        for (size_t l = 0; l < listCount; ++l) {
            if (!listed[l / 2])
                continue;
            base[l] = total;
            room[l] = memo ? count[l] + std::max(count[l], m_options.nestingListSlack) : count[l];
            total += room[l];
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

void NvtxAssembler::placeCudaCalls(NestingLists& lists, const Column<uint32_t>& eventOf, const Column<uint32_t>& order,
                                   const std::vector<uint64_t>* countBefore,
                                   const std::vector<std::pair<uint32_t, uint32_t>>& moved) const
{
    NestingListStores& stores = lists.stores;
    if (stores.empty())
        return;
    auto put = [&](uint64_t at, uint32_t call, uint32_t event) {
        const uint32_t row = stores.rowOfRegion[m_calls[call].region];
        if (lists.following) {
            stores.write({at, event, row}); // kept for the next snapshot's lists
        } else {
            lists.events[at] = event;
            lists.rows[at] = row;
        }
    };
    // From where each thread's list can have changed: a CUDA call is put in place at most
    // kMaxCudaReorder places back from the end.
    std::vector<uint64_t> from(m_threads.size(), 0);
    for (uint32_t t = 0; t < m_threads.size(); ++t) {
        const size_t list = NestingListStores::cudaCalls(t);
        if (stores.base[list] == NestingLists::kNotListed)
            continue;
        const uint64_t before = lists.following && countBefore && list < countBefore->size() ? (*countBefore)[list] : 0;
        from[t] = before - std::min<uint64_t>(before, kMaxCudaReorder);
        const Thread& thread = m_threads[t];
        const uint64_t base = stores.base[list];
        // The thread's calls are a few of every call (other threads' and the GPU's come in
        // between): each one's entries are fetched some calls ahead, else each read of
        // them is a miss to memory.
        constexpr size_t kAhead = 16;
        const size_t count = thread.cudaCalls.size();
        for (size_t i = from[t]; i < count; ++i) {
            if (i + kAhead < count) {
                const uint32_t ahead = thread.cudaCalls[i + kAhead];
                __builtin_prefetch(&m_calls[ahead]);
                __builtin_prefetch(&eventOf[ahead]);
            }
            const uint32_t call = thread.cudaCalls[i];
            put(base + i, call, eventOf[call]);
        }
    }
    if (!lists.following)
        return;
    // The calls the layout took along to new events, further back than that: each found in
    // its thread's list, which is in (start ascending, end descending) order.
    for (const auto& [before, now] : moved) {
        const uint32_t call = order[now];
        const Call& c = m_calls[call];
        if (c.gpu == kNotCuda || c.thread == kNoThread || c.async)
            continue;
        const size_t list = NestingListStores::cudaCalls(c.thread);
        if (stores.base[list] == NestingLists::kNotListed)
            continue;
        const SharedChunks<uint32_t>& calls = m_threads[c.thread].cudaCalls;
        size_t low = 0, high = std::min<size_t>(calls.size(), from[c.thread]);
        while (low < high) {
            const size_t mid = low + (high - low) / 2;
            const Call& x = m_calls[calls[mid]];
            if (x.start < c.start || (x.start == c.start && x.end > c.end))
                low = mid + 1;
            else
                high = mid;
        }
        for (size_t i = low; i < from[c.thread] && i < calls.size(); ++i) {
            const Call& x = m_calls[calls[i]];
            if (x.start != c.start || x.end != c.end)
                break;
            if (calls[i] == call) {
                put(stores.base[list] + i, call, now);
                break;
            }
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
    for (uint32_t t = 0; t < m_threads.size(); ++t) {
        if (stores.base[NestingListStores::pushes(t)] == NestingLists::kNotListed)
            continue;
        const TrackId track{m_threads[t].track}; // every call of its lists is on it
        for (const size_t list : {NestingListStores::pushes(t), NestingListStores::cudaCalls(t)})
            if (const uint64_t calls = stores.count[list]; calls > 0)
                nesting.tracks.push_back({track, stores.base[list], stores.base[list] + calls,
                                          list == NestingListStores::cudaCalls(t) ? std::min<uint64_t>(calls, kMaxCudaReorder) : 0});
    }
    nesting.events = EventColumn<uint32_t>::sharing(stores.written.events, stores.size);
    nesting.rows = EventColumn<uint32_t>::sharing(stores.written.rows, stores.size);
    nesting.rowListed = stores.rowListed;
    nesting.rowListed.resize(c.rows.size(), 0); // GPU rows are never listed
    nesting.rowOfRegion = stores.rowOfRegion;
}

} // namespace spanscope::model::live
