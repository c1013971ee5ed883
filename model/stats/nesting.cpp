#include "nesting.h"

#include "saturating.h"
#include "overlap_lanes.h"
#include "../share_out.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <numeric>
#include <optional>
#include <thread>
#include <unordered_map>

namespace spanscope::model {

namespace {

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
    TrackWalker(const Capture& capture, Column<uint16_t>* depth, NestingVisitor* visitor)
        : m_capture(capture), m_events(capture.events), m_depth(depth), m_visitor(visitor),
          m_lanes(!capture.events.track.empty())
    {
        const size_t rows = capture.rows.size();
        totals.rowExclusive.assign(rows, 0);
        m_laneRowExclusive.assign(rows, 0);
        m_laneRowTouched.assign(rows, false);
    }

    // `open`: the calls already open when the first call of `runs` starts, outermost
    // first (a slice that begins inside them).
    void walk(std::vector<Run>& runs, TrackId track, const std::vector<Open>& open = {});
    // The visitor of the next walks (a piece of a shared-out walk); may be null.
    void useVisitor(NestingVisitor* visitor) { m_visitor = visitor; }

    WalkTotals totals;

private:
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
                __builtin_prefetch(&(*m_depth)[ahead], 1);
        }
    }
    static constexpr uint64_t kPrefetchCalls = 32; // 4 cache lines of 8-byte times ahead
    void visit(EventIndex e, int64_t start, int64_t end, uint32_t row, int32_t rank);
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

    const Capture& m_capture;
    const EventColumns& m_events;
    Column<uint16_t>* m_depth;
    NestingVisitor* m_visitor;
    const bool m_lanes;
    std::vector<Open> m_stack;
    std::vector<HeadKey> m_keys;  // per run, see walk()
    std::vector<uint32_t> m_tree; // losers per inner node of the tree, see walk()
    // Exclusive ns per row on the lane being walked, flushed to laneExclusive after it.
    std::vector<int64_t> m_laneRowExclusive;
    std::vector<bool> m_laneRowTouched;
    std::vector<uint32_t> m_touchedRows;
};

void TrackWalker::visit(EventIndex e, int64_t start, int64_t end, uint32_t row, int32_t rank)
{
    // Close what ended at or before this start; a zero-length call stays open through its
    // own instant.
    while (!m_stack.empty()) {
        const Open& top = m_stack.back();
        if (top.end > start || (top.end == start && top.start == top.end))
            break;
        m_stack.pop_back();
    }
    if (!m_stack.empty() && m_stack.back().end < end) {
        if (totals.overlaps++ == 0)
            totals.overlapExample = "'" + m_capture.regionName(m_capture.rows[row].region)
                                    + "' ends after the enclosing '"
                                    + m_capture.regionName(m_capture.rows[m_stack.back().row].region)
                                    + "' on rank " + std::to_string(rank);
        while (!m_stack.empty() && m_stack.back().end < end)
            m_stack.pop_back();
    }
    const int64_t duration = subtractSaturating(end, start);
    auto& exclusive = totals.rowExclusive;
    exclusive[row] = addSaturating(exclusive[row], duration);
    addLaneExclusive(row, duration);
    if (!m_stack.empty()) {
        const uint32_t parentRow = m_stack.back().row;
        exclusive[parentRow] = subtractSaturating(exclusive[parentRow], duration);
        addLaneExclusive(parentRow, -duration);
    }
    const auto depth = uint16_t(std::min<size_t>(m_stack.size(), UINT16_MAX));
    if (m_depth)
        (*m_depth)[e] = depth;
    if (m_visitor)
        m_visitor->call(e, depth);
    m_stack.push_back({start, end, row});
}

