#include "nesting.h"

#include <algorithm>
#include <map>
#include <queue>
#include <unordered_map>

namespace spanscope::model {

namespace {

using EventIndex = uint32_t;

// Calls of one lane, gathered row after row; each row's calls form a run that is usually
// already in (start asc, end desc) order.
struct Lane
{
    std::vector<EventIndex> events;
    std::vector<size_t> runStarts; // index into events where each run begins
};

class Nester
{
public:
    explicit Nester(Capture& capture) : m_capture(capture), m_events(capture.events) {}

    bool run(const ProgressRange& progress);

private:
    bool before(EventIndex a, EventIndex b) const
    {
        const int64_t sa = m_events.start[a], sb = m_events.start[b];
        if (sa != sb)
            return sa < sb;
        return m_events.end[a] > m_events.end[b];
    }
    void sortRuns(Lane& lane) const;
    std::vector<EventIndex> merge(const Lane& lane) const;
    void walk(const std::vector<EventIndex>& order, int64_t laneId, int32_t rank);

    Capture& m_capture;
    EventColumns& m_events;
    void addLaneExclusive(uint32_t row, int64_t ns)
    {
        if (!m_lanes)
            return;
        if (!m_laneRowTouched[row]) {
            m_laneRowTouched[row] = true;
            m_touchedRows.push_back(row);
        }
        m_laneRowExclusive[row] += ns;
    }

