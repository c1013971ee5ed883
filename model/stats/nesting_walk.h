#pragma once
// The nesting walk's parts, shared by the files that make it up (not an interface):
// nesting.cpp gathers each track's runs and drives the walk (computeNesting),
// track_walker.cpp walks one track, nesting_parallel.cpp shares the walk out over two
// cores.

#include "nesting.h"
#include "nesting_carry.h"
#include "saturating.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spanscope::model::nesting_walk {

using EventIndex = uint32_t;

// The calls of one row on one lane in (start asc, end desc) order: either a contiguous
// slice of the event columns (the usual case: one lane, recorded in order, all closed) or
// a gathered, sorted list of indices; or every call of a listed track
// (Capture::nestingOrder), of many rows.
struct Run
{
    uint32_t row = 0;
    uint32_t order = 0;                  // position in input order, breaks ties
    const EventIndex* indices = nullptr; // nullptr: events [position, end) directly
    const uint32_t* rows = nullptr;      // a listed track's: the row of each call; else `row`
    uint64_t position = 0, end = 0;
    bool disjoint = false;               // each call ends before the next one starts

    EventIndex at(uint64_t p) const { return indices ? indices[p] : EventIndex(p); }
    EventIndex head() const { return at(position); }
    uint32_t rowAt(uint64_t p) const { return rows ? rows[p] : row; }
};

// A call still open on the walk's stack.
struct Open
{
    int64_t start, end;
    uint32_t row;
    uint32_t event;
    uint64_t position; // in its run (a listed track's: its place in Capture::nestingOrder)
};

// What walks add up; a parallel run has one per worker, added together at the end.
struct WalkTotals
{
    std::vector<int64_t> rowExclusive;
    std::vector<LaneExclusive> laneExclusive;
    uint64_t overlaps = 0;
    std::string overlapExample;
    // A call came out of nesting order (only a listed track's can: the lists are the
    // source's word, the rows' runs are sorted here); the walk stopped there.
    bool disordered = false;
};

// Walks the runs of one track (or of one time slice of it) in nesting order, one walk at
// a time, on one thread.
class TrackWalker
{
public:
    // `depth` may be null (nothing stored per call); `visitor` may be null.
    TrackWalker(const Capture& capture, uint16_t* depth, NestingVisitor* visitor)
        : m_capture(capture), m_events(capture.events), m_depth(depth), m_visitor(visitor),
          m_lanes(!capture.events.track.empty()), m_openEnd(capture.nestingOrder.openEnd)
    {
        const size_t rows = capture.rows.size();
        totals.rowExclusive.assign(rows, 0);
        m_laneRowExclusive.assign(rows, 0);
        m_laneRowTouched.assign(rows, false);
    }

    // `open`: the calls already open when the first call of `runs` starts, outermost
    // first (a slice that begins inside them).
    void walk(std::vector<Run>& runs, TrackId track, const std::vector<Open>& open = {});
    // Goes on with a listed track's walk from where `carry` left it (nesting_carry.h),
    // `runs` being the rest of its lists: the exclusive time carried, the calls on the
    // carried stack (those open then visited again, ending at `ends`), then the runs.
    // `lists`: where the track's lists lie in Capture::nestingOrder.
    void resume(std::vector<Run>& runs, TrackId track, const TrackCarry& carry, const std::vector<int64_t>& ends,
                const std::vector<std::pair<uint64_t, uint64_t>>& lists);
    // The visitor of the next walks (a piece of a shared-out walk); may be null.
    void useVisitor(NestingVisitor* visitor) { m_visitor = visitor; }

    WalkTotals totals;

