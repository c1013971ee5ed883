#include "launch_gpu_time.h"

#include "../stats/saturating.h"
#include "gallop_partition.h"

#include <algorithm>
#include <vector>

namespace spanscope::model {

// A column (huge pages, column.h): made afresh for millions of launches, a growing vector
// was faulted in 4 KiB at a time.
Column<std::pair<uint32_t, int64_t>> launchTotals(const Capture& capture)
{
    Column<std::pair<uint32_t, int64_t>> totals;
    const auto& flows = capture.flows;
    totals.reserve(flows.size());
    const auto& e = capture.events;
    for (size_t i = 0; i < flows.size(); ++i) {
        if (flows.kind(i) != FlowKind::Launch)
            continue;
        const uint32_t to = flows.to(i);
        const int64_t duration = e.end[to] >= e.start[to] ? subtractSaturating(e.end[to], e.start[to]) : 0;
        if (!totals.empty() && totals.back().first == flows.from(i))
            totals.back().second = addSaturating(totals.back().second, duration);
        else
            totals.emplace_back(flows.from(i), duration);
    }
    return totals;
}

namespace {

uint32_t trackOf(const Capture& capture, uint32_t event)
{
    return capture.events.track.empty() ? TrackId::kNone : capture.events.track[event];
}

} // namespace

uint64_t matchedLaunches(const Capture& capture)
{
    return launchTotals(capture).size();
}

bool hasLaunchGpuTime(const Capture& capture)
{
    if (capture.events.track.empty())
        return false;
    for (const RegionKind kind : capture.regionKinds)
        if (kind != RegionKind::Cpu)
            return true;
    for (size_t i = 0; i < capture.flows.size(); ++i)
        if (capture.flows.kind(i) == FlowKind::Launch)
            return true;
    return false;
}

void deriveLaunchGpuTime(Capture& capture)
{
    if (!hasLaunchGpuTime(capture))
        return;
    capture.events.gpu.resize(capture.events.size());
    fillLaunchGpuTime(capture, capture.events.gpu.mutableData());
}

void fillLaunchGpuTime(const Capture& capture, int64_t* gpu)
{
    const auto& e = capture.events;
    const auto totals = launchTotals(capture);
    // Per track: launch starts, ascending, with prefix sums of their GPU time. Columns, each
    // made once at its size (see launchTotals).
    struct Launches
    {
        Column<std::pair<int64_t, int64_t>> items; // (start, gpu ns)
        Column<int64_t> prefix;
    };
    std::vector<Launches> launches;
    std::vector<int32_t> launchesOf(capture.tracks.size(), -1); // by track
    std::vector<size_t> launchCount;
    for (const auto& [event, gpu] : totals) {
        const uint32_t track = e.track[event];
        if (track >= launchesOf.size())
            launchesOf.resize(size_t(track) + 1, -1);
        if (launchesOf[track] < 0) {
            launchesOf[track] = int32_t(launches.size());
            launches.emplace_back();
            launchCount.push_back(0);
        }
        ++launchCount[size_t(launchesOf[track])];
    }
    for (size_t l = 0; l < launches.size(); ++l)
        launches[l].items.reserve(launchCount[l]);
    for (const auto& [event, gpu] : totals)
        launches[size_t(launchesOf[e.track[event]])].items.emplace_back(e.start[event], gpu);
    for (Launches& l : launches) {
        std::sort(l.items.begin(), l.items.end());
        l.prefix.resize(l.items.size() + 1);
        l.prefix[0] = 0;
        for (size_t i = 0; i < l.items.size(); ++i)
            l.prefix[i + 1] = addSaturating(l.prefix[i], l.items[i].second);
    }
    // The calls are read in runs of one track in start order, where the first launch at or
    // after a call's start only moves forward: it is searched from where the run's last
    // call left it, by galloping (O(log gap), near memory touched just before), not from the
    // whole track's launches (two searches of a million launches per call at 10 M calls
    // cost seconds). A call that starts earlier than the one before it searches from the
    // beginning, so any order gives the same figures.
    struct Cursor
    {
        size_t first = 0;  // the first launch at or after `start`
        int64_t start = 0; // of the run's last call
    };
    // Where the rows hold every event (they never overlap), each event's GPU time is
    // written once, by the pass that reaches it: the column is not filled first (at 10 M
    // calls that is a pass over 80 MB of its own). GPU rows come last and win.
    uint64_t inRows = 0;
    for (const RegionRow& row : capture.rows)
        inRows += row.count;
    if (inRows != e.size())
        std::fill(gpu, gpu + e.size(), int64_t(-1));
    auto fill = [&](uint64_t i, Cursor& cursor) {
        gpu[i] = -1;
        if (e.end[i] < e.start[i] || e.track[i] >= launchesOf.size() || launchesOf[e.track[i]] < 0)
            return;
        const Launches& l = launches[size_t(launchesOf[e.track[i]])];
        const int64_t start = e.start[i], end = e.end[i];
        if (start < cursor.start)
            cursor.first = 0;
        cursor.start = start;
        cursor.first = gallopPartition(l.items, cursor.first, [start](const auto& x) { return x.first < start; });
        const size_t last = gallopPartition(l.items, cursor.first, [end](const auto& x) { return x.first <= end; });
        if (last > cursor.first)
            gpu[i] = subtractSaturating(l.prefix[last], l.prefix[cursor.first]);
    };
    // A live capture lists its threads' calls in start order (Capture::nestingOrder): each
    // list is one run, its track's launches read once, in order. The calls left over (all,
    // for other sources) are read row by row, a row's calls of one track being a run (rows
    // are sorted by start), each sweeping its track's launches again. The lists are taken
    // on trust no more than the nesting walk takes them: a call they miss is still done.
    const NestingOrder& lists = capture.nestingOrder;
    std::vector<bool> swept;
    if (!lists.empty()) {
        swept.assign(e.size(), false);
        // A list skips about the event columns (its calls are spread over their regions'
        // rows): each call's lines are fetched some calls ahead, else nearly every read of
        // them is a miss to memory.
        constexpr uint64_t kAhead = 16;
        for (const auto& list : lists.tracks) {
            Cursor cursor;
            const uint64_t end = std::min<uint64_t>(list.end, lists.events.size());
            for (uint64_t p = list.begin; p < end; ++p) {
                if (p + kAhead < end)
                    if (const uint32_t ahead = lists.events[p + kAhead]; ahead < e.size()) {
                        __builtin_prefetch(&e.start[ahead]);
                        __builtin_prefetch(&e.end[ahead]);
                        __builtin_prefetch(&e.track[ahead]);
                        __builtin_prefetch(&gpu[ahead], 1);
                    }
                if (const uint32_t i = lists.events[p]; i < e.size()) {
                    fill(i, cursor);
                    swept[i] = true;
                }
            }
        }
    }
    std::vector<std::pair<uint64_t, Cursor>> cursors(launchesOf.size(), {UINT64_MAX, {}}); // by track: (row, cursor)
    for (size_t r = 0; r < capture.rows.size(); ++r) {
        const RegionRow& row = capture.rows[r];
        if (capture.regionKind(row.region) != RegionKind::Cpu) {
            // GPU work is all GPU time: a kernel's GPU time is its duration.
            for (const uint64_t i : capture.rowEvents(row))
                gpu[i] = e.end[i] >= e.start[i] ? subtractSaturating(e.end[i], e.start[i]) : -1;
            continue;
        }
        for (const uint64_t i : capture.rowEvents(row)) {
            if (!swept.empty() && swept[i])
                continue;
            if (e.track[i] >= cursors.size()) {
                gpu[i] = -1;
                continue;
            }
            auto& [cursorRow, cursor] = cursors[e.track[i]];
            if (cursorRow != r)
                cursorRow = r, cursor = {};
            fill(i, cursor);
        }
    }
}

std::optional<std::pair<int64_t, int64_t>> projectedGpuSpan(const Capture& capture, uint32_t row,
                                                            uint32_t event)
{
    const auto& e = capture.events;
    const auto& flows = capture.flows;
    if (event >= e.size() || e.end[event] < e.start[event])
        return std::nullopt;
    const uint32_t track = capture.trackOfEvent(row, event).value;
    std::optional<std::pair<int64_t, int64_t>> span;
    for (size_t i = 0; i < flows.size(); ++i) {
        if (flows.kind(i) != FlowKind::Launch)
            continue;
        const uint32_t from = flows.from(i), to = flows.to(i);
        if (trackOf(capture, from) != track || e.start[from] < e.start[event] ||
            e.start[from] > e.end[event])
            continue;
        if (e.end[to] < e.start[to])
            continue;
        if (!span)
            span = std::make_pair(e.start[to], e.end[to]);
        span->first = std::min(span->first, e.start[to]);
        span->second = std::max(span->second, e.end[to]);
    }
    return span;
}

} // namespace spanscope::model
