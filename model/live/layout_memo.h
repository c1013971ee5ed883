#pragma once
// What one live snapshot of an NvtxAssembler leaves for the next (NvtxAssembler::snapshot):
// its layout, the column stores it shares, its nesting lists and GPU tables
// (docs/live-updates.md).

#include "../capture.h"
#include "../gpu/gpu_lanes.h"
#include "../stats/row_durations.h"
#include "launch_table.h"
#include "nesting_list_stores.h"
#include "rewritten_column.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace spanscope::model::live {

// Where the previous snapshot of one assembler put each call, kept by whoever takes
// snapshots of it in turn (JobAssembler, for live updates; one snapshot at a time per
// memo): the next snapshot of the same assembler, or of a later copy of it, leaves every
// call that was closed then where it was and appends the others
// (nvtx_assembler_append_layout.cpp).
// A memo of another assembler, of a later state or from before the clock was
// calibrated is not used (the snapshot lays everything out); it is then replaced,
// unless it is of a later state of this one. It holds the order it describes and where
// each call is: 4 bytes per event and per call.
struct LayoutMemo
{
    // Not copied: the next snapshot appends to the memo's order and column stores in
    // place, which two memos sharing them would both do.
    LayoutMemo() = default;
    LayoutMemo(const LayoutMemo&) = delete;
    LayoutMemo& operator=(const LayoutMemo&) = delete;
    LayoutMemo(LayoutMemo&&) = default;
    LayoutMemo& operator=(LayoutMemo&&) = default;

    uint64_t lineage = 0;  // m_lineage of the assembler it describes
    uint64_t edits = 0;    // m_edits then: a state at least this far along may use it
    uint64_t rewrites = 0; // m_rewrites then: a rewrite of the call table voids it
    size_t calls = 0;      // calls laid out
    uint32_t regions = 0;  // regions then (the bucket numbering, see Layout)
    int64_t lastNs = 0;    // the shown end of the calls open then
    // Layout::order: the next layout appends to it in place where it has room (nothing
    // else holds it once the snapshot is built).
    std::shared_ptr<Column<uint32_t>> order;
    // call -> event of the memo's snapshot, for the next one to update where calls moved.
    Column<uint32_t> eventOf;
    // Layout::callsBefore, spanBegin, spans and holes.
    Column<uint64_t> callsBefore, spanBegin;
    Column<EventSpan> spans;
    uint64_t holes = 0;
    // The stores of the snapshot's start, end and thread columns, shared with it and
    // appended to by the next one (see snapshot()); `written`: the events they hold.
    // The track column's too while no call is a start/end range (whose lanes are
    // packed afresh by each snapshot); the NVTX domain and category columns' where the
    // snapshot has them.
    struct Stores
    {
        std::shared_ptr<SharedColumnStore<int64_t>> start, end, threadIds;
        std::shared_ptr<SharedColumnStore<uint32_t>> track, domains, categories;
        uint64_t written = 0;
    };
    Stores stores;
    std::vector<uint64_t> openEvents; // events (ascending) of the calls open then
    uint64_t relayouts = 0; // snapshots in a row laid out from the memo before them
    // Names the memo's layout (unique in the process; 0: none), for the next snapshot
    // to say which layout it appended to (NestingOrder::appendedTo).
    uint64_t serial = 0;
    // Where the analysis of the stream's snapshots leaves the nesting walk's carry
    // (stats/nesting_carry.h); kept from memo to memo.
    std::shared_ptr<NestingCarrySlot> carrySlot;
    // (bucket, its calls closed then, counted and their durations kept: see
    // stats/row_durations.h), by bucket (see Layout), for the buckets of at least
    // NvtxAssemblerOptions::minimumCommittedCalls calls, in a snapshot laid out from a
    // memo. A snapshot laid out from this memo counts a bucket's calls afresh where it
    // has none.
    using CommittedBucket = std::pair<uint32_t, std::shared_ptr<const CommittedCalls>>;
    std::vector<CommittedBucket> committed;
    // A snapshot's string table as it starts (the empty string, then every region's
    // name in region order) and the regions' ids in it. The next snapshot copies it and
    // interns only the regions that are new: interning a million names (a name per
    // range) afresh cost ~0.3 s per update. Region names never change, so any later
    // state of the assembler may use it; it is kept even where the layout is not.
    struct RegionNames
    {
        StringTable strings;
        std::vector<NameId> ids; // region id -> its name
    };
    RegionNames regionNames;
    // The snapshot's nesting lists, for the next one to go on from.
    NestingListStores lists;
    // Memory the next appendLayout() works in, kept rather than allocated afresh: on a
    // virtual machine a fresh page costs microseconds to fault in (~2 ms per MiB here),
    // more than the work done in it. Passed from memo to memo.
    struct AppendScratch
    {
        // A call's place in its row (start ascending, shown end descending, then
        // arrival) and its thread's lane (GPU work last).
        struct Key
        {
            int64_t start = 0, end = 0;
            uint32_t call = 0, lane = 0;
        };
        std::vector<Key> changed, merged; // the calls placed anew, by bucket
        std::vector<uint64_t> changedBefore, next; // per bucket: its first in `changed`
        std::vector<uint32_t> appended; // the calls of the events appended, in order
    };
    AppendScratch scratch;
    // The GPU tables of the memo's snapshot, taking in the first `work` of m_gpuWork:
    // the next snapshot laid out from the memo updates them with what changed
    // (nvtx_assembler_gpu.cpp).
    struct GpuTables
    {
        // Which API call launched each correlation id's work, and the last work naming it.
        LaunchTable launches;
        // Per piece of work: the one before it naming the same id (LaunchTable::kNone: none).
        Column<uint32_t> previousWork;
        uint64_t work = 0;
        GpuActivityTable activities; // shares its chunks with the snapshot's
        GpuLaneBuilder lanes;        // the GPU's derived lanes, as far as the work taken in
        FlowTable flows;
        FlowTimes flowTimes;
        // The GPU time of CPU calls (model/gpu/launch_gpu_time.h), kept so that an update
        // counts it again only for the calls it appends and those around launches whose
        // work changed (addGpuTimes).
        struct Times
        {
            struct Launch
            {
                int64_t start = 0; // of the launching call, ns
                uint32_t call = 0;
                int64_t gpuNs = 0; // its work's summed duration
                auto key() const { return std::pair(start, call); }
            };
            // Per track (a call's launches are those on its track): launches by (start,
            // call), and before[i] the GPU ns of launches [0, i) (saturating).
            struct Track
            {
                std::vector<Launch> launches;
                std::vector<int64_t> before{0};
            };
            std::vector<Track> tracks; // by TrackId
            RewrittenColumn<int64_t> column; // the snapshot's GPU column
            // Per row key (NestingOrder::rowKey): the column's values >= 0 over the row's
            // calls, counted and summed exactly (a value that changes is taken out again),
            // for Capture::rowGpuTimes.
            struct RowSum
            {
                uint64_t calls = 0;
                __int128 total = 0;
                void add(int64_t gpu)
                {
                    if (gpu >= 0)
                        ++calls, total += gpu;
                }
                void remove(int64_t gpu)
                {
                    if (gpu >= 0)
                        --calls, total -= gpu;
                }
            };
            std::vector<RowSum> rowSums;
            uint64_t countedWhole = 0; // snapshots since the tables were new that counted every event
        };
        Times times;
    };
    GpuTables gpu;
};

} // namespace spanscope::model::live
