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
    // Per list (by track: NestingListStores::calls, cudaCalls): a listed thread's pushes,
    // then its CUDA calls; a listed GPU track's work.
    const size_t listCount = 2 * m_trackOwners.size();
    std::vector<uint64_t> count(listCount, 0);
    std::vector<bool> listed(m_trackOwners.size(), false); // by track
    bool anyListed = false;
    lists.pushesOf.assign(m_threads.size(), NestingLists::kNotListed);
    for (uint32_t t = 0; t < m_threads.size(); ++t) {
        const Thread& thread = m_threads[t];
        if (thread.listed && thread.track != kUntracked && thread.pushes + thread.cudaCalls.size() > 0) {
            count[NestingListStores::calls(thread.track)] = thread.pushes;
            count[NestingListStores::cudaCalls(thread.track)] = thread.cudaCalls.size();
            listed[thread.track] = anyListed = true;
            lists.pushesOf[t] = NestingListStores::calls(thread.track);
        }
    }
    for (uint32_t track = 0; track < m_workLists.size() && track < m_trackOwners.size(); ++track)
        if (m_trackOwners[track].gpu() && m_workLists[track].listed && !m_workLists[track].calls.empty()) {
            count[NestingListStores::calls(track)] = m_workLists[track].calls.size();
            listed[track] = anyListed = true;
        }
    if (!anyListed)
        return lists;
    lists.trackListed.assign(listed.begin(), listed.end());
    lists.gpuWork = &m_gpuWork;
    // CPU rows come first, one per region with calls, in region order, then the GPU rows
    // (Layout::callsBefore: a bucket per region and kind).
    const size_t regions = m_regionNames.size();
    Column<uint32_t> rowOfKey(2 * regions, UINT32_MAX);
    uint32_t rows = 0;
    for (const bool gpu : {false, true})
        for (size_t region = 0; region < regions; ++region)
            if (const size_t bucket = (gpu ? regions : 0) + region; callsBefore[bucket + 1] != callsBefore[bucket])
                rowOfKey[NestingOrder::rowKey(uint32_t(region), gpu)] = rows++;

    NestingListStores* last = memo && appended && !memo->lists.empty() ? &memo->lists : nullptr;
    auto fits = [&] {
        // The rows that had calls then keep their numbers (a row getting its first call is
        // numbered after them only if it comes after them).
        for (size_t key = 0; key < last->rowOfKey.size(); ++key)
            if (last->rowOfKey[key] != UINT32_MAX && (key >= rowOfKey.size() || rowOfKey[key] != last->rowOfKey[key]))
                return false;
        for (size_t key = 0; key < rowOfKey.size(); ++key)
            if (rowOfKey[key] != UINT32_MAX && rowOfKey[key] < last->rowListed.size()
                && (key >= last->rowOfKey.size() || last->rowOfKey[key] != rowOfKey[key]))
                return false; // a new row numbered among the old ones
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
        // Tracks seen since (none of them listed) have no places.
        lists.stores.base.resize(listCount, NestingListStores::kNotListed);
        lists.stores.room.resize(listCount, 0);
        lists.stores.rowListed.resize(rows, 1);
    } else {
        // Places for each list of a listed track; with a memo, room for it to double (or
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
    lists.stores.rowOfKey = std::move(rowOfKey);
    lists.events = lists.stores.written.events->data();
    lists.rows = lists.stores.written.rows->data();
    return lists;
}