void TrackWalker::walk(std::vector<Run>& runs, TrackId track, const std::vector<Open>& open)
{
    m_stack = open;
    if (m_visitor)
        m_visitor->track(track);
    const int32_t rank = m_capture.tracks[track.value].rank;
    // A loser tree over the runs' head calls: after the winner advances, one comparison
    // per level (log2 of the run count) finds the next, without branches to mispredict.
    // Leaves past the last run, and runs used up, are `done` and lose to everything.
    size_t leaves = 1;
    while (leaves < runs.size())
        leaves *= 2;
    m_keys.assign(leaves, kDone);
    for (uint32_t i = 0; i < runs.size(); ++i)
        if (runs[i].position < runs[i].end)
            loadKey(runs[i], m_keys[i]);
    // Build bottom up: winners[node] plays at its parent, tree[node] keeps the loser.
    m_tree.assign(leaves, 0);
    std::vector<uint32_t> winners(2 * leaves);
    for (uint32_t i = 0; i < leaves; ++i)
        winners[leaves + i] = i;
    for (size_t node = leaves; node-- > 1;) {
        const uint32_t left = winners[2 * node], right = winners[2 * node + 1];
        const HeadKey& l = m_keys[left];
        const bool rightWins = comesBefore(m_keys[right], l.start, l.stop, l.tie);
        winners[node] = rightWins ? right : left;
        m_tree[node] = rightWins ? left : right;
    }
    uint32_t winner = winners[1];
    int64_t lastStart = INT64_MIN, lastStop = INT64_MAX;
    while (m_keys[winner].tie != kDone.tie) {
        Run& top = runs[winner];
        HeadKey& key = m_keys[winner];
        if ((key.start < lastStart) | ((key.start == lastStart) & (key.stop > lastStop)) | (key.stop < key.start)) {
            totals.disordered = true;
            break;
        }
        lastStart = key.start;
        lastStop = key.stop;
        visit(top.head(), key.start, key.stop, top.rowAt(top.position), rank);
        if (++top.position == top.end)
            key = kDone;
        else
            loadKey(top, key);
        // Replay the winner's path. The key travels in registers: each level waits only
        // for the comparison before it, not for a reload of the new winner's key.
        int64_t start = key.start, stop = key.stop;
        uint64_t tie = key.tie;
        for (size_t node = (leaves + winner) / 2; node >= 1; node /= 2) {
            const uint32_t held = m_tree[node];
            const HeadKey& h = m_keys[held];
            const bool heldWins = comesBefore(h, start, stop, tie);
            m_tree[node] = heldWins ? winner : held;
            winner = heldWins ? held : winner;
            start = heldWins ? h.start : start;
            stop = heldWins ? h.stop : stop;
            tie = heldWins ? h.tie : tie;
        }
    }
    finishLane(track);
}

void TrackWalker::finishLane(TrackId track)
{
    if (!m_lanes)
        return;
    for (const uint32_t row : m_touchedRows) {
        totals.laneExclusive.push_back({row, track, m_laneRowExclusive[row]});
        m_laneRowExclusive[row] = 0;
        m_laneRowTouched[row] = false;
    }
    m_touchedRows.clear();
}

// One piece of a parallel walk: a whole track, or the calls of one that start in one part
// of its time.
struct WalkUnit
{
    TrackId track;
    std::vector<Run> runs;
    std::vector<Open> open; // see TrackWalker::walk
    uint64_t calls = 0;
    std::unique_ptr<NestingVisitor> visitor; // the piece of the caller's visitor, if any
    // Its entries in its walker's totals.laneExclusive: [lanesBegin, lanesEnd) of worker's.
    int worker = 0;
    size_t lanesBegin = 0, lanesEnd = 0;
};

