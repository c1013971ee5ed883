#pragma once
// What the timeline needs to draw any time range in time bounded by pixels, not calls:
// the calls grouped into lanes (one per track, in tracksInDisplayOrder), and per lane and
// nesting depth
// the calls sorted by start with prefix sums of their durations. A time range maps to an
// index range with two binary searches, and any run of calls folded into one pixel
// reports its count and busy time in O(1).
//
// Built once per capture on a worker thread; immutable afterwards (any thread may read).
// Memory: 4 (index) + 8 (prefix) + 1/8 (sampled starts) + about 1/2 (LOD) bytes per call on top of the
// capture's columns.

#include "../capture.h"
#include "../column.h"
#include "../stats/nesting.h"
#include "../stats/nesting_carry.h"
#include "../chunked_array.h"
#include "prefix_sums.h"
#include "timeline_lod.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace spanscope::model {

// The calls of one lane at one nesting depth, ordered by start. Within a depth calls do
// not overlap except for partial-overlap anomalies, so ends are ordered too; where they
// are not, `maxEnd` holds the running maximum of ends that binary searches then use.
struct DepthRow
{
    // Event indices into Capture::events; a live snapshot's row that went on from the
    // snapshot before shares a store with the next one's (DepthCarry::store).
    EventColumn<uint32_t> events;
    PrefixSums busyPrefix;   // busyPrefix[i] = sum of durations of events[0, i); size n+1
    Column<int64_t> maxEnd;  // empty when ends are already ordered
    // start of every kSampleStride-th call: searches run over this small, cache-friendly
    // array first and touch the scattered event columns only for the last few steps (0.125
    // bytes per call). In chunks the next live snapshot's row shares (ChunkedArray).
    ChunkedArray<int64_t, 2048> sampledStart; // chunks of 16 KiB
    static constexpr size_t kSampleStride = 64;
    RowLod lod; // for folding zoomed-out frames without reading the calls

    size_t size() const { return events.size(); }
    int64_t busy(size_t begin, size_t end) const { return busyPrefix[end] - busyPrefix[begin]; }
};

struct TimelineLane
{
    TrackId track;
    std::string title;      // trackTitle(): "rank 0", "rank 0 · thread 3 worker", ...
    int32_t counter = -1;   // index into Capture::counters for a counter lane (no calls)
    bool instants = false;  // the track has instants (drawn on the lane's first row)
    // NVTX marks of the track: TimelineIndex::marks()[marksBegin, marksEnd), by time (drawn
    // on the lane's first row, like instants).
    uint32_t marksBegin = 0, marksEnd = 0;
    bool endsRanges = false; // a thread that ended start/end ranges another thread began
    // The lane has a first row even without calls (for instants, marks, or range ends).
    bool hasPointRow() const { return instants || marksEnd > marksBegin || endsRanges; }
    uint64_t calls = 0;     // closed calls drawn in the lane
    std::vector<DepthRow> depths;
    std::vector<uint32_t> unclosed; // calls that never closed, drawn to the end of the run
};

class TimelineIndexBuilder;

class TimelineIndex
{
public:
    // O(N log N) worst case, O(N) when rows are recorded in order. `capture` must have
    // nesting computed (depth column filled).
    static std::shared_ptr<const TimelineIndex> build(const Capture& capture);

    const std::vector<TimelineLane>& lanes() const { return m_lanes; }
    int64_t begin() const { return m_begin; } // earliest start, ns
    int64_t end() const { return m_end; }     // latest end, ns

    // Index range [first, last) of the calls in `row` that intersect [t0, t1): end > t0 and
    // start < t1. O(log n).
    std::pair<size_t, size_t> visibleRange(const Capture& capture, const DepthRow& row, int64_t t0,
                                           int64_t t1) const;
    // First index >= from whose start is >= t. O(log n).
    static size_t firstStartingAtOrAfter(const Capture& capture, const DepthRow& row, size_t from,
                                         int64_t t);

    // Row (index into Capture::rows) holding event e. O(log rows).
    uint32_t rowOf(uint32_t e) const;
    // The lane showing a track, or -1 when it has none. O(1).
    int32_t laneOf(TrackId track) const
    {
        return track.value < m_laneOfTrack.size() ? m_laneOfTrack[track.value] : -1;
    }
    // The calls enclosing `event` on its track, outermost first (the call's stack at its
    // start), `event` itself last. O(depth log n).
    std::vector<uint32_t> stackOf(const Capture& capture, uint32_t event) const;
    // The calls open on `track` at time `t` (start <= t < end), outermost first: the range
    // stack at that moment. O(depth log n).
    std::vector<uint32_t> callsAt(const Capture& capture, TrackId track, int64_t t) const;
    // Flow rows with an end starting in [t0, t1), at most `limit`, each once; sets
    // `truncated` when there were more. O(log F + k).
    std::vector<uint32_t> flowsIn(const Capture& capture, int64_t t0, int64_t t1, size_t limit, bool& truncated) const;
    // NVTX marks (indices into Capture::nvtx.marks) ordered by lane, then time.
    const std::vector<uint32_t>& marks() const { return m_marks; }
    // Positions [first, last) in marks() of `lane`'s marks with time in [t0, t1). O(log n).
    std::pair<size_t, size_t> marksIn(const Capture& capture, uint32_t lane, int64_t t0, int64_t t1) const;
    // The lane of a thread's own track (rank, thread_table index), or -1. O(log T).
    int32_t laneOfThread(int32_t rank, int64_t thread) const;
    // The lane of track `track`'s calls, or -1. O(lanes).
    int32_t laneOfTrack(TrackId track) const;

