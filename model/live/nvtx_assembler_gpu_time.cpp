// The GPU time of CPU calls in a live snapshot (NvtxAssembler::addGpuTimes), counted again
// only where it can have changed since the snapshot before.
//
// A CPU call's GPU time is the summed GPU ns of the launches on its track starting within
// it (model/gpu/launch_gpu_time.h). From one update to the next, it changes for the calls
// appended (new, open then, or taken along to new events), and for the calls around a
// launch whose work changed: work arrived for it, or its id got another launch (a runtime
// call after its driver call). On a listed thread those calls end at or after the earliest
// such launch: its pushes popped since then (Thread::pops, in pop order) and its CUDA
// calls starting up to its longest CUDA call before it (Thread::cudaCalls, by start). Each
// track's launches are kept by start with their sums before, rewritten from the first
// that changed. Each row's sum of the column (Capture::rowGpuTimes, which the statistics
// read instead of every call's) is kept the same way: every value written is taken out of
// its row's sum as it was and put in as it is.
#include "nvtx_assembler.h"

#include "../gpu/gallop_partition.h"
#include "../gpu/launch_gpu_time.h"
#include "../stats/saturating.h"

#include <algorithm>

namespace spanscope::model::live {

namespace {

using Times = NvtxAssembler::LayoutMemo::GpuTables::Times;

// Sums before each launch of `track` from launch `from` on.
void sumFrom(Times::Track& track, size_t from)
{
    track.before.resize(track.launches.size() + 1);
    track.before[0] = 0;
    for (size_t i = from; i < track.launches.size(); ++i)
        track.before[i + 1] = addSaturating(track.before[i], track.launches[i].gpuNs);
}

// The GPU ns of the launches starting in [start, end], or -1 where none does.
int64_t gpuWithin(const Times::Track& track, int64_t start, int64_t end)
{
    const auto& l = track.launches;
    const auto first = std::partition_point(l.begin(), l.end(), [&](const Times::Launch& x) { return x.start < start; });
    const auto last = std::partition_point(first, l.end(), [&](const Times::Launch& x) { return x.start <= end; });
    if (last == first)
        return -1;
    return subtractSaturating(track.before[size_t(last - l.begin())], track.before[size_t(first - l.begin())]);
}

// Applies launches removed and added (each by key) to `track`: its launches from the first
// changed one are merged again and summed again. Returns the earliest and latest start
// changed.
std::pair<int64_t, int64_t> change(Times::Track& track, std::vector<Times::Launch>& removed,
                                   std::vector<Times::Launch>& added)
{
    auto byKey = [](const Times::Launch& a, const Times::Launch& b) { return a.key() < b.key(); };
    std::sort(removed.begin(), removed.end(), byKey);
    std::sort(added.begin(), added.end(), byKey);
    Times::Launch first = added.empty() ? removed.front() : removed.empty() ? added.front()
                                                                            : std::min(removed.front(), added.front(), byKey);
    const int64_t latest = std::max(removed.empty() ? INT64_MIN : removed.back().start,
                                    added.empty() ? INT64_MIN : added.back().start);
    auto& launches = track.launches;
    const size_t from = size_t(std::lower_bound(launches.begin(), launches.end(), first, byKey) - launches.begin());
    const std::vector<Times::Launch> after(launches.begin() + std::ptrdiff_t(from), launches.end());
    launches.resize(from);
    size_t r = 0, a = 0;
    for (const Times::Launch& launch : after) {
        while (r < removed.size() && removed[r].key() < launch.key())
            ++r;
        if (r < removed.size() && removed[r].key() == launch.key()) {
            ++r;
            continue;
        }
        for (; a < added.size() && added[a].key() < launch.key(); ++a)
            launches.push_back(added[a]);
        launches.push_back(launch);
    }
    launches.insert(launches.end(), added.begin() + std::ptrdiff_t(a), added.end());
    sumFrom(track, from);
    return {first.start, latest};
}

} // namespace

void NvtxAssembler::addGpuTimes(Capture& c, const Column<uint32_t>& order, const Column<uint32_t>& eventOf,
                                const std::vector<uint32_t>& rowKeys,
                                const std::vector<std::pair<uint32_t, uint32_t>>& moved, uint64_t keptEvents,
                                const LaunchChanges& changes, LayoutMemo::GpuTables& tables) const
{
    Times& times = tables.times;
    auto& e = c.events;
    if (!hasLaunchGpuTime(c)) {
        times = {};
        return;
    }
    const size_t events = e.size();
    auto trackOfCall = [&](uint32_t call) { return e.track[eventOf[call]]; };
    // The rows' sums are kept by row key, which stays a row's from one snapshot to the next
    // (a call's: its region's CPU row, or its GPU row for work without a thread).
    auto keyOf = [](const Call& call) { return NestingOrder::rowKey(call.region, call.thread == kNoThread); };
    auto& sums = times.rowSums;
    sums.resize(std::max(sums.size(), 2 * m_regionNames.size()));
    // Each row's sum as the statistics read it.
    auto publishSums = [&] {
        c.rowGpuTimes.resize(c.rows.size());
        for (size_t r = 0; r < c.rows.size(); ++r) {
            const Times::RowSum& sum = sums[rowKeys[r]];
            c.rowGpuTimes[r] = {sum.calls, sum.total > INT64_MAX ? INT64_MAX : int64_t(sum.total)};
        }
    };
    // Every track's launches, and every event's GPU time, afresh.
    auto whole = [&] {
        times.tracks.assign(c.tracks.size(), {});
        for (const auto& [event, gpuNs] : launchTotals(c)) {
            if (e.track[event] >= times.tracks.size())
                times.tracks.resize(size_t(e.track[event]) + 1);
            times.tracks[e.track[event]].launches.push_back({e.start[event], order[event], gpuNs});
        }
        for (Times::Track& track : times.tracks) {
            std::sort(track.launches.begin(), track.launches.end(),
                      [](const Times::Launch& a, const Times::Launch& b) { return a.key() < b.key(); });
            sumFrom(track, 0);
        }
        times.column.next(0, events);
        fillLaunchGpuTime(c, times.column.data());
        e.gpu = times.column.column();
        sums.assign(sums.size(), {});
        for (size_t r = 0; r < c.rows.size(); ++r)
            for (const EventSpan& span : c.rowEvents(c.rows[r]).spans())
                for (uint64_t k = span.begin; k < span.end; ++k)
                    sums[rowKeys[r]].add(times.column[k]);
        publishSums();
        ++times.countedWhole;
    };
    if (keptEvents == 0 || times.column.size() != keptEvents || keptEvents > events) {
        whole();
        return;
    }

    // The launches whose work changed: each id's launch then (where work named it then) is
    // taken out, its launch now (where work names it now) put in with all its work.
    std::vector<std::pair<uint32_t, uint32_t>> ids = changes.ids;
    std::stable_sort(ids.begin(), ids.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    ids.erase(std::unique(ids.begin(), ids.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
              ids.end()); // an id's first entry holds its launch before the update
    std::vector<std::vector<Times::Launch>> removed(times.tracks.size()), added(times.tracks.size());
    auto put = [&](std::vector<std::vector<Times::Launch>>& to, uint32_t call, int64_t gpuNs) {
        const uint32_t track = trackOfCall(call);
        if (track >= to.size()) {
            removed.resize(size_t(track) + 1);
            added.resize(size_t(track) + 1);
        }
        to[track].push_back({m_calls[call].start, call, gpuNs});
    };
    for (const auto& [id, before] : ids) {
        bool workThen = false, work = false;
        int64_t gpuNs = 0;
        for (uint32_t w = tables.launches.lastWork(id); w != LaunchTable::kNone; w = tables.previousWork[w]) {
            work = true;
            workThen = workThen || w < changes.workBefore;
            const Call& done = m_calls[m_gpuWork[w].call];
            gpuNs = addSaturating(gpuNs, done.end >= done.start ? subtractSaturating(done.end, done.start) : 0);
        }
        if (workThen && before != LaunchTable::kNone)
            put(removed, before, 0);
        if (const uint32_t now = tables.launches.find(id); work && now != LaunchTable::kNone)
            put(added, now, gpuNs);
    }
    if (times.tracks.size() < added.size())
        times.tracks.resize(added.size());
    struct Changed
    {
        uint32_t track;
        int64_t earliest, latest;
    };
    std::vector<Changed> changed;
    for (uint32_t t = 0; t < added.size(); ++t)
        if (!removed[t].empty() || !added[t].empty()) {
            const auto [earliest, latest] = change(times.tracks[t], removed[t], added[t]);
            changed.push_back({t, earliest, latest});
        }
    // Counted again from the lists only where every track with launches is a listed
    // thread's whose pops came in order.
    std::vector<uint32_t> threadOfTrack(times.tracks.size(), kNoThread);
    for (uint32_t t = 0; t < m_threads.size(); ++t)
        if (m_threads[t].track < threadOfTrack.size())
            threadOfTrack[m_threads[t].track] = t;
    for (size_t track = 0; track < times.tracks.size(); ++track) {
        if (times.tracks[track].launches.empty())
            continue;
        const uint32_t t = threadOfTrack[track];
        if (t == kNoThread || !m_threads[t].listed || !m_threads[t].popsInOrder) {
            whole();
            return;
        }
    }

    times.column.next(keptEvents, events);
    // Calls that moved (taken along, or open then) leave their place then, which still
    // holds their GPU time then.
    for (const auto& [before, now] : moved)
        if (before < keptEvents && now < events)
            sums[keyOf(m_calls[order[now]])].remove(times.column[before]);
    auto gpuOf = [&](uint32_t track, int64_t start, int64_t end) {
        return end < start || track >= times.tracks.size() ? int64_t(-1) : gpuWithin(times.tracks[track], start, end);
    };
    // The events appended: calls that arrived, were open then, or were taken along. Read
    // row by row, span by span (the columns in order; each call's own record would be a
    // cache miss apiece), as fillLaunchGpuTime reads them: a row's region says whether its
    // calls are GPU work, whose GPU time is their duration. A row's calls on one track come
    // in start order, so each searches its track's launches from where the one before it
    // left off (gallop_partition.h); one starting earlier (a row's first) searches from the
    // first launch.
    struct Cursor
    {
        size_t first = 0;          // the first launch at or after `start`
        int64_t start = INT64_MIN; // of the last call searched
    };
    std::vector<Cursor> cursors(times.tracks.size());
    auto gpuAppended = [&](uint64_t k) -> int64_t {
        const int64_t start = e.start[k], end = e.end[k];
        if (end < start || e.track[k] >= cursors.size())
            return -1;
        const Times::Track& track = times.tracks[e.track[k]];
        Cursor& cursor = cursors[e.track[k]];
        if (start < cursor.start)
            cursor.first = 0;
        cursor.start = start;
        cursor.first = gallopPartition(track.launches, cursor.first,
                                       [start](const Times::Launch& x) { return x.start < start; });
        const size_t last = gallopPartition(track.launches, cursor.first,
                                            [end](const Times::Launch& x) { return x.start <= end; });
        return last == cursor.first ? -1 : subtractSaturating(track.before[last], track.before[cursor.first]);
    };
    uint64_t inRows = 0;
    for (const RegionRow& row : c.rows)
        inRows += row.count;
    if (inRows != events) // events no row holds have none
        for (uint64_t k = keptEvents; k < events; ++k)
            times.column.write(k, -1);
    for (size_t r = 0; r < c.rows.size(); ++r) {
        const bool gpuWork = c.regionKind(c.rows[r].region) != RegionKind::Cpu;
        Times::RowSum& sum = sums[rowKeys[r]];
        for (const EventSpan& span : c.rowEvents(c.rows[r]).spans())
            for (uint64_t k = std::max(span.begin, keptEvents); k < span.end; ++k) {
                const int64_t gpu = !gpuWork                 ? gpuAppended(k)
                                    : e.end[k] >= e.start[k] ? subtractSaturating(e.end[k], e.start[k])
                                                             : -1;
                times.column.write(k, gpu);
                sum.add(gpu);
            }
    }
    // The calls kept around the launches that changed.
    for (const Changed& at : changed) {
        const Thread& thread = m_threads[threadOfTrack[at.track]];
        auto recount = [&](uint32_t call) {
            const Call& x = m_calls[call];
            if (x.start <= at.latest && x.end >= at.earliest && eventOf[call] < keptEvents) {
                const int64_t gpu = gpuOf(at.track, x.start, x.end);
                Times::RowSum& sum = sums[keyOf(x)];
                sum.remove(times.column[eventOf[call]]);
                sum.add(gpu);
                times.column.write(eventOf[call], gpu);
            }
        };
        const auto& pops = thread.pops; // by end
        size_t low = 0, high = pops.size();
        while (low < high) {
            const size_t middle = low + (high - low) / 2;
            if (m_calls[pops[middle]].end < at.earliest)
                low = middle + 1;
            else
                high = middle;
        }
        for (size_t p = low; p < pops.size(); ++p)
            recount(pops[p]);
        const auto& cuda = thread.cudaCalls; // by start
        const int64_t from = subtractSaturating(at.earliest, thread.longestCudaCall);
        low = 0, high = cuda.size();
        while (low < high) {
            const size_t middle = low + (high - low) / 2;
            if (m_calls[cuda[middle]].start < from)
                low = middle + 1;
            else
                high = middle;
        }
        for (size_t i = low; i < cuda.size() && m_calls[cuda[i]].start <= at.latest; ++i)
            recount(cuda[i]);
    }
    e.gpu = times.column.column();
    publishSums();
}

} // namespace spanscope::model::live
