// TrackWalker: the nesting walk over one track's runs (nesting_walk.h).
#include "nesting_walk.h"

#include <algorithm>

namespace spanscope::model::nesting_walk {

[[gnu::always_inline]] inline void TrackWalker::visit(EventIndex e, int64_t start, int64_t end, uint32_t row,
                                                      int32_t rank, uint64_t position)
{
    if (end == m_openEnd)
        ++endsAtOpenEnd;
    else
        maxEnd = std::max(maxEnd, end);
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
    if (m_depth) {
        if (e >= m_sharedBelow)
            m_depth[e] = depth;
        else if (m_depth[e] != depth)
            depthChanges.emplace_back(e, depth);
    }
    if (m_visitor)
        m_visitor->call(e, depth, start, end);
    m_stack.push_back({start, end, row, e, position});
}

void TrackWalker::walk(std::vector<Run>& runs, TrackId track, const std::vector<Open>& open)
{
    m_stack = open;
    if (m_visitor)
        m_visitor->track(track);
    lastStart = INT64_MIN;
    lastStop = INT64_MAX;
    maxEnd = INT64_MIN;
    endsAtOpenEnd = 0;
    merge(runs, m_capture.tracks[track.value].rank);
    finishLane(track);
}

void TrackWalker::takeCheckpoint(const std::vector<Run>& runs)
{
    Checkpoint& c = m_checkpoint;
    c.positions.resize(runs.size());
    for (size_t r = 0; r < runs.size(); ++r)
        c.positions[r] = runs[r].position;
    c.stack = m_stack;
    c.lastStart = lastStart;
    c.lastStop = lastStop;
    c.lastEvent = lastEvent;
    c.maxEnd = maxEnd;
    c.endsAtOpenEnd = endsAtOpenEnd;
    c.lanes.clear();
    for (const uint32_t row : m_touchedRows)
        c.lanes.emplace_back(row, m_laneRowExclusive[row]);
    if (m_visitor)
        m_visitor->checkpoint();
}

void TrackWalker::resume(std::vector<Run>& runs, TrackId track, const TrackCarry& carry,
                         const std::vector<int64_t>& ends, const std::vector<std::pair<uint64_t, uint64_t>>& lists)
{
    const NestingOrder& listing = m_capture.nestingOrder;
    m_stack.clear();
    if (m_visitor)
        m_visitor->resumeTrack(track, carry);
    const int32_t rank = m_capture.tracks[track.value].rank;
    maxEnd = carry.maxClosedEnd;
    endsAtOpenEnd = 0;
    lastStart = carry.lastStart;
    lastStop = carry.lastStop;
    // The rows in the order the walk first met them, as the whole walk lists them.
    for (const auto& [key, ns] : carry.exclusive) {
        const uint32_t row = listing.rowOfKey[key];
        totals.rowExclusive[row] = addSaturating(totals.rowExclusive[row], ns);
        addLaneExclusive(row, ns);
    }
    for (size_t i = 0; i < carry.stack.size(); ++i) {
        const TrackCarry::Entry& entry = carry.stack[i];
        const uint64_t at = lists[entry.list].first + entry.position;
        const EventIndex e = listing.events[at];
        if (entry.open) { // shown to end at the last snapshot's end: its time counts now
            visit(e, entry.start, ends[i], listing.rows[at], rank, at);
            if (entry.event == carry.lastEvent)
                lastStop = ends[i];
        } else {
            m_stack.push_back({entry.start, entry.end, listing.rows[at], e, at});
        }
    }
    merge(runs, rank);
    finishLane(track);
}

void TrackWalker::merge(std::vector<Run>& runs, int32_t rank)
{
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
    // The last call walked, in locals while the loop runs.
    int64_t previousStart = lastStart, previousStop = lastStop;
    uint32_t previousEvent = lastEvent;
    // The checkpoint is taken before the first call starting at or after this.
    bool pending = m_keepCheckpoints;
    int64_t checkpointBefore = pending ? m_cut : INT64_MAX;
    auto checkpoint = [&] {
        if (!pending)
            return;
        lastStart = previousStart;
        lastStop = previousStop;
        lastEvent = previousEvent;
        takeCheckpoint(runs);
        pending = false;
        checkpointBefore = INT64_MAX;
    };
    while (m_keys[winner].tie != kDone.tie) {
        Run& top = runs[winner];
        HeadKey& key = m_keys[winner];
        if (key.start >= checkpointBefore) [[unlikely]]
            checkpoint();
        if ((key.start < previousStart) | ((key.start == previousStart) & (key.stop > previousStop))
            | (key.stop < key.start)) {
            totals.disordered = true;
            break;
        }
        previousStart = key.start;
        previousStop = key.stop;
        previousEvent = top.head();
        visit(previousEvent, key.start, key.stop, top.rowAt(top.position), rank, top.position);
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
    lastStart = previousStart;
    lastStop = previousStop;
    lastEvent = previousEvent;
    checkpoint(); // at the end, if no call started after the cut
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

} // namespace spanscope::model::nesting_walk
