#include "critical_path.h"

#include "model/share_out.h"
#include "model/stats/saturating.h"

#include <algorithm>
#include <bit>
#include <map>
#include <tuple>

namespace spanscope::model::analysis {

namespace {

constexpr uint32_t kNoNode = UINT32_MAX;

uint32_t startNode(uint32_t event) { return 2 * event; }
uint32_t endNode(uint32_t event) { return 2 * event + 1; }

PathShare shareOfClass(GpuWorkClass c)
{
    switch (c) {
    case GpuWorkClass::Compute:
        return PathShare::GpuCompute;
    case GpuWorkClass::Communication:
        return PathShare::GpuCommunication;
    case GpuWorkClass::Memory:
        return PathShare::GpuMemory;
    }
    return PathShare::GpuCompute;
}

// Of dependencies that arrive together, the one a node is taken to have waited for: the
// busy stream before a synchronization, a synchronization before the launch or the thread.
int priority(PathShare via)
{
    switch (via) {
    case PathShare::KernelGap:
        return 3;
    case PathShare::Synchronization:
        return 2;
    case PathShare::LaunchOverhead:
        return 1;
    default:
        return 0;
    }
}

// Each node's one incoming edge: the dependency that arrived last.
class LastArrivals
{
public:
    explicit LastArrivals(const Capture& capture)
        : m_e(capture.events), m_pred(2 * capture.events.size(), kNoNode), m_via(2 * capture.events.size())
    {
    }

    int64_t time(uint32_t node) const { return node & 1 ? m_e.end[node / 2] : m_e.start[node / 2]; }

    // The node before it on its thread or stream, or its own start: always its dependency
    // until a later one arrives.
    void follow(uint32_t node, uint32_t on, PathShare via)
    {
        m_pred[node] = on;
        m_via[node] = via;
    }
    // A dependency that counts only when it arrived before the node and after the current one.
    void depend(uint32_t node, uint32_t on, PathShare via)
    {
        const int64_t arrived = time(on);
        if (arrived > time(node))
            return;
        const uint32_t current = m_pred[node];
        if (current != kNoNode) {
            const int64_t before = time(current);
            if (arrived < before || (arrived == before && priority(via) <= priority(m_via[node])))
                return;
        }
        m_pred[node] = on;
        m_via[node] = via;
    }

