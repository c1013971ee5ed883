#pragma once
// The storage behind a live stream's nesting lists (Capture::nestingOrder: each listed
// thread's push/pop ranges in push order, as the event and the row of each), kept by the
// stream's layout memo so that an update writes only the places that changed: its new
// calls, and the calls the appending layout moved (open then, or taken along), instead of
// every listed call of the job.
//
// Lists are by track (ids are stable: NvtxAssembler::m_trackOwners): a listed thread's
// track k has two, its pushes and its CUDA calls (lists 2k and 2k + 1), a listed GPU
// track one, its work (list 2k); each list has places of its own (`base`, with `room` to
// grow), so a list growing moves no other. A snapshot's lists are stores it shares (EventColumn), which
// must never change under it; so two pairs of stores take turns: the next snapshot
// writes into the pair before the last one (brought up to date with the last snapshot's
// writes, then its own) when nothing but the memo holds that pair any more (the snapshot
// that wrote it is gone), and into a fresh pair copied from the last one otherwise.
#include "../event_column.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace spanscope::model::live {

struct NestingListStores
{
    static constexpr uint64_t kNotListed = UINT64_MAX;
    using Store = SharedColumnStore<uint32_t>;
    struct Pair
    {
        std::shared_ptr<Store> events, rows;
        explicit operator bool() const { return events != nullptr; }
        // Nothing but its holder (the memo) reads it.
        bool unique() const { return events.use_count() == 1 && rows.use_count() == 1; }
    };
    // One place written: the call listed there now lies at `event`, in `row`.
    struct Write
    {
        uint64_t place;
        uint32_t event, row;
    };

    // Per list (2k: track k's own calls, a thread's pushes or a GPU track's work; 2k + 1:
    // a thread's CUDA calls): where it starts (kNotListed: not listed), how many places it
    // has, how many it uses.
    std::vector<uint64_t> base, room, count;
    static size_t calls(uint32_t track) { return 2 * size_t(track); }
    static size_t cudaCalls(uint32_t track) { return 2 * size_t(track) + 1; }
    uint64_t size = 0;         // the end of the last list's room
    Pair written;              // the pair holding the lists (the snapshot's)
    Pair spare;                // the pair before it, lacking `writes`; or none
    std::vector<Write> writes; // what `written` got that `spare` lacks
    // The rows then: per row key (NestingOrder::rowKey), its row (UINT32_MAX: none), and
    // per row whether every call of it is on a listed track.
    Column<uint32_t> rowOfKey; // a Column: see NvtxAssembler::NestingLists
    std::vector<uint8_t> rowListed;

    bool empty() const { return !written; }

    // A fresh pair for lists at `base`, `room` (written whole by the caller).
    static NestingListStores afresh(std::vector<uint64_t> base, std::vector<uint64_t> room)
    {
        NestingListStores lists;
        lists.count.assign(base.size(), 0);
        for (size_t t = 0; t < base.size(); ++t)
            if (base[t] != kNotListed)
                lists.size = std::max(lists.size, base[t] + room[t]);
        lists.base = std::move(base);
        lists.room = std::move(room);
        lists.written = makePair(lists.size);
        return lists;
    }

    // The lists of the snapshot after `last`'s, at the same places, to write that
    // snapshot's changes into (write()): `last`'s spare pair, brought up to date, where
    // nothing else holds it; else a fresh one with `last`'s lists copied. `last` (the
    // caller's memo, replaced afterwards) keeps its pairs, and gives up its writes' memory
    // to the new lists' writes (fresh memory costs more to fault in than to fill).
    static NestingListStores following(NestingListStores& last)
    {
        NestingListStores next;
        next.base = last.base;
        next.room = last.room;
        next.count = last.count;
        next.size = last.size;
        next.rowOfKey = last.rowOfKey;
        next.rowListed = last.rowListed;
        next.spare = last.written;
        if (last.spare && last.spare.unique()) {
            next.written = last.spare;
            for (const Write& w : last.writes)
                put(next.written, w);
        } else {
            next.written = makePair(last.size);
            for (size_t t = 0; t < last.base.size(); ++t) {
                if (last.base[t] == kNotListed || last.count[t] == 0)
                    continue;
                const size_t bytes = last.count[t] * sizeof(uint32_t);
                std::memcpy(next.written.events->data() + last.base[t],
                            last.written.events->data() + last.base[t], bytes);
                std::memcpy(next.written.rows->data() + last.base[t],
                            last.written.rows->data() + last.base[t], bytes);
            }
        }
        next.writes.swap(last.writes);
        next.writes.clear();
        return next;
    }

    // Writes one place (of a list made by following()) and keeps it for the next.
    void write(const Write& w)
    {
        put(written, w);
        writes.push_back(w);
    }

    // After an update: the places the next ones write (each list's next places, in both
    // pairs, which take turns) faulted in ahead (prefault_ahead.h). `countBefore`: each
    // list's count before the update, where it went on from the memo's lists (else a few
    // places are).
    void prefaultNext(const std::vector<uint64_t>* countBefore) const
    {
        for (size_t t = 0; t < base.size(); ++t) {
            if (base[t] == kNotListed || count[t] >= room[t])
                continue;
            const uint64_t before = countBefore && t < countBefore->size() ? std::min((*countBefore)[t], count[t]) : count[t];
            const uint64_t at = base[t] + count[t];
            for (const Pair* pair : {&written, &spare}) {
                if (!*pair)
                    continue;
                model::prefaultNext(pair->events, pair->events->data() + at, room[t] - count[t], count[t] - before);
                model::prefaultNext(pair->rows, pair->rows->data() + at, room[t] - count[t], count[t] - before);
            }
        }
    }

private:
    static Pair makePair(uint64_t size)
    {
        const size_t capacity = std::max<size_t>(size, 1);
        return {std::make_shared<Store>(capacity), std::make_shared<Store>(capacity)};
    }
    static void put(const Pair& pair, const Write& w)
    {
        pair.events->data()[w.place] = w.event;
        pair.rows->data()[w.place] = w.row;
    }
};

} // namespace spanscope::model::live