    std::vector<uint32_t> m_rowOfEvent;
    bool m_lanes = false;
    // Exclusive ns per row on the lane being walked, flushed to laneExclusive after it.
    std::vector<int64_t> m_laneRowExclusive;
    std::vector<bool> m_laneRowTouched;
    std::vector<uint32_t> m_touchedRows;
    uint64_t m_overlaps = 0;
    std::string m_overlapExample;
};

void Nester::sortRuns(Lane& lane) const
{
    const auto less = [this](EventIndex a, EventIndex b) { return before(a, b); };
    for (size_t r = 0; r < lane.runStarts.size(); ++r) {
        const auto begin = lane.events.begin() + lane.runStarts[r];
        const auto end = r + 1 < lane.runStarts.size() ? lane.events.begin() + lane.runStarts[r + 1]
                                                       : lane.events.end();
        if (!std::is_sorted(begin, end, less))
            std::stable_sort(begin, end, less);
    }
}

std::vector<EventIndex> Nester::merge(const Lane& lane) const
{
    const size_t runs = lane.runStarts.size();
    if (runs <= 1)
        return lane.events;
    struct Head
    {
        size_t position, end, run;
    };
    // Min-heap by (start asc, end desc, run asc): the run order keeps ties in input order.
    const auto later = [this, &lane](const Head& a, const Head& b) {
        const EventIndex ea = lane.events[a.position], eb = lane.events[b.position];
        if (before(ea, eb))
            return false;
        if (before(eb, ea))
            return true;
        return a.run > b.run;
    };
    std::priority_queue<Head, std::vector<Head>, decltype(later)> heads(later);
    for (size_t r = 0; r < runs; ++r) {
        const size_t begin = lane.runStarts[r];
        const size_t end = r + 1 < runs ? lane.runStarts[r + 1] : lane.events.size();
        if (begin < end)
            heads.push({begin, end, r});
    }
    std::vector<EventIndex> order;
    order.reserve(lane.events.size());
    while (!heads.empty()) {
        Head head = heads.top();
        heads.pop();
        order.push_back(lane.events[head.position]);
        // Drain this run while it stays ahead of every other head (common with few runs).
        while (++head.position < head.end) {
            if (!heads.empty() && later(head, heads.top()))
                break;
            order.push_back(lane.events[head.position]);
        }
        if (head.position < head.end)
            heads.push(head);
    }
    return order;
}

void Nester::walk(const std::vector<EventIndex>& order, int64_t laneId, int32_t rank)
{
    auto& exclusive = m_capture.rowExclusive;
    std::vector<EventIndex> stack;
    for (const EventIndex e : order) {
        const int64_t start = m_events.start[e];
        const int64_t end = m_events.end[e];
        while (!stack.empty()) {
            const EventIndex top = stack.back();
            const int64_t topStart = m_events.start[top], topEnd = m_events.end[top];
            const bool closed = topEnd < start || (topEnd == start && topEnd > topStart);
            if (!closed)
                break;
            stack.pop_back();
        }
        if (!stack.empty() && m_events.end[stack.back()] < end) {
            if (m_overlaps++ == 0)
                m_overlapExample = "'" + m_capture.regionName(m_capture.rows[m_rowOfEvent[e]].region)
                                   + "' ends after the enclosing '"
                                   + m_capture.regionName(m_capture.rows[m_rowOfEvent[stack.back()]].region)
                                   + "' on rank " + std::to_string(rank);
            while (!stack.empty() && m_events.end[stack.back()] < end)
                stack.pop_back();
        }
        const int64_t duration = end - start;
        const uint32_t row = m_rowOfEvent[e];
        exclusive[row] += duration;
        addLaneExclusive(row, duration);
        if (!stack.empty()) {
            const uint32_t parentRow = m_rowOfEvent[stack.back()];
            exclusive[parentRow] -= duration;
            addLaneExclusive(parentRow, -duration);
        }
        m_events.depth[e] = uint16_t(std::min<size_t>(stack.size(), UINT16_MAX));
        stack.push_back(e);
    }
    if (m_lanes) {
        for (const uint32_t row : m_touchedRows) {
            m_capture.laneExclusive.push_back({row, laneId, m_laneRowExclusive[row]});
            m_laneRowExclusive[row] = 0;
            m_laneRowTouched[row] = false;
        }
        m_touchedRows.clear();
    }
}

bool Nester::run(const ProgressRange& progress)
{
    const size_t n = m_events.size();
    m_events.depth.assign(n, 0);
    m_capture.rowExclusive.assign(m_capture.rows.size(), 0);
    m_capture.laneExclusive.clear();
    m_lanes = m_events.hasThreads() || m_events.hasTasks();
    m_laneRowExclusive.assign(m_capture.rows.size(), 0);
    m_laneRowTouched.assign(m_capture.rows.size(), false);
    m_rowOfEvent.assign(n, 0);
    for (uint32_t r = 0; r < m_capture.rows.size(); ++r) {
        const auto& row = m_capture.rows[r];
        std::fill_n(m_rowOfEvent.begin() + int64_t(row.offset), row.count, r);
    }

    // Rows grouped by rank, each rank's rows in file order.
    std::map<int32_t, std::vector<uint32_t>> rowsOfRank;
    for (uint32_t r = 0; r < m_capture.rows.size(); ++r)
        rowsOfRank[m_capture.rows[r].rank].push_back(r);

    size_t done = 0;
    for (const auto& [rank, rows] : rowsOfRank) {
        if (progress.cancelled())
            return false;
        std::unordered_map<int64_t, Lane> lanes;
        std::vector<int64_t> laneOrder; // first appearance, for deterministic output
        for (const uint32_t r : rows) {
            const auto& row = m_capture.rows[r];
            int64_t currentLane = INT64_MIN;
            Lane* lane = nullptr;
            for (uint64_t i = row.offset; i < row.offset + row.count; ++i) {
                if (m_events.end[i] < m_events.start[i])
                    continue; // never closed: no part in nesting
                const int64_t key =
                    m_lanes ? laneKey(m_events.hasTasks() ? m_events.taskIds[i] : -1,
                                      m_events.hasThreads() ? m_events.threadIds[i] : -1)
                            : -1;
                if (key != currentLane || !lane) {
                    auto [it, inserted] = lanes.try_emplace(key);
                    if (inserted)
                        laneOrder.push_back(key);
                    lane = &it->second;
                    currentLane = key;
                    // A new run whenever the row changes; within a row, calls of one lane
                    // keep their order even when other lanes interleave.
                    if (lane->events.empty() || m_rowOfEvent[lane->events.back()] != r)
                        lane->runStarts.push_back(lane->events.size());
                }
                lane->events.push_back(EventIndex(i));
            }
        }
        for (const int64_t key : laneOrder) {
            Lane& lane = lanes[key];
            sortRuns(lane);
            walk(merge(lane), key, rank);
            done += lane.events.size();
            lane = Lane{};
            progress.report(n ? double(done) / double(n) : 1.0);
        }
    }

    if (m_overlaps)
        m_capture.warnings.push_back({std::to_string(m_overlaps)
                                          + " calls end after the call enclosing them (partial "
                                            "overlap; first: "
                                          + m_overlapExample
                                          + "); they are treated as siblings for exclusive time",
                                      {}});
    m_capture.nestingComputed = true;
    return true;
}

} // namespace

bool computeNesting(Capture& capture, const ProgressRange& progress)
{
    if (capture.events.size() >= UINT32_MAX) {
        capture.warnings.push_back({"too many calls to compute nesting; exclusive times unavailable", {}});
        return true;
    }
    return Nester(capture).run(progress);
}

} // namespace spanscope::model
