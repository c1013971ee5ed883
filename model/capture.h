#pragma once
// The in-memory profile: one run, its ranks, regions and every recorded call, stored as
// columns. Built by a reader on a worker thread, then published as
// std::shared_ptr<const Capture> and never changed again (any thread may read it).

#include "column.h"
#include "event_column.h"
#include "gpu/gpu_activity.h"
#include "metadata.h"
#include "region_kind.h"
#include "row_events.h"
#include "string_table.h"
#include "tables/allocation_table.h"
#include "tables/args_store.h"
#include "tables/counted_allocations.h"
#include "tables/counter_series.h"
#include "tables/flow_table.h"
#include "tables/flow_times.h"
#include "tables/instant_table.h"
#include "track.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace spanscope::model {

enum class StorageLayout {
    PerRankGroups, // schema 1: /rank<N>/regions/<name>/
    Columnar,      // schemas 2 and 3: shared /events columns addressed by an index
    Aggregate,     // schemas 2 and 3 written in aggregation mode: no per-call data
};

const char* storageLayoutName(StorageLayout layout);

// Statistics the writer stored for one index row (schema 2/3 `summary_statistics`).
// All ns, m2 in ns².
struct StoredSummary
{
    int64_t total = 0, minimum = 0, maximum = 0, first = 0, last = 0;
    int64_t startMinimum = 0, endMaximum = 0;
    uint64_t gpuCount = 0;
    int64_t gpuTotal = 0;
    double mean = 0.0, m2 = 0.0;
};

// Statistics of an aggregate-only row: all that is known about its calls. ns.
struct AggregateStats
{
    uint64_t count = 0;
    int64_t total = 0, minimum = 0, maximum = 0, exclusive = 0;
};

// One (region, rank) pair and the slice of the event columns holding its calls.
struct RegionRow
{
    uint32_t region = 0;  // index into Capture::regionNames
    int32_t rank = 0;     // MPI rank
    // Where the row's calls are in Capture::events: events [firstEvent, firstEvent + count)
    // when spanCount is 0, else the spans Capture::rowSpans[firstSpan, firstSpan + spanCount)
    // in order (firstEvent then starts the first). Read them through
    // Capture::rowEvents(), not through these (see row_events.h): only whoever lays rows
    // out sets them.
    uint64_t firstEvent = 0;
    uint64_t count = 0;   // number of calls (0 for aggregate rows)
    uint32_t firstSpan = 0, spanCount = 0;
    NameId sourceFile;    // empty = unknown
    NameId sourceText;    // empty = unknown
    int64_t sourceLine = -1; // -1 = unknown
    std::vector<NameId> tags;
    int64_t storedExclusive = -1; // writer-computed exclusive ns, -1 = not stored
    std::optional<StoredSummary> stored;
    std::optional<AggregateStats> aggregate;
    TrackId track; // the track of the row's calls when EventColumns::track is empty
};

// A row of the file's thread_table. Times in ns on the events' clock; -1 = unknown.
struct ThreadInfo
{
    int32_t rank = 0;
    int64_t index = 0, ident = 0, nativeId = 0;
    bool daemon = false;
    NameId name;
    int64_t startNs = -1, endNs = -1, cpuNs = -1;
};

// A row of the file's task_table (async tasks, greenlets). ns; -1 = unknown/not done.
struct TaskInfo
{
    int32_t rank = 0;
    int64_t index = 0, threadIndex = -1, createdNs = -1, doneNs = -1, steps = 0;
    int64_t runningNs = 0, suspendedNs = 0;
    NameId kind, name, coroName;
};

