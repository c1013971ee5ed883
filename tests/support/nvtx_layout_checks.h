#pragma once
// Checks that a live snapshot laid out from the last one's memo (appended, sharing stores)
// holds what one laid out afresh holds: rows and columns, tracks, nesting lists, and the
// calls that kept their events; and that the nesting walk makes of a snapshot's lists
// what it makes of its rows (tst_nvtx_layout, tst_cuda_nesting_lists).
#include "model/capture.h"
#include "model/event_layout.h"
#include "model/stats/nesting.h"
#include "model/track.h"

#include <QTest>
#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace spanscope::testing {

using namespace spanscope::model;

// The two snapshots lay out the same calls the same way: rows, every per-call column, the
// open and cross-thread lists, the marks' enclosing calls. `appended` may hold its rows in
// several spans with events no row holds (laid out by appending): it is compared as laid
// out in one span per row.
inline void checkSameLayout(const Capture& appended, const Capture& fresh)
{
    const auto laidOut = withRowsInOneSpan(appended);
    const Capture& kept = *laidOut;
    // The string table, started from the memo's region names, holds what one made afresh
    // holds, under the same ids.
    QCOMPARE(kept.strings.size(), fresh.strings.size());
    for (uint32_t id = 0; id < kept.strings.size(); ++id)
        QCOMPARE(kept.strings.text(NameId{id}), fresh.strings.text(NameId{id}));
    QVERIFY(kept.regionNames == fresh.regionNames);
    QCOMPARE(kept.rows.size(), fresh.rows.size());
    for (size_t r = 0; r < kept.rows.size(); ++r) {
        QCOMPARE(kept.rows[r].region, fresh.rows[r].region);
        QCOMPARE(kept.rows[r].firstEvent, fresh.rows[r].firstEvent);
        QCOMPARE(kept.rows[r].count, fresh.rows[r].count);
    }
    auto same = [](const auto& x, const auto& y) {
        return std::equal(x.begin(), x.end(), y.begin(), y.end());
    };
    const EventColumns &x = kept.events, &y = fresh.events;
    QVERIFY(same(x.start, y.start));
    QVERIFY(same(x.end, y.end));
    QVERIFY(same(x.threadIds, y.threadIds));
    QVERIFY(same(x.taskIds, y.taskIds));
    QVERIFY(same(x.track, y.track));
    QVERIFY(same(kept.nvtx.callDomains, fresh.nvtx.callDomains));
    QVERIFY(same(kept.nvtx.callCategories, fresh.nvtx.callCategories));
    QVERIFY(same(kept.nvtx.closedAtEnd, fresh.nvtx.closedAtEnd));
    QCOMPARE(kept.nvtx.crossThreadEnds.size(), fresh.nvtx.crossThreadEnds.size());
    for (size_t i = 0; i < kept.nvtx.crossThreadEnds.size(); ++i) {
        QCOMPARE(kept.nvtx.crossThreadEnds[i].event, fresh.nvtx.crossThreadEnds[i].event);
        QCOMPARE(kept.nvtx.crossThreadEnds[i].endThread, fresh.nvtx.crossThreadEnds[i].endThread);
    }
    QCOMPARE(kept.nvtx.marks.size(), fresh.nvtx.marks.size());
    for (size_t i = 0; i < kept.nvtx.marks.size(); ++i)
        QCOMPARE(kept.nvtx.marks[i].enclosingEvent, fresh.nvtx.marks[i].enclosingEvent);
}

// Every call held by a CPU row is on the track assignTracks() gives it (a track of the same
// kind, thread and task: the snapshot numbers its tracks so that they hold from one snapshot
// to the next), and the CPU tracks are those assignTracks() makes.
inline void checkTracksAsAssigned(const Capture& c)
{
    Capture assigned = c;
    assigned.tracks.clear();
    assigned.events.track.clear();
    assignTracks(assigned);
    auto identity = [](const Track& t) { return std::tuple(t.kind, t.rank, t.thread, t.task); };
    for (const RegionRow& row : c.rows) {
        if (c.regionKind(row.region) != RegionKind::Cpu)
            continue;
        for (const uint64_t e : c.rowEvents(row)) {
            QVERIFY(c.events.track[e] < c.tracks.size());
            QVERIFY(identity(c.tracks[c.events.track[e]]) ==
                    identity(assigned.tracks[assigned.events.track[e]]));
        }
    }
    // The GPU's derived lanes come with the snapshot's own tracks (model/gpu/gpu_lanes.h).
    std::set<uint32_t> derived;
    for (const CounterSeries& series : c.counters)
        if (series.derived)
            derived.insert(series.track.value);
    std::set<std::tuple<TrackKind, int32_t, int64_t, int64_t>> cpu, want;
    for (size_t t = 0; t < c.tracks.size(); ++t)
        if (!isGpuTrack(c.tracks[t].kind) && !derived.count(uint32_t(t)))
            QVERIFY(cpu.insert(identity(c.tracks[t])).second); // each once
    for (const Track& t : assigned.tracks)
        want.insert(identity(t));
    QVERIFY(cpu == want);
}