class Nester
{
public:
    // `listed`: read the tracks Capture::nestingOrder lists from it.
    Nester(const Capture& capture, Column<uint16_t>* depth, NestingVisitor* visitor,
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
    // listed track once and in range.
    bool usableListing() const;
    bool listedTrack(uint32_t track) const { return track < m_listedTrack.size() && m_listedTrack[track]; }
    // One run per listed track (Capture::nestingOrder), after every row's.
    void addListedRuns(std::vector<std::vector<Run>>& runsOfTrack);
    // Adds one row's to `out`. Any thread; `callsOnTrack` is scratch (all 0; grown as
    // needed).
    void runsOfRow(uint32_t row, RowRuns& out, std::vector<uint64_t>& callsOnTrack) const;
    // Every row's runs, in row order, added to their tracks (on both cores for large
    // captures). False if cancelled.
    bool addRuns(std::vector<std::vector<Run>>& runsOfTrack, const ProgressRange& progress);
    bool walkInParallel(std::vector<std::vector<Run>>& runsOfTrack, const ProgressRange& progress);
    bool splitAt(const std::vector<Run>& runs, int64_t at, WalkUnit& early, WalkUnit& late) const;

    const Capture& m_capture;
    const EventColumns& m_events;
    Column<uint16_t>* m_depth;
    NestingVisitor* m_visitor;
    const NestingOptions m_options;
    std::deque<std::vector<EventIndex>> m_gathered; // storage behind non-contiguous runs
    uint32_t m_runOrder = 0;
    std::vector<uint8_t> m_listedTrack; // by track: its calls are read from nestingOrder
};

bool Nester::usableListing() const
{
    const NestingOrder& listing = m_capture.nestingOrder;
    if (listing.empty() || listing.rowListed.size() != m_capture.rows.size()
        || listing.rows.size() != listing.events.size() || m_events.track.size() != m_events.size())
        return false;
    std::vector<bool> seen(m_capture.tracks.size(), false);
    uint64_t next = 0;
    for (const auto& t : listing.tracks) {
        if (t.track.value >= seen.size() || seen[t.track.value] || t.begin != next || t.end < t.begin)
            return false;
        seen[t.track.value] = true;
        next = t.end;
    }
    return next == listing.events.size();
}

void Nester::addListedRuns(std::vector<std::vector<Run>>& runsOfTrack)
{
    const NestingOrder& listing = m_capture.nestingOrder;
    for (const auto& t : listing.tracks) {
        Run run;
        run.order = m_runOrder++;
        run.indices = listing.events.data() + t.begin;
        run.rows = listing.rows.data() + t.begin;
        run.end = t.end - t.begin;
        if (t.track.value >= runsOfTrack.size())
            runsOfTrack.resize(size_t(t.track.value) + 1);
        runsOfTrack[t.track.value].push_back(run);
    }
}

void Nester::runsOfRow(uint32_t row, RowRuns& out, std::vector<uint64_t>& callsOnTrack) const
{
    const auto& r = m_capture.rows[row];
    const uint64_t begin = r.offset, end = r.offset + r.count;
    if (begin == end)
        return;
    if (!m_listedTrack.empty() && m_capture.nestingOrder.rowListed[row]) {
        out.listedCalls += r.count;
        return;
    }
    const bool perCall = !m_events.track.empty();
    auto trackOf = [&](uint64_t i) { return perCall ? m_events.track[i] : r.track.value; };
    bool simple = true, disjoint = true;
    const uint32_t firstTrack = trackOf(begin);
    for (uint64_t i = begin; i < end && simple; ++i) {
        if (m_events.end[i] < m_events.start[i] || trackOf(i) != firstTrack)
            simple = false;
        else if (i > begin
                 && (m_events.start[i] < m_events.start[i - 1]
                     || (m_events.start[i] == m_events.start[i - 1] && m_events.end[i] > m_events.end[i - 1])))
            simple = false;
        else if (i > begin && m_events.end[i - 1] > m_events.start[i])
            disjoint = false;
    }
    if (simple && listedTrack(firstTrack)) {
        out.listedCalls += end - begin;
        return;
    }
    if (simple) {
        Run run;
        run.row = row;
        run.position = begin;
        run.end = end;
        run.disjoint = disjoint;
        out.runs.push_back({firstTrack, run});
        return;
    }
    // Gather closed calls per track, keeping their order (counted first, so each list is
    // allocated once), then sort each list stably. Tracks in ascending order. callsOnTrack
    // counts a track's calls, then holds the track's list, and is left all 0.
    std::vector<uint32_t> tracks;
    for (uint64_t i = begin; i < end; ++i) {
        const uint32_t track = trackOf(i);
        if (listedTrack(track)) {
            ++out.listedCalls;
            continue;
        }
        if (m_events.end[i] < m_events.start[i]) { // never-closed calls take no part in nesting
            out.unclosed.push_back({EventIndex(i), track});
            continue;
        }
        if (track >= callsOnTrack.size())
            callsOnTrack.resize(size_t(track) + 1);
        if (callsOnTrack[track]++ == 0)
            tracks.push_back(track);
    }
    std::sort(tracks.begin(), tracks.end());
    const size_t first = out.gathered.size();
    out.gathered.resize(first + tracks.size());
    for (size_t k = 0; k < tracks.size(); ++k) {
        out.gathered[first + k].reserve(callsOnTrack[tracks[k]]);
        callsOnTrack[tracks[k]] = first + k; // from counts to the track's list
    }
    for (uint64_t i = begin; i < end; ++i)
        if (m_events.end[i] >= m_events.start[i] && !listedTrack(trackOf(i)))
            out.gathered[callsOnTrack[trackOf(i)]].push_back(EventIndex(i));
    for (const uint32_t track : tracks)
        callsOnTrack[track] = 0;
    auto before = [this](EventIndex a, EventIndex b) {
        if (m_events.start[a] != m_events.start[b])
            return m_events.start[a] < m_events.start[b];
        return m_events.end[a] > m_events.end[b];
    };
    for (size_t k = 0; k < tracks.size(); ++k) {
        auto& list = out.gathered[first + k];
        // A row recorded in nesting order (every live capture's) is sorted already.
        if (!std::is_sorted(list.begin(), list.end(), before))
            std::stable_sort(list.begin(), list.end(), before);
        Run run;
        run.row = row;
        run.indices = list.data(); // a vector's storage stays put when the vector moves
        run.position = 0;
        run.end = list.size();
        // Disjoint lets the parallel walk cut the track (a live capture's main thread).
        run.disjoint = true;
        for (size_t i = 1; i < list.size() && run.disjoint; ++i)
            run.disjoint = m_events.end[list[i - 1]] <= m_events.start[list[i]];
        out.runs.push_back({tracks[k], run});
    }
}

bool Nester::addRuns(std::vector<std::vector<Run>>& runsOfTrack, const ProgressRange& progress)
{
    const auto rows = uint32_t(m_capture.rows.size());
    std::vector<RowRuns> found;
    if (m_events.size() < m_options.parallelMinimumCalls || std::thread::hardware_concurrency() < 2) {
        std::vector<uint64_t> callsOnTrack(m_capture.tracks.size());
        found.resize(1);
        for (uint32_t r = 0; r < rows; ++r) {
            if (progress.cancelled())
                return false;
            runsOfRow(r, found.front(), callsOnTrack);
        }
    } else {
        // On both cores: the rows cut into consecutive chunks of about equal calls (a chunk
        // per row would cost an allocation per row, and captures with a name per range
        // have millions of rows), the largest first; the chunks' runs added in row order.
        constexpr uint64_t kChunks = 64;
        std::vector<WorkChunk> chunks;
        cutIntoChunks(rows, m_events.size() / kChunks + 1, [&](uint32_t r) { return m_capture.rows[r].count; },
                      chunks);
        const std::vector<uint32_t> schedule = largestFirst(chunks);
        found.resize(chunks.size());
        std::vector<uint64_t> callsOnTrack[2] = {std::vector<uint64_t>(m_capture.tracks.size()),
                                                 std::vector<uint64_t>(m_capture.tracks.size())};
        shareOut(chunks.size(), [&](size_t item, int worker) {
            const WorkChunk& chunk = chunks[schedule[item]];
            for (uint32_t r = chunk.first; r < chunk.last && !progress.cancelled(); ++r)
                runsOfRow(r, found[schedule[item]], callsOnTrack[worker]);
        });
        if (progress.cancelled())
            return false;
    }
    if (readListing()) {
        // The rows left exactly as many calls to the listed tracks as the lists hold, or the
        // lists are not used: the rows' calls are gathered again, every track's.
        uint64_t listed = 0;
        for (const RowRuns& chunk : found)
            listed += chunk.listedCalls;
        if (listed != m_capture.nestingOrder.events.size()) {
            m_listedTrack.clear();
            return addRuns(runsOfTrack, progress);
        }
    }
    for (RowRuns& chunk : found) {
        for (auto& [track, run] : chunk.runs) {
            run.order = m_runOrder++;
            if (track >= runsOfTrack.size())
                runsOfTrack.resize(size_t(track) + 1);
            runsOfTrack[track].push_back(run);
        }
        if (m_visitor)
            for (const auto& [event, track] : chunk.unclosed)
                m_visitor->unclosed(event, TrackId{track});
        for (auto& list : chunk.gathered)
            m_gathered.push_back(std::move(list));
    }
    if (readListing())
        addListedRuns(runsOfTrack);
    return true;
}

// Splits one track's walk at time `at`: `early` gets the calls that start before it,
// `late` the others and, as open calls, those of `early` that are still open at `at`. The
// late walk then does exactly what the whole walk would after `at`, provided the early
// one meets no partial overlap (the caller checks). False when the track cannot be split
// so: a row whose calls overlap one another, or open calls that do not nest.
bool Nester::splitAt(const std::vector<Run>& runs, int64_t at, WalkUnit& early, WalkUnit& late) const
{
    struct Candidate
    {
        Open open;
        uint32_t order;
    };
    std::vector<Candidate> candidates;
    for (const Run& run : runs) {
        if (!run.disjoint)
            return false;
        uint64_t low = run.position, high = run.end; // first call starting at or after `at`
        while (low < high) {
            const uint64_t middle = low + (high - low) / 2;
            if (m_events.start[run.at(middle)] < at)
                low = middle + 1;
            else
                high = middle;
        }
        Run first = run, second = run;
        first.end = second.position = low;
        if (first.position < first.end) {
            early.runs.push_back(first);
            early.calls += first.end - first.position;
            // The row's calls are disjoint: only its last early call can still be open.
            const EventIndex last = run.at(low - 1);
            if (m_events.end[last] > at)
                candidates.push_back({{m_events.start[last], m_events.end[last], run.row}, run.order});
        }
        if (second.position < second.end) {
            late.runs.push_back(second);
            late.calls += second.end - second.position;
        }
    }
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
        if (a.open.start != b.open.start)
            return a.open.start < b.open.start;
        if (a.open.end != b.open.end)
            return a.open.end > b.open.end;
        return a.order < b.order;
    });
    for (size_t i = 0; i < candidates.size(); ++i) {
        if (i > 0 && candidates[i].open.end > candidates[i - 1].open.end)
            return false; // they overlap partially: the serial walk decides
        late.open.push_back(candidates[i].open);
    }
    return true;
}