    // Where the last walk() or resume() stood before its first call starting at or after
    // `cut` (checkpointAt; at its end, if none does), for the next snapshot's carry: each
    // run's position, the stack, the last call walked, the calls' ends (the latest of
    // those not ending at NestingOrder::openEnd, where calls still open are shown to end,
    // and how many end there), and the track's exclusive ns so far per row, in the order
    // the walk met them. Taken only where asked for (keepCheckpoints). A resume() starts
    // from its carry's.
    struct Checkpoint
    {
        std::vector<uint64_t> positions; // per run
        std::vector<Open> stack;
        int64_t lastStart = INT64_MIN, lastStop = INT64_MAX;
        uint32_t lastEvent = 0;
        int64_t maxEnd = INT64_MIN;
        uint64_t endsAtOpenEnd = 0;
        std::vector<std::pair<uint32_t, int64_t>> lanes; // (row, exclusive ns)
    };
    // Depths of events below `events` are the snapshot before's, in a store it shares:
    // not written; one the walk finds different goes to depthChanges instead.
    void shareDepthsBelow(uint32_t events) { m_sharedBelow = events; }
    std::vector<std::pair<uint32_t, uint16_t>> depthChanges; // (event, depth)
    void keepCheckpoints(bool keep) { m_keepCheckpoints = keep; }
    void checkpointAt(int64_t cut) { m_cut = cut; }
    const Checkpoint& checkpoint() const { return m_checkpoint; }

private:
    // The walk as it stands (what a Checkpoint copies): the last call walked, the latest
    // end not at NestingOrder::openEnd, and how many calls end there.
    int64_t lastStart = INT64_MIN, lastStop = INT64_MAX;
    uint32_t lastEvent = 0;
    int64_t maxEnd = INT64_MIN;
    uint64_t endsAtOpenEnd = 0;
    // The nesting-order key of a run's head call. A run with no call left holds kDone,
    // which comes after every closed call (whose end is never before its start).
    struct HeadKey
    {
        int64_t start, stop;
        uint64_t tie; // the run's order, breaks ties
    };
    static constexpr HeadKey kDone{INT64_MAX, INT64_MIN, UINT64_MAX};
    // True if `b` comes before (a.start, a.stop, a.tie): start ascending, then end
    // descending, then run order. Written with & and | so that it compiles to no branch.
    static bool comesBefore(const HeadKey& b, int64_t start, int64_t stop, uint64_t tie)
    {
        return (b.start < start) | ((b.start == start) & ((b.stop > stop) | ((b.stop == stop) & (b.tie < tie))));
    }
    void loadKey(Run& run, HeadKey& key) const
    {
        const EventIndex e = run.head();
        key.start = m_events.start[e];
        key.stop = m_events.end[e];
        key.tie = run.order;
        // Many runs advance side by side, more streams than the hardware prefetcher
        // follows: without this, nearly every new cache line of a run is a miss to memory.
        // A gathered run (a row shared by several tracks: a live capture's rows hold every
        // thread's calls of a region) skips through the columns, so it fetches every call's
        // lines ahead; a contiguous one, a line per 8 calls.
        if (run.indices || (run.position & 7) == 0) {
            const uint64_t ahead = run.at(std::min<uint64_t>(run.position + kPrefetchCalls, run.end - 1));
            __builtin_prefetch(&m_events.start[ahead]);
            __builtin_prefetch(&m_events.end[ahead]);
            if (m_depth)
                __builtin_prefetch(&m_depth[ahead], 1);
        }
    }
    static constexpr uint64_t kPrefetchCalls = 32; // 4 cache lines of 8-byte times ahead
    // Forced inline in track_walker.cpp: walk() is its only caller, once per call, and as an
    // outside function (since the walk spans several files) it cost the analysis ~6 %.
    void visit(EventIndex e, int64_t start, int64_t end, uint32_t row, int32_t rank, uint64_t position);
    // The loser tree's merge of the runs, after the stack is set up.
    void merge(std::vector<Run>& runs, int32_t rank);
    void finishLane(TrackId track);
    void addLaneExclusive(uint32_t row, int64_t ns)
    {
        if (!m_lanes)
            return;
        if (!m_laneRowTouched[row]) {
            m_laneRowTouched[row] = true;
            m_touchedRows.push_back(row);
        }
        m_laneRowExclusive[row] = addSaturating(m_laneRowExclusive[row], ns);
    }