// Every call of a GPU row is on a GPU track, each GPU track made once, and every GPU track
// but a device's own holds some work.
inline void checkGpuTracks(const Capture& c)
{
    std::set<std::tuple<TrackKind, int32_t, int64_t, int64_t>> tracks;
    std::vector<bool> used(c.tracks.size(), false);
    for (const Track& t : c.tracks)
        if (isGpuTrack(t.kind))
            QVERIFY(tracks.insert(std::tuple(t.kind, t.device, t.stream, t.sortKey)).second);
    for (const RegionRow& row : c.rows) {
        if (c.regionKind(row.region) == RegionKind::Cpu)
            continue;
        for (const uint64_t e : c.rowEvents(row)) {
            QVERIFY(c.events.track[e] < c.tracks.size());
            QVERIFY(isGpuTrack(c.tracks[c.events.track[e]].kind));
            used[c.events.track[e]] = true;
        }
    }
    for (size_t t = 0; t < c.tracks.size(); ++t)
        if (c.tracks[t].kind == TrackKind::GpuStream)
            QVERIFY(used[t]);
}

// The two snapshots list the same calls (by start, end and region) in each listed track,
// every listed event held by the row the lists say, and the same rows as wholly listed.
inline void checkSameLists(const Capture& kept, const Capture& fresh)
{
    const NestingOrder &x = kept.nestingOrder, &y = fresh.nestingOrder;
    QCOMPARE(x.tracks.size(), y.tracks.size());
    auto rowOfEvents = [](const Capture& c) {
        std::vector<uint32_t> rowOf(c.events.size(), UINT32_MAX);
        for (uint32_t r = 0; r < c.rows.size(); ++r)
            for (const uint64_t e : c.rowEvents(c.rows[r]))
                rowOf[e] = r;
        return rowOf;
    };
    const auto keptRowOf = rowOfEvents(kept), freshRowOf = rowOfEvents(fresh);
    for (size_t t = 0; t < x.tracks.size(); ++t) {
        const auto &a = x.tracks[t], &b = y.tracks[t];
        QCOMPARE(a.track, b.track);
        QCOMPARE(a.end - a.begin, b.end - b.begin);
        for (uint64_t p = 0; p < a.end - a.begin; ++p) {
            const uint32_t e = x.events[a.begin + p], f = y.events[b.begin + p];
            QCOMPARE(keptRowOf[e], x.rows[a.begin + p]); // held, and by that row
            QCOMPARE(freshRowOf[f], y.rows[b.begin + p]);
            QCOMPARE(kept.events.start[e], fresh.events.start[f]);
            QCOMPARE(kept.events.end[e], fresh.events.end[f]);
            QCOMPARE(kept.rows[keptRowOf[e]].region, fresh.rows[freshRowOf[f]].region);
        }
    }
    QVERIFY(x.rowListed == y.rowListed);
}