// Every call of the run, row after row. start/end always exist; the optional columns are
// empty when the source did not record them ("absent" is not "no value").
struct EventColumns
{
    EventColumn<int64_t> start; // ns, writer's monotonic clock
    EventColumn<int64_t> end;   // ns; end < start marks a call that never closed
    EventColumn<int64_t> gpu;   // device ns; < 0 = no value
    EventColumn<int64_t> callIds, parentIds; // unique within a rank only; -1 = none
    EventColumn<int64_t> threadIds; // row in thread_table of the same rank; -1 = unknown
    EventColumn<int64_t> taskIds;   // row in task_table of the same rank; -1 = no task
    EventColumn<int64_t> awaitNs;   // ns the call's task was suspended inside the call
    // Allocations made while the call was its thread's innermost range (exclusive): calls
    // and requested bytes; -1 = not recorded for this call.
    EventColumn<int64_t> allocCounts, allocBytes;
    // Spans of the allocation span API (<spanscope/alloc.h>): the iterations the program
    // stated; -1 for every other call.
    EventColumn<int64_t> allocIterations;
    EventColumn<uint32_t> track; // TrackId of each call; empty = each row's RegionRow::track
    Column<uint64_t> args;     // ArgsRef of each call into Capture::args; empty = none
    // Nesting depth, filled by computeNesting(); a live snapshot's walked on from the one
    // before shares that one's store (NestingCarry::depthStore).
    EventColumn<uint16_t> depth;

    size_t size() const { return start.size(); }
    bool hasGpu() const { return !gpu.empty(); }
    bool hasThreads() const { return !threadIds.empty(); }
    bool hasTasks() const { return !taskIds.empty(); }
    bool hasAwait() const { return !awaitNs.empty(); }
    bool hasAllocations() const { return !allocCounts.empty(); }

};

// The optional per-call columns a source records, listed once. Every piece of code that
// copies, checks, saves, reads or measures the event columns goes through this list.
struct OptionalEventColumn
{
    const char* name;                      // the column's name under /events in the file format
    EventColumn<int64_t> EventColumns::*member; // the column
    int64_t none;                          // the value that means "no value" for one call
};
inline constexpr OptionalEventColumn kOptionalEventColumns[] = {
    {"gpu_durations", &EventColumns::gpu, -1},     {"call_ids", &EventColumns::callIds, -1},
    {"parent_ids", &EventColumns::parentIds, -1},  {"thread_ids", &EventColumns::threadIds, -1},
    {"task_ids", &EventColumns::taskIds, -1},      {"await_ns", &EventColumns::awaitNs, 0},
    {"alloc_counts", &EventColumns::allocCounts, -1}, {"alloc_bytes", &EventColumns::allocBytes, -1},
    {"alloc_iterations", &EventColumns::allocIterations, -1},
};

// Something odd the user should know about; the capture is still usable.
struct Warning
{
    std::string message;
    std::string object; // HDF5 object or region it concerns, may be empty
};

// The exclusive time of a row on one track, filled by computeNesting() when the capture
// has more than one track.
struct LaneExclusive
{
    uint32_t row = 0;
    TrackId track;
    int64_t exclusiveNs = 0;
};

// NVTX side tables of captures recorded by spanscope's collector: filled by
// model/live/NvtxAssembler, and read back from the /spanscope/nvtx group of files spanscope
// saved; empty otherwise. Times in ns on the events' clock (CLOCK_MONOTONIC of the job).
struct NvtxDomain
{
    uint32_t id = 0; // collector domain id; 0 = NVTX's default domain
    NameId name;     // "default" for domain 0
};

struct NvtxCategory
{
    uint32_t domain = 0, category = 0; // the NVTX category number within its domain
    NameId name;
};

struct NvtxMark
{
    int64_t timeNs = 0;
    int64_t thread = -1; // thread_table index within `rank`
    uint32_t domain = 0, category = 0;
    NameId message;
    int64_t enclosingEvent = -1; // innermost open push/pop range of its thread; -1 = none
    int32_t rank = 0;            // the process (one rank per process of the job)
};

// A start/end range that ended on another thread than the one that started it (the call's
// thread_ids hold the starting thread).
struct NvtxCrossThreadEnd
{
    uint64_t event = 0;    // the range's event index
    int64_t endThread = -1; // thread_table index (same rank) of the thread that ended it
};

struct NvtxTables
{
    std::vector<NvtxDomain> domains;
    std::vector<NvtxCategory> categories;
    std::vector<NvtxMark> marks;
    // Per call (same length as the event columns), or empty where every call is in the
    // default domain (0) / has no category (0): a live snapshot leaves them out then (4
    // bytes per call each). Read them through domainOf() and categoryOf(). A live
    // snapshot's share stores with the next ones (a call's domain and category never
    // change), as its start and end columns do.
    EventColumn<uint32_t> callDomains, callCategories;
    // Calls still open when the stream ended (or at the snapshot), closed at the last
    // timestamp by the assembler; ascending event indices.
    std::vector<uint64_t> closedAtEnd;
    // Ranges that ended on another thread, ascending by event.
    std::vector<NvtxCrossThreadEnd> crossThreadEnds;