// The walk on two threads: tracks (and the biggest tracks split in two at a time) as
// units, each worker adding up its own totals. False, with nothing kept, when a partial
// overlap was met: the split rule assumes there is none, so the serial walk redoes it.
bool Nester::walkInParallel(std::vector<std::vector<Run>>& runsOfTrack, const ProgressRange& progress)
{
    uint64_t total = 0;
    for (const auto& runs : runsOfTrack)
        for (const Run& run : runs)
            total += run.end - run.position;
    std::vector<WalkUnit> units; // in walk order: display order, a cut track's early part first
    for (const TrackId track : tracksInDisplayOrder(m_capture)) {
        const uint32_t t = track.value;
        auto& runs = runsOfTrack[t];
        WalkUnit whole{TrackId{t}, runs, {}, 0, nullptr};
        for (const Run& run : runs)
            whole.calls += run.end - run.position;
        if (whole.calls == 0)
            continue;
        if (whole.calls >= total / 4 && whole.calls >= 2) {
            // Split at the start of the middle call of the track's largest row.
            const Run& largest = *std::max_element(runs.begin(), runs.end(), [](const Run& a, const Run& b) {
                return a.end - a.position < b.end - b.position;
            });
            const int64_t at =
                m_events.start[largest.at(largest.position + (largest.end - largest.position) / 2)];
            WalkUnit early{TrackId{t}, {}, {}, 0, nullptr}, late{TrackId{t}, {}, {}, 0, nullptr};
            if (splitAt(runs, at, early, late) && early.calls > 0 && late.calls > 0) {
                units.push_back(std::move(early));
                units.push_back(std::move(late));
                continue;
            }
        }
        units.push_back(std::move(whole));
    }
    if (m_visitor)
        for (WalkUnit& unit : units)
            if (!(unit.visitor = m_visitor->piece()))
                return false; // the visitor needs the serial walk
    // Largest first, taken in turn by whichever worker is free: balanced within the
    // smallest unit.
    std::vector<uint32_t> schedule(units.size());
    std::iota(schedule.begin(), schedule.end(), 0u);
    std::stable_sort(schedule.begin(), schedule.end(),
                     [&](uint32_t a, uint32_t b) { return units[a].calls > units[b].calls; });
    TrackWalker walkers[2] = {{m_capture, m_depth, nullptr}, {m_capture, m_depth, nullptr}};
    shareOut(units.size(), [&](size_t item, int worker) {
        TrackWalker& walker = walkers[worker];
        if (progress.cancelled() || walker.totals.overlaps > 0 || walker.totals.disordered)
            return; // an overlap: the serial walk redoes everything
        WalkUnit& unit = units[schedule[item]];
        walker.useVisitor(unit.visitor.get());
        unit.worker = worker;
        unit.lanesBegin = walker.totals.laneExclusive.size();
        walker.walk(unit.runs, unit.track, unit.open);
        unit.lanesEnd = walker.totals.laneExclusive.size();
    });
    if (progress.cancelled())
        return false;
    const WalkTotals& other = walkers[1].totals;
    if (walkers[0].totals.overlaps > 0 || other.overlaps > 0 || walkers[0].totals.disordered || other.disordered)
        return false;
    if (m_visitor)
        for (WalkUnit& unit : units)
            m_visitor->join(*unit.visitor);
    totals.rowExclusive = std::move(walkers[0].totals.rowExclusive);
    for (size_t r = 0; r < totals.rowExclusive.size(); ++r)
        totals.rowExclusive[r] = addSaturating(totals.rowExclusive[r], other.rowExclusive[r]);
    // The lanes' entries in walk order, as the serial walk leaves them: a track's in the
    // order its rows were first met. A cut track's later part adds to the entries of rows
    // its earlier part met (it meets them in the same order), and appends the others.
    // Linear: a sort of (track, row) pairs took ~0.1 s with a million rows.
    std::vector<uint32_t> entryOfRow(m_capture.rows.size(), UINT32_MAX); // for the current track
    std::vector<uint32_t> metRows;
    auto& lanes = totals.laneExclusive;
    lanes.reserve(walkers[0].totals.laneExclusive.size() + other.laneExclusive.size());
    for (size_t u = 0; u < units.size(); ++u) {
        if (u > 0 && units[u].track.value != units[u - 1].track.value) {
            for (const uint32_t row : metRows)
                entryOfRow[row] = UINT32_MAX;
            metRows.clear();
        }
        const auto& from = walkers[units[u].worker].totals.laneExclusive;
        for (size_t i = units[u].lanesBegin; i < units[u].lanesEnd; ++i) {
            const LaneExclusive& entry = from[i];
            uint32_t& at = entryOfRow[entry.row];
            if (at != UINT32_MAX) {
                lanes[at].exclusiveNs = addSaturating(lanes[at].exclusiveNs, entry.exclusiveNs);
            } else {
                at = uint32_t(lanes.size());
                metRows.push_back(entry.row);
                lanes.push_back(entry);
            }
        }
    }
    progress.report(1.0);
    return true;
}