    uint32_t pred(uint32_t node) const { return m_pred[node]; }
    PathShare via(uint32_t node) const { return m_via[node]; }

private:
    const EventColumns& m_e;
    std::vector<uint32_t> m_pred;
    std::vector<PathShare> m_via;
};

// The latest node of each rank, where its path ends.
struct LastNode
{
    int64_t time = INT64_MIN;
    uint32_t node = kNoNode;
    void offer(uint32_t candidate, int64_t t)
    {
        if (node == kNoNode || t > time || (t == time && candidate > node)) {
            time = t;
            node = candidate;
        }
    }
};

// CPU threads: each call's start follows its parent's start or its previous sibling's end
// (or the thread's previous call's end), each end its last child's end or its own start.
// The calls are gathered per track (counted, then placed) and each track is sorted and
// linked on its own, the tracks shared out over two cores: a track's nodes are its own, so
// two tracks never write the same node.
void linkThreads(const Capture& capture, const std::map<int32_t, size_t>& rankIndex, LastArrivals& graph,
                 std::vector<LastNode>& last)
{
    const auto& e = capture.events;
    struct Call
    {
        int64_t start, end;
        uint32_t event;
    };
    // Which tracks are CPU threads of a rank with GPU work; then their calls, track by track.
    std::vector<uint8_t> linked(capture.tracks.size(), 0);
    for (size_t t = 0; t < capture.tracks.size(); ++t) {
        const Track& track = capture.tracks[t];
        linked[t] = (track.kind == TrackKind::Thread || track.kind == TrackKind::Process) && rankIndex.count(track.rank);
    }
    auto eachCall = [&](auto&& take) {
        for (uint32_t r = 0; r < capture.rows.size(); ++r) {
            if (capture.regionKind(capture.rows[r].region) != RegionKind::Cpu)
                continue;
            for (const uint64_t i : capture.rowEvents(r)) {
                if (e.end[i] < e.start[i])
                    continue;
                const TrackId track = capture.trackOfEvent(r, i);
                if (track.value < linked.size() && linked[track.value])
                    take(track.value, i);
            }
        }
    };
    std::vector<uint64_t> begin(capture.tracks.size() + 1, 0);
    eachCall([&](uint32_t track, uint64_t) { ++begin[track + 1]; });
    for (size_t t = 0; t < capture.tracks.size(); ++t)
        begin[t + 1] += begin[t];
    std::vector<Call> calls(begin.back());
    {
        std::vector<uint64_t> next(begin.begin(), begin.end() - 1);
        eachCall([&](uint32_t track, uint64_t i) { calls[next[track]++] = {e.start[i], e.end[i], uint32_t(i)}; });
    }
    std::vector<uint32_t> tracks; // with calls, the most first (shareOut takes them in order)
    for (uint32_t t = 0; t < capture.tracks.size(); ++t)
        if (begin[t + 1] > begin[t])
            tracks.push_back(t);
    std::sort(tracks.begin(), tracks.end(), [&](uint32_t a, uint32_t b) {
        return begin[a + 1] - begin[a] > begin[b + 1] - begin[b];
    });
    std::vector<LastNode> lastOfTrack(tracks.size());
    shareOut(tracks.size(), [&](size_t item, int) {
        const uint32_t track = tracks[item];
        const auto first = calls.begin() + std::ptrdiff_t(begin[track]);
        const auto end = calls.begin() + std::ptrdiff_t(begin[track + 1]);
        std::sort(first, end, [](const Call& a, const Call& b) {
            if (a.start != b.start)
                return a.start < b.start;
            if (a.end != b.end)
                return a.end > b.end;
            return a.event < b.event;
        });
        std::vector<uint32_t> open;
        uint32_t previous = kNoNode;
        auto emit = [&](uint32_t node) {
            if (previous != kNoNode)
                graph.follow(node, previous, PathShare::Cpu);
            previous = node;
        };
        for (auto call = first; call != end; ++call) {
            while (!open.empty() && e.end[open.back()] <= call->start) {
                emit(endNode(open.back()));
                open.pop_back();
            }
            emit(startNode(call->event));
            open.push_back(call->event);
            lastOfTrack[item].offer(endNode(call->event), call->end);
        }
        while (!open.empty()) {
            emit(endNode(open.back()));
            open.pop_back();
        }
    });
    for (size_t item = 0; item < tracks.size(); ++item)
        if (lastOfTrack[item].node != kNoNode)
            last[rankIndex.at(capture.tracks[tracks[item]].rank)].offer(lastOfTrack[item].node, lastOfTrack[item].time);
}

// Where each stream's work is, for finding what a synchronization waited for.
struct StreamIndex
{
    std::vector<uint32_t> position;                    // into the DeviceWork, in order
    std::vector<int64_t> maxEnd, maxLaunchStart;       // running maxima along `position`
    std::vector<uint32_t> argMaxEnd, argMaxLaunchStart; // the activity (position) holding each

