#include "trace_flows.h"

#include <algorithm>
#include <unordered_set>
#include <unordered_map>

namespace spanscope::model::io::chrome {

namespace {

// The closed slices of one track by (start asc, end desc), each with the slice enclosing
// it, for binding flow events to slices in O(log n + depth).
struct TrackSlices
{
    std::vector<uint32_t> events;
    std::vector<int32_t> parent; // position in `events`, -1 for none

    void finish(const EventColumns& e)
    {
        std::stable_sort(events.begin(), events.end(), [&](uint32_t a, uint32_t b) {
            return e.start[a] != e.start[b] ? e.start[a] < e.start[b] : e.end[a] > e.end[b];
        });
        parent.assign(events.size(), -1);
        std::vector<int32_t> open;
        for (size_t i = 0; i < events.size(); ++i) {
            const int64_t start = e.start[events[i]];
            while (!open.empty() && e.end[events[size_t(open.back())]] <= start &&
                   !(e.start[events[size_t(open.back())]] == start &&
                     e.end[events[size_t(open.back())]] == start))
                open.pop_back();
            parent[i] = open.empty() ? -1 : open.back();
            open.push_back(int32_t(i));
        }
    }

    // The innermost slice containing `ts` (start <= ts < end, or a zero-length one at ts).
    int64_t enclosing(const EventColumns& e, int64_t ts) const
    {
        auto it = std::upper_bound(events.begin(), events.end(), ts,
                                   [&](int64_t t, uint32_t event) { return t < e.start[event]; });
        int32_t i = int32_t(it - events.begin()) - 1;
        while (i >= 0) {
            const uint32_t event = events[size_t(i)];
            if (e.end[event] > ts || (e.start[event] == ts && e.end[event] == ts))
                return event;
            i = parent[size_t(i)];
        }
        return -1;
    }