bool Nester::run(const ProgressRange& progress)
{
    const size_t n = m_events.size();
    if (m_depth)
        m_depth->assign(n, 0);

    // Runs grouped by track, each track's runs in row order.
    std::vector<std::vector<Run>> runsOfTrack;
    if (!addRuns(runsOfTrack, progress))
        return false;
    runsOfTrack.resize(m_capture.tracks.size());
    // A visitor that needs every call in order on one thread gets the serial walk (see
    // walkInParallel).
    if (n >= m_options.parallelMinimumCalls && std::thread::hardware_concurrency() >= 2) {
        if (walkInParallel(runsOfTrack, progress)) {
            m_gathered.clear();
            return true;
        }
        if (progress.cancelled())
            return false;
    }
    TrackWalker walker(m_capture, m_depth, m_visitor);
    uint64_t done = 0;
    for (const TrackId track : tracksInDisplayOrder(m_capture)) {
        auto& runs = runsOfTrack[track.value];
        if (runs.empty())
            continue;
        if (progress.cancelled())
            return false;
        for (const Run& run : runs)
            done += run.end - run.position;
        walker.walk(runs, track);
        if (walker.totals.disordered)
            break;
        progress.report(n ? double(std::min<uint64_t>(done, n)) / double(n) : 1.0);
    }
    m_gathered.clear();
    totals = std::move(walker.totals);
    if (totals.overlaps)
        overlapWarning = Warning{std::to_string(totals.overlaps)
                                     + " calls end after the call enclosing them (partial overlap; "
                                       "first: "
                                     + totals.overlapExample
                                     + "); they are treated as siblings for exclusive time",
                                 {}};
    return true;
}

} // namespace