    // The activity whose end is the latest at or before t, or kNoEvent.
    uint32_t latestEndingBy(int64_t t) const
    {
        const auto it = std::upper_bound(maxEnd.begin(), maxEnd.end(), t);
        return it == maxEnd.begin() ? kNoEvent : argMaxEnd[size_t(it - maxEnd.begin()) - 1];
    }
    // The first activity launched at or after t, or kNoEvent.
    uint32_t firstLaunchedFrom(int64_t t) const
    {
        const auto it = std::lower_bound(maxLaunchStart.begin(), maxLaunchStart.end(), t);
        return it == maxLaunchStart.end() ? kNoEvent : argMaxLaunchStart[size_t(it - maxLaunchStart.begin())];
    }
    // The last activity launched at or before t, or kNoEvent.
    uint32_t lastLaunchedBy(int64_t t) const
    {
        const auto it = std::upper_bound(maxLaunchStart.begin(), maxLaunchStart.end(), t);
        if (it == maxLaunchStart.begin())
            return kNoEvent;
        const size_t p = size_t(it - maxLaunchStart.begin()) - 1;
        return maxLaunchStart[p] == INT64_MIN ? kNoEvent : argMaxLaunchStart[p];
    }
};

std::vector<StreamIndex> indexStreams(const Capture& capture, const DeviceWork& work)
{
    const auto& e = capture.events;
    std::vector<StreamIndex> streams(work.streams.size());
    for (size_t k = 0; k < work.size(); ++k) {
        StreamIndex& s = streams[work.stream[k]];
        const bool first = s.position.empty();
        s.position.push_back(uint32_t(k));
        const int64_t launchStart = work.launch[k] == kNoEvent ? INT64_MIN : e.start[work.launch[k]];
        if (first || work.end[k] > s.maxEnd.back()) {
            s.maxEnd.push_back(work.end[k]);
            s.argMaxEnd.push_back(uint32_t(k));
        } else {
            s.maxEnd.push_back(s.maxEnd.back());
            s.argMaxEnd.push_back(s.argMaxEnd.back());
        }
        if (first || launchStart > s.maxLaunchStart.back()) {
            s.maxLaunchStart.push_back(launchStart);
            s.argMaxLaunchStart.push_back(uint32_t(k));
        } else {
            s.maxLaunchStart.push_back(s.maxLaunchStart.back());
            s.argMaxLaunchStart.push_back(s.argMaxLaunchStart.back());
        }
    }
    return streams;
}

// GPU streams: an activity's start follows the latest end before it on its stream, or its
// launch call's start, whichever came later; its end follows its start.
void linkStreams(const Capture& capture, const DeviceWork& work, LastArrivals& graph, LastNode& last)
{
    const auto& e = capture.events;
    std::vector<uint32_t> latest(work.streams.size(), kNoEvent); // position of the latest end so far
    for (size_t k = 0; k < work.size(); ++k) {
        const uint32_t event = work.event[k];
        uint32_t& before = latest[work.stream[k]];
        if (before != kNoEvent && work.end[before] <= work.start[k])
            graph.follow(startNode(event), endNode(work.event[before]), PathShare::KernelGap);
        if (const uint32_t launch = work.launch[k]; launch != kNoEvent)
            graph.depend(startNode(event), startNode(launch), PathShare::LaunchOverhead);
        graph.follow(endNode(event), startNode(event), shareOfClass(work.workClass[k]));
        // A copy or memset whose launch call returned after it: the call waited for it.
        if (const uint32_t launch = work.launch[k];
            launch != kNoEvent && work.kind[k] != RegionKind::Kernel && e.end[launch] >= e.start[launch]
            && work.end[k] <= e.end[launch])
            graph.depend(endNode(launch), endNode(event), PathShare::Synchronization);
        if (before == kNoEvent || work.end[k] > work.end[before])
            before = uint32_t(k);
        last.offer(endNode(event), work.end[k]);
    }
}

void linkSyncs(const Capture& capture, const std::vector<DeviceWork>& devices,
               const std::vector<std::vector<StreamIndex>>& indexes, const std::vector<SyncCall>& syncs,
               LastArrivals& graph)
{
    const auto& e = capture.events;
    auto streamOf = [&](size_t d, int64_t stream) -> const StreamIndex* {
        const auto& ids = devices[d].streams;
        const auto it = std::lower_bound(ids.begin(), ids.end(), stream);
        return it != ids.end() && *it == stream ? &indexes[d][size_t(it - ids.begin())] : nullptr;
    };
    for (const SyncCall& sync : syncs) {
        const uint32_t call = sync.call;
        if (sync.kind == SyncKind::StreamWait) {
            if (sync.stream < 0 || sync.waitOnStream < 0)
                continue; // the trace does not say which streams
            for (size_t d = 0; d < devices.size(); ++d) {
                if (devices[d].rank != sync.rank || (sync.device >= 0 && devices[d].device != sync.device))
                    continue;
                const StreamIndex* waiting = streamOf(d, sync.stream);
                const StreamIndex* waitedFor = streamOf(d, sync.waitOnStream);
                if (!waiting || !waitedFor)
                    continue;
                const uint32_t next = waiting->firstLaunchedFrom(e.start[call]);
                const uint32_t source = waitedFor->lastLaunchedBy(e.start[call]);
                if (next != kNoEvent && source != kNoEvent)
                    graph.depend(startNode(devices[d].event[next]), endNode(devices[d].event[source]),
                                 PathShare::Synchronization);
            }
            continue;
        }
        if (e.end[call] < e.start[call])
            continue;
        // The host waited until the last of the work it waited for had ended.
        const int64_t stream = sync.kind != SyncKind::Device ? (sync.waitOnStream >= 0 ? sync.waitOnStream : sync.stream) : -1;
        uint32_t awaited = kNoNode;
        for (size_t d = 0; d < devices.size(); ++d) {
            if (devices[d].rank != sync.rank || (sync.device >= 0 && devices[d].device != sync.device))
                continue;
            auto consider = [&](const StreamIndex& index) {
                const uint32_t k = index.latestEndingBy(e.end[call]);
                if (k != kNoEvent && (awaited == kNoNode || graph.time(endNode(devices[d].event[k])) > graph.time(awaited)))
                    awaited = endNode(devices[d].event[k]);
            };
            if (stream >= 0) {
                if (const StreamIndex* index = streamOf(d, stream))
                    consider(*index);
            } else {
                for (const StreamIndex& index : indexes[d])
                    consider(index);
            }
        }
        if (awaited != kNoNode)
            graph.depend(endNode(call), awaited, PathShare::Synchronization);
    }
}

// The region and track of each path node's event: one pass over the rows. The events on a
// path are numbered by their rank among them (a bit per event and a count per 64), so each
// node finds its event's in constant time.
void resolveNodes(const Capture& capture, std::vector<CriticalPath>& paths)
{
    const size_t words = (capture.events.size() + 63) / 64;
    std::vector<uint64_t> onPath(words, 0);
    for (const CriticalPath& path : paths)
        for (const PathNode& node : path.nodes)
            onPath[node.event / 64] |= uint64_t(1) << (node.event % 64);
    std::vector<uint32_t> before(words + 1, 0); // events on a path before each word
    for (size_t w = 0; w < words; ++w)
        before[w + 1] = before[w] + uint32_t(std::popcount(onPath[w]));
    auto rankOf = [&](uint64_t event) {
        const uint64_t below = (uint64_t(1) << (event % 64)) - 1;
        return before[event / 64] + uint32_t(std::popcount(onPath[event / 64] & below));
    };
    std::vector<std::pair<uint32_t, TrackId>> found(before[words]); // by rank: (region, track)
    for (uint32_t r = 0; r < capture.rows.size(); ++r)
        for (const uint64_t i : capture.rowEvents(r))
            if (onPath[i / 64] & (uint64_t(1) << (i % 64)))
                found[rankOf(i)] = {capture.rows[r].region, capture.trackOfEvent(r, i)};
    for (CriticalPath& path : paths)
        for (PathNode& node : path.nodes)
            std::tie(node.region, node.track) = found[rankOf(node.event)];
}

} // namespace

std::vector<CriticalPath> criticalPaths(const Capture& capture, const GpuWork& work,
                                        const std::vector<SyncCall>& syncs)
{
    std::vector<CriticalPath> paths;
    if (work.devices.empty() || capture.events.size() >= (size_t(1) << 31))
        return paths;
    std::map<int32_t, size_t> rankIndex;
    for (const DeviceWork& device : work.devices)
        rankIndex.try_emplace(device.rank, 0);
    size_t next = 0;
    for (auto& [rank, index] : rankIndex)
        index = next++;
    std::vector<LastNode> last(rankIndex.size());

    LastArrivals graph(capture);
    linkThreads(capture, rankIndex, graph, last);
    std::vector<std::vector<StreamIndex>> indexes;
    for (const DeviceWork& device : work.devices) {
        linkStreams(capture, device, graph, last[rankIndex.at(device.rank)]);
        indexes.push_back(indexStreams(capture, device));
    }
    linkSyncs(capture, work.devices, indexes, syncs, graph);

    const size_t nodes = 2 * capture.events.size();
    std::vector<uint32_t> walked;
    for (const auto& [rank, index] : rankIndex) {
        CriticalPath path;
        path.rank = rank;
        // Back from the last node along the last arrivals (at most every node once: a
        // damaged capture's equal times cannot make it go round), as node numbers; then the
        // path in time order, allocated once.
        walked.clear();
        for (uint32_t node = last[index].node; node != kNoNode && walked.size() <= nodes; node = graph.pred(node))
            walked.push_back(node);
        path.nodes.resize(walked.size());
        for (size_t i = 0; i < walked.size(); ++i) {
            const uint32_t node = walked[walked.size() - 1 - i];
            path.nodes[i] = {node / 2, (node & 1) != 0, graph.time(node), graph.via(node), 0, {}};
        }
        for (size_t i = 1; i < path.nodes.size(); ++i) {
            // A hostile capture's times can swing by 2^61 ns: the sums stop at the limit.
            const int64_t step = std::max<int64_t>(0, subtractSaturating(path.nodes[i].timeNs, path.nodes[i - 1].timeNs));
            int64_t& share = path.boundBy[size_t(path.nodes[i].via)];
            share = addSaturating(share, step);
            path.lengthNs = addSaturating(path.lengthNs, step);
        }
        paths.push_back(std::move(path));
    }
    resolveNodes(capture, paths);
    return paths;
}

} // namespace spanscope::model::analysis