    // The first slice to begin at or after `ts`.
    int64_t next(const EventColumns& e, int64_t ts) const
    {
        auto it = std::lower_bound(events.begin(), events.end(), ts,
                                   [&](uint32_t event, int64_t t) { return e.start[event] < t; });
        return it == events.end() ? -1 : int64_t(*it);
    }
};

int phaseRank(char phase)
{
    return phase == 's' ? 0 : phase == 't' ? 1 : 2;
}

} // namespace

FlowStats linkFlows(const TraceRecords& records, Capture& capture,
                    const std::vector<uint32_t>& eventOfSlice,
                    const std::vector<std::vector<uint32_t>>& laneTracks)
{
    FlowStats stats;
    // (from, to) pairs already linked, packed as from << 32 | to.
    std::unordered_set<uint64_t> linked;
    auto link = [&linked](uint32_t from, uint32_t to) { return linked.insert(uint64_t(from) << 32 | to).second; };
    auto& flows = capture.flows;

    // Launches by correlation id: every GPU activity to the runtime call that started it.
    std::unordered_multimap<uint64_t, uint32_t> launches;
    for (const auto& [slice, correlation] : records.launchCorrelations)
        launches.emplace(correlation, eventOfSlice[slice]);
    // Correlations of runtime calls that launched GPU work, and of those that launched none.
    std::unordered_set<uint64_t> drawn, launchedNothing;
    for (const RawGpuActivity& activity : records.gpuActivities) {
        if (!activity.correlation)
            continue;
        const uint32_t to = eventOfSlice[activity.slice];
        auto [first, last] = launches.equal_range(activity.correlation);
        for (auto it = first; it != last; ++it) {
            drawn.insert(activity.correlation);
            if (link(it->second, to))
                flows.add(it->second, to, FlowKind::Launch);
        }
    }
    for (const auto& [slice, correlation] : records.launchCorrelations)
        if (!drawn.count(correlation))
            launchedNothing.insert(correlation);

    // GPU work whose launch the correlation ids named: a positional flow to it adds nothing
    // (and could bind to a child that starts with the launch).
    std::vector<bool> launched(capture.events.size(), false);
    for (const uint64_t pair : linked)
        launched[uint32_t(pair)] = true;

    // The trace's own flow events, chained per id in time order.
    if (!records.flows.empty()) {
        const auto& e = capture.events;
        std::unordered_map<uint32_t, TrackSlices> byTrack;
        for (const RawFlow& flow : records.flows)
            for (const uint32_t track : laneTracks[flow.lane])
                byTrack.try_emplace(track);
        for (size_t i = 0; i < e.size(); ++i)
            if (e.end[i] >= e.start[i])
                if (auto it = byTrack.find(e.track[i]); it != byTrack.end())
                    it->second.events.push_back(uint32_t(i));
        for (auto& [track, slices] : byTrack)
            slices.finish(e);

        std::vector<uint32_t> order(records.flows.size());
        for (uint32_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            const RawFlow& x = records.flows[a];
            const RawFlow& y = records.flows[b];
            if (x.key != y.key)
                return x.key < y.key;
            if (x.ts != y.ts)
                return x.ts < y.ts;
            if (phaseRank(x.phase) != phaseRank(y.phase))
                return phaseRank(x.phase) < phaseRank(y.phase);
            return x.order < y.order;
        });
        int64_t previous = -1;
        uint64_t previousKey = 0;
        bool first = true;
        for (const uint32_t index : order) {
            const RawFlow& flow = records.flows[index];
            // Kineto's launch flows carry the correlation number as their id: one already
            // drawn from the correlation ids needs no binding.
            if (flow.kind == FlowKind::Launch && flow.correlation && drawn.count(flow.correlation))
                continue;
            // Kineto also ends a launch flow, with no start, on runtime calls that launched
            // nothing (cudaEventQuery, cudaStreamIsCapturing): no arrow is missing there.
            const bool endOfNothing = flow.kind == FlowKind::Launch && flow.phase != 's' && flow.correlation
                                      && launchedNothing.count(flow.correlation);
            if (first || flow.key != previousKey) {
                previous = -1;
                previousKey = flow.key;
                first = false;
            }
            int64_t bound = -1;
            for (const uint32_t track : laneTracks[flow.lane]) {
                const TrackSlices& slices = byTrack[track];
                const int64_t candidate =
                    flow.enclosing ? slices.enclosing(e, flow.ts) : slices.next(e, flow.ts);
                if (candidate < 0)
                    continue;
                const bool better =
                    bound < 0 ||
                    (flow.enclosing ? e.start[size_t(candidate)] > e.start[size_t(bound)]
                                    : e.start[size_t(candidate)] < e.start[size_t(bound)]);
                if (better)
                    bound = candidate;
            }
            if (bound < 0) {
                stats.dangling += endOfNothing ? 0 : 1;
                if (flow.phase == 's')
                    previous = -1;
                continue;
            }
            if (flow.phase == 's') {
                previous = bound;
                continue;
            }
            if (previous < 0) {
                stats.dangling += endOfNothing ? 0 : 1; // a step or finish whose start was never seen
                continue;
            }
            // Kineto's ac2g flows also link runtime calls to their synchronization records
            // (cuda_sync, beside the stream); only links to GPU work are launches.
            const FlowKind kind =
                flow.kind == FlowKind::Launch && capture.gpuActivities.rowOf(uint32_t(bound)) < 0
                    ? (isGpuTrack(capture.track(TrackId{capture.events.track[size_t(bound)]}).kind) ? FlowKind::Sync
                                                                                                   : FlowKind::User)
                    : flow.kind;
            if (kind == FlowKind::Launch && launched[size_t(bound)])
                continue;
            if (previous != bound && link(uint32_t(previous), uint32_t(bound)))
                flows.add(uint32_t(previous), uint32_t(bound), kind);
            previous = flow.phase == 't' ? bound : previous; // several finishes may share one start
        }
    }
    flows.finish();
    return stats;
}

} // namespace spanscope::model::io::chrome