void NvtxAssembler::placeSorted(NestingLists& lists, const Column<uint32_t>& eventOf, const Column<uint32_t>& order,
                                const std::vector<uint64_t>* countBefore,
                                const std::vector<std::pair<uint32_t, uint32_t>>& moved) const
{
    NestingListStores& stores = lists.stores;
    if (stores.empty())
        return;
    auto put = [&](uint64_t at, uint32_t call, uint32_t event) {
        const Call& c = m_calls[call];
        const uint32_t row = stores.rowOfKey[NestingOrder::rowKey(c.region, c.thread == kNoThread)];
        if (lists.following) {
            stores.write({at, event, row}); // kept for the next snapshot's lists
        } else {
            lists.events[at] = event;
            lists.rows[at] = row;
        }
    };
    // The lists kept in order: per list index, its calls.
    std::vector<const SharedChunks<uint32_t>*> sorted(stores.base.size(), nullptr);
    for (const Thread& thread : m_threads)
        if (thread.track != kUntracked && NestingListStores::cudaCalls(thread.track) < sorted.size())
            sorted[NestingListStores::cudaCalls(thread.track)] = &thread.cudaCalls;
    for (uint32_t track = 0; track < m_workLists.size() && NestingListStores::calls(track) < sorted.size(); ++track)
        if (m_trackOwners[track].gpu())
            sorted[NestingListStores::calls(track)] = &m_workLists[track].calls;
    // From where each list can have changed: a call is put in place at most
    // kMaxCudaReorder places back from the end.
    std::vector<uint64_t> from(sorted.size(), 0);
    for (size_t list = 0; list < sorted.size(); ++list) {
        if (!sorted[list] || stores.base[list] == NestingLists::kNotListed)
            continue;
        const uint64_t before = lists.following && countBefore && list < countBefore->size() ? (*countBefore)[list] : 0;
        from[list] = before - std::min<uint64_t>(before, kMaxCudaReorder);
        const SharedChunks<uint32_t>& calls = *sorted[list];
        const uint64_t base = stores.base[list];
        // The list's calls are a few of every call (other tracks' come in between): each
        // one's entries are fetched some calls ahead, else each read of them is a miss to
        // memory.
        constexpr size_t kAhead = 16;
        const size_t count = std::min<size_t>(calls.size(), stores.count[list]);
        for (size_t i = from[list]; i < count; ++i) {
            if (i + kAhead < count) {
                const uint32_t ahead = calls[i + kAhead];
                __builtin_prefetch(&m_calls[ahead]);
                __builtin_prefetch(&eventOf[ahead]);
            }
            const uint32_t call = calls[i];
            put(base + i, call, eventOf[call]);
        }
    }
    if (!lists.following)
        return;
    // The calls the layout took along to new events, further back than that: each found in
    // its list, which is in (start ascending, end descending) order.
    for (const auto& [before, now] : moved) {
        const uint32_t call = order[now];
        const Call& c = m_calls[call];
        if (c.gpu == kNotCuda || c.async)
            continue;
        const size_t list = c.thread == kNoThread ? NestingListStores::calls(m_gpuWork[c.gpu].track)
                                                  : NestingListStores::cudaCalls(m_threads[c.thread].track);
        if (list >= sorted.size() || !sorted[list] || stores.base[list] == NestingLists::kNotListed)
            continue;
        const SharedChunks<uint32_t>& calls = *sorted[list];
        size_t low = 0, high = std::min<size_t>(calls.size(), from[list]);
        while (low < high) {
            const size_t mid = low + (high - low) / 2;
            const Call& x = m_calls[calls[mid]];
            if (x.start < c.start || (x.start == c.start && x.end > c.end))
                low = mid + 1;
            else
                high = mid;
        }
        for (size_t i = low; i < from[list] && i < calls.size(); ++i) {
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
    for (uint32_t track = 0; track < m_trackOwners.size(); ++track) {
        if (stores.base[NestingListStores::calls(track)] == NestingLists::kNotListed)
            continue;
        // Every call of its lists is on it. The lists kept in order as calls arrive (a
        // thread's CUDA calls, a GPU track's work) may still get calls put before their
        // last kMaxCudaReorder.
        const bool gpu = m_trackOwners[track].gpu();
        for (const size_t list : {NestingListStores::calls(track), NestingListStores::cudaCalls(track)})
            if (const uint64_t calls = stores.count[list]; calls > 0) {
                const bool sorted = gpu || list == NestingListStores::cudaCalls(track);
                nesting.tracks.push_back({TrackId{track}, stores.base[list], stores.base[list] + calls,
                                          sorted ? std::min<uint64_t>(calls, kMaxCudaReorder) : 0});
            }
    }
    nesting.events = EventColumn<uint32_t>::sharing(stores.written.events, stores.size);
    nesting.rows = EventColumn<uint32_t>::sharing(stores.written.rows, stores.size);
    nesting.rowListed = stores.rowListed;
    nesting.rowListed.resize(c.rows.size(), 0);
    nesting.rowOfKey = stores.rowOfKey;
}

} // namespace spanscope::model::live