bool computeNesting(Capture& capture, const ProgressRange& progress, NestingVisitor* visitor,
                    const NestingOptions& options)
{
    assignTracks(capture);
    if (capture.events.size() >= UINT32_MAX) {
        capture.warnings.push_back({"too many calls to compute nesting; exclusive times unavailable", {}});
        return true;
    }
    std::optional<Nester> nester;
    nester.emplace(capture, &capture.events.depth, visitor, options, true);
    if (!nester->run(progress))
        return false;
    // Lists the walk could not use are dropped, so that later walks (walkNesting) do not
    // try them again.
    if (!nester->readListing())
        capture.nestingOrder = {};
    if (nester->totals.disordered) {
        capture.nestingOrder = {};
        if (visitor)
            visitor->restart();
        nester.emplace(capture, &capture.events.depth, visitor, options, false);
        if (!nester->run(progress))
            return false;
    }
    // Partial overlaps: spread the calls over inferred lanes and nest again, so no call is
    // nested wrongly (overlap_lanes.h). The second walk costs only captures that overlap.
    if (nester->overlapWarning) {
        if (std::optional<Warning> lanes = inferOverlapLanes(capture)) {
            if (!capture.nestingComputed)
                capture.warnings.push_back(std::move(*lanes));
            if (visitor)
                visitor->restart();
            capture.nestingOrder = {}; // calls moved to other tracks
            nester.emplace(capture, &capture.events.depth, visitor, options, false);
            if (!nester->run(progress))
                return false;
        }
    }
    capture.rowExclusive = std::move(nester->totals.rowExclusive);
    capture.laneExclusive = std::move(nester->totals.laneExclusive);
    if (nester->overlapWarning && !capture.nestingComputed)
        capture.warnings.push_back(std::move(*nester->overlapWarning));
    capture.nestingComputed = true;
    return true;
}

void walkNesting(const Capture& capture, NestingVisitor& visitor)
{
    if (capture.events.size() >= UINT32_MAX)
        return;
    // The lists were checked by computeNesting(), which drops those it could not use.
    Nester(capture, nullptr, &visitor, NestingOptions{}, capture.nestingComputed).run({nullptr, 0, 1});
}

} // namespace spanscope::model