    size_t residentBytes() const;

private:
    friend class TimelineIndexBuilder;
    // Orders the marks by lane and time and gives each lane its range; widens begin/end.
    void indexMarks(const Capture& capture, const std::vector<uint32_t>& trackOfMark);

    std::vector<TimelineLane> m_lanes;
    std::vector<int32_t> m_laneOfTrack;
    std::vector<std::pair<uint64_t, uint32_t>> m_rowStarts; // (offset, row), by offset
    FlowTimes m_flowTimes;                                   // the flows by start of each end
    std::vector<uint32_t> m_marks;                           // see marks()
    std::map<std::pair<int32_t, int64_t>, int32_t> m_threadLanes; // (rank, thread) -> lane
    int64_t m_begin = 0, m_end = 0;
};

// Builds the index from a nesting walk: pass it to computeNesting() to get both in one
// pass over the calls (the walk visits each lane's calls in start order, so every depth
// row comes out sorted without a sort), then call finish().
class TimelineIndexBuilder : public NestingVisitor
{
public:
    // The lanes of tracks whose walk goes on from `carry` (NestingOptions::resumeFrom) take
    // what the walk saw of them before from its index: each depth row's calls closed then,
    // their busy-time sums, sampled starts and summaries (nesting_carry.h).
    // `capture`: the snapshot walked now (where the calls that moved since went).
    void resumeFrom(const NestingCarry* carry, const Capture& capture);
    bool canResume(const TrackCarry& carry) const override;
    void resumeTrack(TrackId track, const TrackCarry& carry) override;
    void track(TrackId track) override;
    void checkpoint() override;
    void call(uint32_t event, uint16_t depth, int64_t start, int64_t end) override;
    void unclosed(uint32_t event, TrackId track) override;
    void restart() override;
    std::unique_ptr<NestingVisitor> piece() override;
    void join(NestingVisitor& piece) override;

    // Sorts nothing (the walk's order is kept); the rows' sums and summaries are made on
    // both cores. `carry`: the walk's NestingOptions::carryOut, whose tracks get where
    // their lanes' depth rows stood (TrackCarry::depths), or null.
    std::shared_ptr<const TimelineIndex> finish(const Capture& capture, NestingCarry* carry = nullptr);

private:
    // Below this many calls the rows are finished on the calling thread alone (a helper
    // thread costs ~50 µs).
    static constexpr uint64_t kParallelRowCalls = uint64_t(1) << 16;
    void finishRows(const Capture& capture, NestingCarry* carry);

    std::map<uint32_t, TimelineLane> m_lanes; // by TrackId
    TimelineLane* m_current = nullptr;
    uint32_t m_currentTrack = 0;
    // Per track whose walk had a checkpoint: each depth row's calls there (what the carry
    // made there keeps of the row).
    std::map<uint32_t, std::vector<uint64_t>> m_checkpoints;
    const NestingCarry* m_resumeFrom = nullptr;
    // NestingOrder::moved by the track the calls had in the carry's snapshot.
    using MovedByTrack = std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>>;
    std::shared_ptr<const MovedByTrack> m_moved;
    struct Resumed
    {
        const TimelineLane* previous; // in m_resumeFrom's index
        const TrackCarry* carry;
    };
    std::map<uint32_t, Resumed> m_resumed; // by TrackId
    // The depth rows of resumed lanes, written into stores (DepthCarry::store) until
    // finish() gives them to the rows: per track, per depth the lane had then.
    struct StoredRow
    {
        std::shared_ptr<SharedColumnStore<uint32_t>> store;
        uint64_t size = 0;
        const DepthCarry* from = nullptr;
        std::vector<std::pair<uint64_t, uint32_t>> rewrites; // places of calls that moved
    };
    std::map<uint32_t, std::vector<StoredRow>> m_stored;
    std::vector<StoredRow>* m_currentStored = nullptr;
    // The store a resumed row's calls go into: the carried row's spare brought up to date
    // where nothing else holds it, else a fresh one; `closed` calls of `previous` copied.
    static std::shared_ptr<SharedColumnStore<uint32_t>> storeFor(const DepthCarry& from,
                                                                 const EventColumn<uint32_t>& previous);
};

} // namespace spanscope::model