    // The thread that ended `event`, if it was not the one that started it; -1 otherwise.
    // O(log n).
    int64_t endThreadOf(uint64_t event) const;

    uint32_t domainOf(uint64_t event) const { return event < callDomains.size() ? callDomains[event] : 0; }
    uint32_t categoryOf(uint64_t event) const { return event < callCategories.size() ? callCategories[event] : 0; }
    // The capture's calls are NVTX ranges (a live capture, or a file spanscope saved).
    bool ranges() const { return !domains.empty() || !callDomains.empty(); }

    bool empty() const { return domains.empty() && marks.empty() && callDomains.empty(); }
};

struct RowDurations; // stats/row_durations.h
struct NestingCarrySlot; // stats/nesting_carry.h

// A row's closed calls that have a GPU time (EventColumns::gpu >= 0): how many, and that
// time summed (ns, saturating). See Capture::rowGpuTimes.
struct RowGpuTime
{
    uint64_t calls = 0;
    int64_t total = 0;
};

// Live captures: the calls of some tracks listed in nesting order by their source (a
// thread's push/pop ranges in the order they were pushed, which is start order, an
// enclosing range before what it encloses; its CUDA calls in a second list), so that the
// nesting walk reads each such track as a run per list instead of gathering its calls from
// every row and merging them (stats/nesting.h checks the lists against the rows and their
// order as it walks, and gathers from the rows where they disagree). Empty for every other
// source. Anything that changes rows, events or tracks must leave it empty.
struct NestingOrder
{
    struct ListedTrack // one list of a track; a track's lists come one after the other
    {
        TrackId track;
        uint64_t begin = 0, end = 0; // its calls: events[begin, end)
        // How many calls at its end later snapshots may still put calls before (a thread's
        // CUDA calls arrive up to NvtxAssembler::kMaxCudaReorder out of order); the calls
        // before them keep their places. 0: calls only ever come after the last.
        uint64_t unsettled = 0;
    };
    std::vector<ListedTrack> tracks;
    // Event indices, list after list (a list's places are [begin, end); places between
    // lists hold nothing), and the row of each of those calls.
    EventColumn<uint32_t> events;
    EventColumn<uint32_t> rows;
    // Per row: 1 when every call of it is on a listed track. Empty = none known to be.
    std::vector<uint8_t> rowListed;
    // Per row key (rowKey(): a region's CPU row, or its GPU row): that row, UINT32_MAX
    // where it has none (what the lists' rows are).
    Column<uint32_t> rowOfKey;
    static uint32_t rowKey(uint32_t region, bool gpu) { return 2 * region + (gpu ? 1 : 0); }
    // The end shown for calls still open (the snapshot's last timestamp, ns).
    int64_t openEnd = 0;

    // For carrying the nesting walk of the listed tracks from one snapshot of a stream to
    // the next (stats/nesting_carry.h): this snapshot's layout, the layout it appended its
    // calls to (every call closed there keeps its event here), 0 where none; and where the
    // stream's snapshots leave their carry.
    uint64_t layoutSerial = 0, appendedTo = 0;
    // Where calls laid out there moved to here (taken along, or open there): (event there,
    // event here), by the first. Every other call closed there keeps its event.
    std::vector<std::pair<uint32_t, uint32_t>> moved;
    std::weak_ptr<NestingCarrySlot> carrySlot;

    bool empty() const { return tracks.empty(); }
};

struct Capture
{
    std::string sourcePath;
    int schema = 0;                 // 1, 2 or 3
    StorageLayout layout = StorageLayout::Columnar;
    bool eventDataAvailable = true; // false for aggregate files

    StringTable strings;
    std::vector<NameId> regionNames; // region id -> name
    Column<RegionRow> rows;
    // The spans of rows held in more than one (RegionRow::spanCount), each non-empty.
    std::vector<EventSpan> rowSpans;
    EventColumns events;
    std::vector<int32_t> ranks;      // ranks that recorded something, ascending
    int32_t numRanks = 0;            // as the format defines it (mpi_size may exceed ranks seen)
    std::vector<ThreadInfo> threads;
    std::vector<TaskInfo> tasks;
    Metadata metadata;
    std::vector<Warning> warnings;
    NvtxTables nvtx; // NVTX captures only; saved under /spanscope/nvtx (docs/capture-format.md)

