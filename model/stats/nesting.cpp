#include "nesting.h"

#include "saturating.h"
#include "overlap_lanes.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <unordered_map>

namespace spanscope::model {

namespace {

using EventIndex = uint32_t;

// The calls of one row on one lane in (start asc, end desc) order: either a contiguous
// slice of the event columns (the usual case: one lane, recorded in order, all closed) or
// a gathered, sorted list of indices.
struct Run
{
    uint32_t row = 0;
    uint32_t order = 0;                  // position in input order, breaks ties
    const EventIndex* indices = nullptr; // nullptr: events [position, end) directly
    uint64_t position = 0, end = 0;
    int64_t start = 0, stop = 0;         // cached key of the head call

    EventIndex head() const { return indices ? indices[position] : EventIndex(position); }
};

// A call still open on the walk's stack.
struct Open
{
    int64_t start, end;
    uint32_t row;
};

class Nester
{
public:
    // `depth` may be null (nothing stored per call); `visitor` may be null.
    Nester(const Capture& capture, Column<uint16_t>* depth, NestingVisitor* visitor)
        : m_capture(capture), m_events(capture.events), m_depth(depth), m_visitor(visitor)
    {}

    bool run(const ProgressRange& progress);

    std::vector<int64_t> rowExclusive;
    std::vector<LaneExclusive> laneExclusive;
    std::optional<Warning> overlapWarning;

private:
    void addRuns(uint32_t row, std::vector<std::vector<Run>>& runsOfTrack);
    void loadKey(Run& run) const
    {
        const EventIndex e = run.head();
        run.start = m_events.start[e];
        run.stop = m_events.end[e];
    }
    // True if a's head comes before b's head in nesting order.
    static bool before(const Run& a, const Run& b)
    {
        if (a.start != b.start)
            return a.start < b.start;
        if (a.stop != b.stop)
            return a.stop > b.stop;
        return a.order < b.order;
    }
    void mergeWalk(std::vector<Run>& runs, TrackId track);
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
    bool m_lanes = false;
    std::deque<std::vector<EventIndex>> m_gathered; // storage behind non-contiguous runs
    std::vector<Open> m_stack;
    // Exclusive ns per row on the lane being walked, flushed to laneExclusive after it.
    std::vector<int64_t> m_laneRowExclusive;
    std::vector<bool> m_laneRowTouched;
    std::vector<uint32_t> m_touchedRows;
    uint32_t m_runOrder = 0;
    uint64_t m_overlaps = 0;
    std::string m_overlapExample;
};

void Nester::addRuns(uint32_t row, std::vector<std::vector<Run>>& runsOfTrack)
{
    const auto& r = m_capture.rows[row];
    const uint64_t begin = r.offset, end = r.offset + r.count;
    if (begin == end)
        return;
    const bool perCall = !m_events.track.empty();
    auto trackOf = [&](uint64_t i) { return perCall ? m_events.track[i] : r.track.value; };
    bool simple = true;
    const uint32_t firstTrack = trackOf(begin);
    for (uint64_t i = begin; i < end && simple; ++i) {
        if (m_events.end[i] < m_events.start[i] || trackOf(i) != firstTrack)
            simple = false;
        else if (i > begin
                 && (m_events.start[i] < m_events.start[i - 1]
                     || (m_events.start[i] == m_events.start[i - 1] && m_events.end[i] > m_events.end[i - 1])))
            simple = false;
    }
    auto runsFor = [&](uint32_t track) -> std::vector<Run>& {
        if (track >= runsOfTrack.size())
            runsOfTrack.resize(size_t(track) + 1);
        return runsOfTrack[track];
    };
    if (simple) {
        Run run;
        run.row = row;
        run.order = m_runOrder++;
        run.position = begin;
        run.end = end;
        runsFor(firstTrack).push_back(run);
        return;
    }
    // Gather closed calls per track, keeping their order, then sort each list stably.
    std::map<uint32_t, std::vector<EventIndex>> perTrack;
    for (uint64_t i = begin; i < end; ++i) {
        if (m_events.end[i] >= m_events.start[i])
            perTrack[trackOf(i)].push_back(EventIndex(i));
        else if (m_visitor) // never-closed calls take no part in nesting
            m_visitor->unclosed(EventIndex(i), TrackId{trackOf(i)});
    }
    for (auto& [track, indices] : perTrack) {
        std::stable_sort(indices.begin(), indices.end(), [this](EventIndex a, EventIndex b) {
            if (m_events.start[a] != m_events.start[b])
                return m_events.start[a] < m_events.start[b];
            return m_events.end[a] > m_events.end[b];
        });
        m_gathered.push_back(std::move(indices));
        Run run;
        run.row = row;
        run.order = m_runOrder++;
        run.indices = m_gathered.back().data();
        run.position = 0;
        run.end = m_gathered.back().size();
        runsFor(track).push_back(run);
    }
}

void Nester::visit(EventIndex e, int64_t start, int64_t end, uint32_t row, int32_t rank)
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
        if (m_overlaps++ == 0)
            m_overlapExample = "'" + m_capture.regionName(m_capture.rows[row].region)
                               + "' ends after the enclosing '"
                               + m_capture.regionName(m_capture.rows[m_stack.back().row].region)
                               + "' on rank " + std::to_string(rank);
        while (!m_stack.empty() && m_stack.back().end < end)
            m_stack.pop_back();
    }
    const int64_t duration = subtractSaturating(end, start);
    auto& exclusive = rowExclusive;
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

void Nester::mergeWalk(std::vector<Run>& runs, TrackId track)
{
    m_stack.clear();
    if (m_visitor)
        m_visitor->track(track);
    const int32_t rank = m_capture.tracks[track.value].rank;
    for (auto& run : runs)
        loadKey(run);
    // A binary min-heap of run numbers ordered by each run's head key. The top run is
    // advanced in place and sifted down, so there are no pop/push pairs; swapping 4-byte
    // run numbers keeps the sift cheap.
    std::vector<uint32_t> heap(runs.size());
    for (uint32_t i = 0; i < heap.size(); ++i)
        heap[i] = i;
    const auto less = [&runs](uint32_t a, uint32_t b) { return before(runs[a], runs[b]); };
    const auto siftDown = [&heap, &less](size_t i) {
        const size_t n = heap.size();
        const uint32_t moving = heap[i];
        while (true) {
            const size_t left = 2 * i + 1;
            if (left >= n)
                break;
            size_t child = left;
            if (left + 1 < n && less(heap[left + 1], heap[left]))
                child = left + 1;
            if (!less(heap[child], moving))
                break;
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = moving;
    };
    for (size_t i = heap.size() / 2; i-- > 0;)
        siftDown(i);
    while (!heap.empty()) {
        Run& top = runs[heap.front()];
        visit(top.head(), top.start, top.stop, top.row, rank);
        if (++top.position == top.end) {
            heap.front() = heap.back();
            heap.pop_back();
        } else {
            loadKey(top);
        }
        if (heap.size() > 1)
            siftDown(0);
    }
    finishLane(track);
}

void Nester::finishLane(TrackId track)
{
    if (!m_lanes)
        return;
    for (const uint32_t row : m_touchedRows) {
        laneExclusive.push_back({row, track, m_laneRowExclusive[row]});
        m_laneRowExclusive[row] = 0;
        m_laneRowTouched[row] = false;
    }
    m_touchedRows.clear();
}

bool Nester::run(const ProgressRange& progress)
{
    const size_t n = m_events.size();
    if (m_depth)
        m_depth->assign(n, 0);
    rowExclusive.assign(m_capture.rows.size(), 0);
    m_lanes = !m_events.track.empty();
    m_laneRowExclusive.assign(m_capture.rows.size(), 0);
    m_laneRowTouched.assign(m_capture.rows.size(), false);

    // Runs grouped by track, each track's runs in row order.
    std::vector<std::vector<Run>> runsOfTrack;
    for (uint32_t r = 0; r < m_capture.rows.size(); ++r) {
        if (progress.cancelled())
            return false;
        addRuns(r, runsOfTrack);
    }
    runsOfTrack.resize(m_capture.tracks.size());
    uint64_t done = 0;
    for (const TrackId track : tracksInDisplayOrder(m_capture)) {
        auto& runs = runsOfTrack[track.value];
        if (runs.empty())
            continue;
        if (progress.cancelled())
            return false;
        for (const Run& run : runs)
            done += run.end - run.position;
        mergeWalk(runs, track);
        progress.report(n ? double(std::min<uint64_t>(done, n)) / double(n) : 1.0);
    }
    m_gathered.clear();

    if (m_overlaps)
        overlapWarning = Warning{std::to_string(m_overlaps)
                                     + " calls end after the call enclosing them (partial overlap; "
                                       "first: "
                                     + m_overlapExample
                                     + "); they are treated as siblings for exclusive time",
                                 {}};
    return true;
}

} // namespace

bool computeNesting(Capture& capture, const ProgressRange& progress, NestingVisitor* visitor)
{
    assignTracks(capture);
    if (capture.events.size() >= UINT32_MAX) {
        capture.warnings.push_back({"too many calls to compute nesting; exclusive times unavailable", {}});
        return true;
    }
    std::optional<Nester> nester;
    nester.emplace(capture, &capture.events.depth, visitor);
    if (!nester->run(progress))
        return false;
    // Partial overlaps: spread the calls over inferred lanes and nest again, so no call is
    // nested wrongly (overlap_lanes.h). The second walk costs only captures that overlap.
    if (nester->overlapWarning) {
        if (std::optional<Warning> lanes = inferOverlapLanes(capture)) {
            if (!capture.nestingComputed)
                capture.warnings.push_back(std::move(*lanes));
            if (visitor)
                visitor->restart();
            nester.emplace(capture, &capture.events.depth, visitor);
            if (!nester->run(progress))
                return false;
        }
    }
    capture.rowExclusive = std::move(nester->rowExclusive);
    capture.laneExclusive = std::move(nester->laneExclusive);
    if (nester->overlapWarning && !capture.nestingComputed)
        capture.warnings.push_back(std::move(*nester->overlapWarning));
    capture.nestingComputed = true;
    return true;
}

void walkNesting(const Capture& capture, NestingVisitor& visitor)
{
    if (capture.events.size() >= UINT32_MAX)
        return;
    Nester(capture, nullptr, &visitor).run({nullptr, 0, 1});
}

} // namespace spanscope::model