// A call closed in `before` is in `after` (laid out from it) at the same event, in a row of
// the same region, with the same start, end and thread, or (taken along behind a call that
// landed before it) its event is held by no row of `after`; every event `after` adds is
// past those of `before`. Returns how many closed calls kept their events.
inline uint64_t checkClosedCallsStay(const Capture& before, const Capture& after)
{
    std::vector<int64_t> regionOfEvent(after.events.size(), -1);
    for (const RegionRow& row : after.rows)
        for (const uint64_t e : after.rowEvents(row))
            regionOfEvent[e] = row.region;
    std::vector<bool> heldBefore(before.events.size(), false);
    const std::set<uint64_t> open(before.nvtx.closedAtEnd.begin(), before.nvtx.closedAtEnd.end());
    uint64_t stayed = 0;
    for (const RegionRow& row : before.rows)
        for (const uint64_t e : before.rowEvents(row)) {
            heldBefore[e] = true;
            if (open.count(e) || regionOfEvent[e] < 0)
                continue;
            if (regionOfEvent[e] != int64_t(row.region) ||
                after.events.start[e] != before.events.start[e] ||
                after.events.end[e] != before.events.end[e] ||
                after.events.threadIds[e] != before.events.threadIds[e]) {
                qWarning("event %llu (region %u) changed", (unsigned long long)e, row.region);
                return 0;
            }
            ++stayed;
        }
    // No event of `before` that no row held there is held now.
    for (uint64_t e = 0; e < before.events.size(); ++e)
        if (!heldBefore[e] && regionOfEvent[e] >= 0) {
            qWarning("event %llu, left behind, is held again", (unsigned long long)e);
            return 0;
        }
    return stayed;
}

// Feeds a random live job a round at a time: threads whose clocks run apart (so a round
// brings calls that start before calls of earlier rounds), push ranges left open over
// rounds and closed later, children starting with their parent, start/end ranges ended on
// other threads (some before they start), GPU kernels arriving out of order, marks, and
// new region and kernel names in every round (the GPU rows' numbering moves).

// Every call the nesting walk gives a visitor, in order, as text.
class WalkRecorder : public NestingVisitor
{
public:
    void track(TrackId track) override { seen += "t" + std::to_string(track.value) + " "; }
    void call(uint32_t event, uint16_t depth, int64_t, int64_t) override
    {
        seen += std::to_string(event) + ":" + std::to_string(depth) + " ";
    }
    void unclosed(uint32_t event, TrackId) override { seen += "u" + std::to_string(event) + " "; }
    void restart() override { seen.clear(); }
    std::string seen;
};

// What the nesting walk made of a capture: depths, exclusive times per row and per lane
// (entry by entry), warnings, and the walk as a visitor saw it.
inline std::string nestingOf(Capture& c, const NestingOptions& options)
{
    WalkRecorder walk;
    if (!computeNesting(c, {nullptr, 0, 1}, &walk, options))
        return "cancelled";
    std::string out = walk.seen + "\ndepths";
    for (const uint16_t depth : c.events.depth)
        out += " " + std::to_string(depth);
    out += "\nrows";
    for (const int64_t ns : c.rowExclusive)
        out += " " + std::to_string(ns);
    out += "\nlanes";
    for (const LaneExclusive& lane : c.laneExclusive)
        out += " " + std::to_string(lane.track.value) + "/" + std::to_string(lane.row) + "=" + std::to_string(lane.exclusiveNs);
    for (const Warning& warning : c.warnings)
        out += "\n" + warning.message;
    return out;
}

// The nesting walk reads a snapshot's lists (Capture::nestingOrder) to the same result as
// the rows, serially and on both cores; lists with a call missing or two swapped are
// dropped for the rows'.
inline void compareListsWithRows(const Capture& snapshot)
{
    for (const auto& [name, options] : {std::pair{"serial", UINT64_MAX}, std::pair{"both cores", uint64_t(0)}}) {
        NestingOptions walk;
        walk.parallelMinimumCalls = options;
        Capture fromRows = snapshot;
        fromRows.nestingOrder = {};
        const std::string expected = nestingOf(fromRows, walk);
        Capture listed = snapshot;
        QCOMPARE(nestingOf(listed, walk), expected);
        QVERIFY2(!listed.nestingOrder.empty(), name); // the lists were read
        QVERIFY(expected.find(":3 ") != std::string::npos);

        Capture missing = snapshot;
        missing.nestingOrder.tracks.back().end -= 1;
        QCOMPARE(nestingOf(missing, walk), expected);
        QVERIFY(missing.nestingOrder.empty());

        for (const auto& list : snapshot.nestingOrder.tracks) {
            Capture swapped = snapshot;
            uint32_t* events = swapped.nestingOrder.events.mutableData();
            std::swap(events[list.begin], events[list.end - 1]);
            QCOMPARE(nestingOf(swapped, walk), expected);
            QVERIFY(swapped.nestingOrder.empty());
        }
    }
}

} // namespace spanscope::testing