    // Fills m_checkpoint from the walk as it stands (`runs`' positions).
    void takeCheckpoint(const std::vector<Run>& runs);

    const Capture& m_capture;
    const EventColumns& m_events;
    uint16_t* m_depth; // where depths are written (one per event), or null
    NestingVisitor* m_visitor;
    const bool m_lanes;
    const int64_t m_openEnd;
    std::vector<Open> m_stack;
    std::vector<HeadKey> m_keys;  // per run, see walk()
    std::vector<uint32_t> m_tree; // losers per inner node of the tree, see walk()
    // Exclusive ns per row on the lane being walked, flushed to laneExclusive after it.
    std::vector<int64_t> m_laneRowExclusive;
    std::vector<bool> m_laneRowTouched;
    std::vector<uint32_t> m_touchedRows;
    uint32_t m_sharedBelow = 0;
    bool m_keepCheckpoints = false;
    int64_t m_cut = INT64_MAX;
    Checkpoint m_checkpoint;
};

// A listed track (a thread's push/pop ranges and CUDA calls, or a GPU track's work),
// walked from its lists alone: its walk may go on from the last snapshot's carry, and may
// leave one for the next (nesting_carry.h).
struct Listed
{
    TrackId track;
    std::vector<std::pair<uint64_t, uint64_t>> lists; // each list's [begin, end) in Capture::nestingOrder
    int64_t cut = INT64_MAX;           // where the carry it leaves is taken (TrackCarry::cut)
    const TrackCarry* carry = nullptr; // where its walk goes on from, if anywhere
    std::vector<int64_t> ends;         // the new ends of carry->stack
    std::optional<TrackCarry> made;    // where its walk stopped (exclusive times added last)
    std::vector<std::pair<uint32_t, int64_t>> lanes; // its exclusive ns per row there (Checkpoint::lanes)
    // The list a place of Capture::nestingOrder belongs to.
    uint32_t listOf(uint64_t place) const
    {
        uint32_t k = 0;
        while (k + 1 < lists.size() && place >= lists[k].second)
            ++k;
        return k;
    }
};

// One piece of a parallel walk: a whole track, or the calls of one that start in one part
// of its time.
struct WalkUnit
{
    TrackId track;
    std::vector<Run> runs;
    std::vector<Open> open; // see TrackWalker::walk
    uint64_t calls = 0;
    std::unique_ptr<NestingVisitor> visitor; // the piece of the caller's visitor, if any
    Listed* listed = nullptr; // a listed track walked from its lists (it may go on from a carry)
    // Its entries in its walker's totals.laneExclusive: [lanesBegin, lanesEnd) of worker's.
    int worker = 0;
    size_t lanesBegin = 0, lanesEnd = 0;
};

class Nester
{
public:
    // `listed`: read the tracks Capture::nestingOrder lists from it.
    Nester(const Capture& capture, EventColumn<uint16_t>* depth, NestingVisitor* visitor,
           const NestingOptions& options, bool listed)
        : m_capture(capture), m_events(capture.events), m_depth(depth), m_visitor(visitor),
          m_options(options)
    {
        if (listed && usableListing())
            for (const auto& t : capture.nestingOrder.tracks) {
                m_listedTrack.resize(std::max<size_t>(m_listedTrack.size(), t.track.value + 1), 0);
                m_listedTrack[t.track.value] = 1;
            }
    }

    bool run(const ProgressRange& progress);
    // Whether the walk read the listed tracks from Capture::nestingOrder: false where there
    // were none, or they disagreed with the rows (the calls were gathered from the rows).
    bool readListing() const { return !m_listedTrack.empty(); }
    // Whether some track's walk went on from NestingOptions::resumeFrom.
    bool resumedAny() const
    {
        return std::any_of(m_listed.begin(), m_listed.end(), [](const Listed& l) { return l.carry; });
    }

