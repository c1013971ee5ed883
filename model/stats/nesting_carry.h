#pragma once
// What the nesting walk and the timeline index of one live snapshot leave for the next
// snapshot of the same stream, so that the next walks only the calls of a listed track
// (Capture::nestingOrder) that arrived since (docs/live-updates.md, steps 3 and 5).
//
// Why that is exact: a snapshot laid out by appending keeps every call closed in the one
// before at its event or says where it moved it (NestingOrder::moved: calls taken along),
// and a listed track's lists (a thread's pushes, and its CUDA calls) grow at their ends,
// but for a list's last few calls, which may still get calls put before them (CUDA calls
// arrive somewhat out of order: NestingOrder::ListedTrack::unsettled). So the carry is
// taken at a checkpoint, where the walk had visited every call starting before `cut`, the
// start of the first unsettled call (the walk's end where no list has one); the next walk
// visits the calls after it again. The walk up to the checkpoint is then the same in the
// next snapshot, as long as no call starting before `cut` came since, except for the calls
// still open then (shown ending at the snapshot's end, and laid out anew since): those are
// the walk's stack there, outermost first, each enclosing every call after it. The next
// walk starts from that stack, visits the calls open then again with their new ends, and
// goes on with the calls after the checkpoint. It gives what the whole walk gives when each call open then now
// ends after every call walked inside it started (a call starting at its end would have
// closed it) and no earlier than any closed call ended (else the whole walk would find a
// partial overlap); NestingCarry::resumable() checks that, and a track that fails it is
// walked whole; so is one whose call starting at the same instant as the call enclosing
// it now ends after it (the whole walk orders calls starting together by end, longer
// first, and would swap them). Against the other calls open then below it, the visit
// itself decides as the whole walk does: one of them ending before it is a partial
// overlap, and the walk is done again without the lists.

#include "../capture.h"
#include "../event_column.h"
#include "../timeline/timeline_lod.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace spanscope::model {

class TimelineIndex;

// Where a depth row of a carried track's timeline lane stood after its closed calls: the
// next snapshot copies those calls' entries, shares their sums (PrefixSums) and goes on
// from here (TimelineIndexBuilder).
struct DepthCarry
{
    // The row's calls before the one still open at its end, if any; UINT64_MAX: not kept
    // (the row cannot go on from here).
    uint64_t closed = UINT64_MAX;
    bool endsOrdered = true;
    int64_t lastEnd = 0; // end of call closed - 1 (INT64_MIN when none)
    RowLodBuilder lod;   // the level-of-detail summaries after call closed - 1
    // Where the row's calls are kept (DepthRow::events shares it), if in a store: the next
    // snapshot's row is this one's first `closed` calls, some rewritten, and more. Two
    // stores take turns: `spare` holds the row of the snapshot before this one, which lacks
    // `rewrites` (place, event) and the calls from `spareFrom` on; the next snapshot's row
    // is written there where nothing else holds it any more, else into a fresh store.
    std::shared_ptr<SharedColumnStore<uint32_t>> store{}, spare{};
    uint64_t spareFrom = 0;
    std::vector<std::pair<uint64_t, uint32_t>> rewrites{};
};

// One listed track's walk in a snapshot, at its checkpoint: where the calls starting
// before `cut` had been walked (the whole walk, where `cut` is INT64_MAX).
struct TrackCarry
{
    // The track: a live stream's listed tracks keep their ids from one snapshot to the
    // next (NvtxAssembler numbers them as they come); its fields then, to check that.
    TrackId track;
    Track fields;
    // Every call starting before it was walked, and no other (NestingOrder::ListedTrack::
    // unsettled: calls that may still get calls put before them start at or after it).
    int64_t cut = INT64_MAX;
    struct List // per list of the track, in NestingOrder's order
    {
        uint64_t walked = 0;    // its calls walked: [0, walked)
        uint32_t lastEvent = 0; // the last of them, in the snapshot it was made from
    };
    std::vector<List> lists;
    struct Entry
    {
        uint32_t list = 0;     // of TrackCarry::lists
        uint64_t position = 0; // in that list
        uint32_t event = 0;    // in the snapshot it was made from
        int64_t start = 0, end = 0;
        bool open = false; // shown ending at the snapshot's end: visited again
    };
    std::vector<Entry> stack; // the walk's calls still open at the end, outermost first
    int64_t lastStart = INT64_MIN, lastStop = INT64_MAX; // the last call walked
    uint32_t lastEvent = 0;
    // The latest end of a closed call walked (INT64_MIN: none).
    int64_t maxClosedEnd = INT64_MIN;
    // Exclusive ns per row, by its key (NestingOrder::rowKey: rows move between snapshots,
    // their keys do not), in the order the walk first met them, without the own time of
    // the calls still open.
    std::vector<std::pair<uint32_t, int64_t>> exclusive;
    std::vector<DepthCarry> depths; // per depth of the track's timeline lane
};

struct NestingCarry
{
    uint64_t layoutSerial = 0; // NestingOrder::layoutSerial of the snapshot it was made from
    std::shared_ptr<const Capture> capture;     // that snapshot (its depth column is kept)
    // The store of its depth column, if it has one: the next snapshot, when it walks only
    // calls that are new, writes their depths past the carried snapshot's and shares it.
    std::shared_ptr<SharedColumnStore<uint16_t>> depthStore;
    std::shared_ptr<const TimelineIndex> index; // and its timeline index
    std::vector<TrackCarry> tracks;
    uint64_t resumedTracks = 0; // of those, walked on from the carry before (not whole)

    // The carry of track `id`, if it had the same fields then.
    const TrackCarry* find(TrackId id, const Track& now) const;
    // Where a call at `event` in the carry's snapshot is in the one laid out from it
    // (NestingOrder::moved).
    static uint32_t movedTo(const NestingOrder& listing, uint32_t event);
    // Whether `carry`'s walk can go on over `capture`'s lists of its track (`lists`: each
    // one's [begin, end) in NestingOrder::events; see the top of this file); fills `ends`
    // with the new end of every entry of its stack.
    bool resumable(const Capture& capture, const TrackCarry& carry,
                   const std::vector<std::pair<uint64_t, uint64_t>>& lists, std::vector<int64_t>& ends) const;
};

// Shared by a live stream's snapshots (NestingOrder::carrySlot): the analysis of one
// leaves its carry here for the next.
struct NestingCarrySlot
{
    std::mutex mutex;
    std::shared_ptr<const NestingCarry> carry;
};

} // namespace spanscope::model
