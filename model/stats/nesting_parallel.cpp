// Nester's walk on two cores: tracks shared out, the biggest cut in two at a time inside
// them (nesting_walk.h).
#include "nesting_walk.h"

#include "../share_out.h"

#include <algorithm>
#include <numeric>

namespace spanscope::model::nesting_walk {

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
                candidates.push_back(
                    {{m_events.start[last], m_events.end[last], run.rowAt(low - 1), last, low - 1}, run.order});
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
        whole.listed = listedOf(track);
        if (whole.calls == 0 && !(whole.listed && whole.listed->carry))
            continue;
        if (!whole.listed && whole.calls >= total / 4 && whole.calls >= 2) {
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
    TrackWalker walkers[2] = {{m_capture, m_depthOut, nullptr}, {m_capture, m_depthOut, nullptr}};
    for (TrackWalker& walker : walkers)
        walker.shareDepthsBelow(m_sharedBelow);
    shareOut(units.size(), [&](size_t item, int worker) {
        TrackWalker& walker = walkers[worker];
        if (progress.cancelled() || walker.totals.overlaps > 0 || walker.totals.disordered)
            return; // an overlap: the serial walk redoes everything
        WalkUnit& unit = units[schedule[item]];
        walker.useVisitor(unit.visitor.get());
        unit.worker = worker;
        unit.lanesBegin = walker.totals.laneExclusive.size();
        walkTrack(walker, unit.runs, unit.track, unit.open, unit.listed);
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
    for (TrackWalker& walker : walkers)
        m_depthChanges.insert(m_depthChanges.end(), walker.depthChanges.begin(), walker.depthChanges.end());
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

} // namespace spanscope::model::nesting_walk