    WalkTotals totals;
    std::optional<Warning> overlapWarning;

private:
    // The runs of some rows, by track, in row order; the calls that never closed; the
    // gathered lists the runs point into.
    struct RowRuns
    {
        std::vector<std::pair<uint32_t, Run>> runs; // track, run (its order not yet set)
        std::vector<std::pair<EventIndex, uint32_t>> unclosed; // event, track
        std::vector<std::vector<EventIndex>> gathered;
        uint64_t listedCalls = 0; // calls left to a listed track's run
    };
    // Capture::nestingOrder is whole: a row flag per row, a row per listed call, each
    // listed track's lists together and in range, no two lists' places overlapping.
    bool usableListing() const;
    // The calls the lists hold.
    uint64_t listedCalls() const;
    bool listedTrack(uint32_t track) const { return track < m_listedTrack.size() && m_listedTrack[track]; }
    // One run per list of a listed track (Capture::nestingOrder), after every row's.
    void addListedRuns(std::vector<std::vector<Run>>& runsOfTrack);
    // Adds one row's to `out`. Any thread; `callsOnTrack` is scratch (all 0; grown as
    // needed).
    void runsOfRow(uint32_t row, RowRuns& out, std::vector<uint64_t>& callsOnTrack) const;
    // Every row's runs, in row order, added to their tracks (on both cores for large
    // captures). False if cancelled.
    bool addRuns(std::vector<std::vector<Run>>& runsOfTrack, const ProgressRange& progress);
    bool walkInParallel(std::vector<std::vector<Run>>& runsOfTrack, const ProgressRange& progress);
    // The listed tracks whose walk goes on from NestingOptions::resumeFrom (their runs
    // then start where it stopped), and those that leave a carry.
    void planCarry(std::vector<std::vector<Run>>& runsOfTrack);
    Listed* listedOf(TrackId track)
    {
        return track.value < m_listedOf.size() && m_listedOf[track.value] != UINT32_MAX
                   ? &m_listed[m_listedOf[track.value]]
                   : nullptr;
    }
    // Walks one track (resuming it where planned) and keeps where a listed one stopped.
    void walkTrack(TrackWalker& walker, std::vector<Run>& runs, TrackId track, const std::vector<Open>& open,
                   Listed* listed);
    // Fills NestingOptions::carryOut from the listed tracks' walks, once all are done.
    void finishCarry();
    // Sets up where depths are written: the carried snapshot's store when every call walked
    // is new (after its events), else a column of its own (a store where a carry is made).
    void prepareDepth(const std::vector<std::vector<Run>>& runsOfTrack);
    // Gives the capture the depths written into a store, and the carry that store.
    void finishDepth();
    bool splitAt(const std::vector<Run>& runs, int64_t at, WalkUnit& early, WalkUnit& late) const;

    const Capture& m_capture;
    const EventColumns& m_events;
    EventColumn<uint16_t>* m_depth;
    uint16_t* m_depthOut = nullptr; // what the walkers write (m_depth's, or m_depthStore's)
    std::shared_ptr<SharedColumnStore<uint16_t>> m_depthStore;
    uint32_t m_sharedBelow = 0; // events whose depths m_depthStore shares with the snapshot before
    std::vector<std::pair<uint32_t, uint16_t>> m_depthChanges; // the walkers' (TrackWalker::depthChanges)
    NestingVisitor* m_visitor;
    const NestingOptions m_options;
    std::deque<std::vector<EventIndex>> m_gathered; // storage behind non-contiguous runs
    uint32_t m_runOrder = 0;
    std::vector<uint8_t> m_listedTrack; // by track: its calls are read from nestingOrder
    std::vector<Listed> m_listed;
    std::vector<uint32_t> m_listedOf; // by track: index into m_listed, or UINT32_MAX
};

} // namespace spanscope::model::nesting_walk