    // Every track events, instants, counters and allocations belong to (TrackId indexes
    // it). Filled by the source, or by assignTracks() from the thread and task columns.
    std::vector<Track> tracks;
    std::vector<RegionKind> regionKinds;     // region id -> kind; empty = every region Cpu
    std::vector<NameId> regionCategories;    // region id -> the source's category; empty = none
    std::vector<DeviceInfo> devices;         // GPUs the source describes, by device id
    GpuActivityTable gpuActivities;          // kernels, copies, memsets: attributes by event
    FlowTable flows;                         // launch -> GPU work, fwd -> bwd, user flows
    // The stream a synchronization record waited for where the source names it (Kineto's
    // `wait_on_stream` of its "Stream Wait Event" and "Event Sync" records): (the record's
    // event, stream id), ascending by event. Read by the critical path
    // (analysis/sync_calls.h); empty for other sources.
    std::vector<std::pair<uint32_t, int64_t>> syncWaitStreams;
    // The flows by the start of each end where the source keeps them (a live stream's
    // snapshots): used while it holds as many flows as `flows`; else the timeline index
    // makes them.
    FlowTimes flowTimes;
    InstantTable instants;
    std::vector<CounterSeries> counters;     // one per Counter track
    AllocationTable allocations;
    // Live captures recorded with --alloc: one row per (thread, innermost range) that
    // allocated. Allocations of at least the collector's threshold are also in
    // `allocations`, one by one.
    std::vector<CountedAllocations> countedAllocations;
    ArgsStore args;                          // args text of events (events.args) and instants

    // Filled by computeNesting(): exclusive ns per row (-1 until computed).
    std::vector<int64_t> rowExclusive;
    std::vector<LaneExclusive> laneExclusive;
    bool nestingComputed = false;

    // Live snapshots: each row's durations as the snapshot keeps them from one update to the
    // next (stats/row_durations.h), which the statistics read instead of every call; index =
    // row. Empty where the source has none for some row. Any change to rows or their calls
    // must leave it empty.
    std::vector<std::shared_ptr<const RowDurations>> rowDurations;
    // Live snapshots with GPU times: each row's, kept from one update to the next (a call's
    // GPU time can still change after it closed: its kernels finish later), so the
    // statistics need not read every call's; index = row. Empty where the source keeps
    // none. Any change to rows, their calls or the GPU column must leave it empty.
    std::vector<RowGpuTime> rowGpuTimes;
    NestingOrder nestingOrder; // see NestingOrder

    const std::string& regionName(uint32_t region) const
    {
        return strings.text(regionNames[region]);
    }
    RegionKind regionKind(uint32_t region) const
    {
        return region < regionKinds.size() ? regionKinds[region] : RegionKind::Cpu;
    }
    // The calls of a row, in order (by start). See row_events.h.
    RowEvents rowEvents(const RegionRow& row) const
    {
        if (row.spanCount == 0)
            return RowEvents(row.firstEvent, row.count);
        return RowEvents(std::span<const EventSpan>(rowSpans).subspan(row.firstSpan, row.spanCount), row.count);
    }
    RowEvents rowEvents(uint32_t row) const { return rowEvents(rows[row]); }
    // The track of event `e` of row `row`.
    TrackId trackOfEvent(uint32_t row, uint64_t e) const
    {
        return events.track.empty() ? rows[row].track : TrackId{events.track[e]};
    }
    const Track& track(TrackId id) const { return tracks[id.value]; }
    // The thread a call ran on (its thread id, or its Thread track's), -1 if unknown.
    int64_t threadOfEvent(uint32_t row, uint64_t e) const;
    // The thread_table row for (rank, index), or nullptr.
    const ThreadInfo* thread(int32_t rank, int64_t index) const;
    const TaskInfo* task(int32_t rank, int64_t index) const;

    // The calls the rows hold: the event columns may hold events no row does (row_events.h).
    // O(rows).
    uint64_t callCount() const;

    // Bytes held by the event columns and tables (for memory figures).
    size_t residentBytes() const;
};

} // namespace spanscope::model
