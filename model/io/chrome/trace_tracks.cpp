// Where the trace's records go (trace_builder.h): processes become ranks, and threads, GPU
// streams, async lanes and counters get their tracks.
#include "trace_builder.h"

#include <algorithm>

namespace spanscope::model::io::chrome::builder {

void TraceBuilder::assignRanks()
{
    // Kineto and spanscope label GPU "processes" "GPU <n>".
    for (const auto& [pid, meta] : m_r.processes)
        if (meta.labels.rfind("GPU", 0) == 0)
            m_r.devicePids.insert(pid);
    std::set<ProcessKey> pids;
    for (const Lane& lane : m_r.lanes)
        if (!lane.key.gpu && !isDevicePid(lane.pid))
            pids.insert(lane.pid);
    for (const AsyncLane& lane : m_asyncLanes)
        pids.insert(lane.pid);
    for (const auto& [key, samples] : m_r.counters)
        pids.insert(key.first);
    // A pid that only holds global instants or Kineto's profiler span is no process.
    std::set<ProcessKey> used;
    for (const RawSlice& slice : m_r.slices)
        if (!slice.asyncLane && !m_r.lanes[slice.lane].key.gpu)
            used.insert(m_r.lanes[slice.lane].pid);
    for (const RawInstant& instant : m_r.instants)
        if (instant.scope != 'g')
            used.insert(m_r.lanes[instant.lane].pid);
    for (const RawMemory& memory : m_r.memory)
        used.insert(m_r.lanes[memory.lane].pid);
    for (const AsyncLane& lane : m_asyncLanes)
        used.insert(lane.pid);
    for (const auto& [key, samples] : m_r.counters)
        used.insert(key.first);
    for (const ProcessKey pid : pids)
        if (used.count(pid) && !isDevicePid(pid))
            m_cpuPids.push_back(pid);
    std::stable_sort(m_cpuPids.begin(), m_cpuPids.end(), [&](ProcessKey a, ProcessKey b) {
        auto sortKey = [&](ProcessKey pid) {
            const auto it = m_r.processes.find(pid);
            return it != m_r.processes.end() && it->second.sortIndex ? *it->second.sortIndex : pid;
        };
        return sortKey(a) != sortKey(b) ? sortKey(a) < sortKey(b) : a < b;
    });
    // The trace's own rank when it names one (Kineto's distributedInfo); further processes
    // of the same trace follow it.
    // spanscope's own exports name each process's rank; those come first.
    const int64_t base = std::clamp<int64_t>(m_r.distributedRank.value_or(0), 0, INT32_MAX / 2);
    std::set<int32_t> taken;
    for (const ProcessKey pid : m_cpuPids) {
        const auto meta = m_r.processes.find(pid);
        if (meta != m_r.processes.end() && meta->second.rank && *meta->second.rank >= 0 &&
            *meta->second.rank < INT32_MAX / 2 && taken.insert(int32_t(*meta->second.rank)).second)
            m_rankOfPid[pid] = int32_t(*meta->second.rank);
    }
    int64_t next = base;
    for (const ProcessKey pid : m_cpuPids) {
        if (m_rankOfPid.count(pid))
            continue;
        while (taken.count(int32_t(next)))
            ++next;
        taken.insert(int32_t(next));
        m_rankOfPid[pid] = int32_t(next++);
    }
    m_c.ranks.assign(taken.begin(), taken.end());
    m_firstRank = m_c.ranks.empty() ? int32_t(base) : m_c.ranks.front();
    if (m_c.ranks.empty())
        m_c.ranks.push_back(m_firstRank);
    const int64_t seen = int64_t(m_c.ranks.back()) + 1;
    m_c.numRanks =
        int32_t(std::clamp<int64_t>(std::max(m_r.worldSize.value_or(0), seen), 1, INT32_MAX));
}

int32_t TraceBuilder::rankOf(ProcessKey pid) const
{
    const auto it = m_rankOfPid.find(pid);
    return it == m_rankOfPid.end() ? m_firstRank : it->second;
}

int32_t TraceBuilder::owningRank(int32_t device) const
{
    const auto it = m_ownerOfDevice.find(device);
    return it == m_ownerOfDevice.end() ? m_firstRank : it->second;
}

uint32_t TraceBuilder::processTrack(int32_t rank)
{
    auto [it, added] = m_processTracks.try_emplace(rank, kNoTrack);
    if (added) {
        Track track;
        track.kind = TrackKind::Process;
        track.rank = rank;
        it->second = addTrack(m_c, track).value;
    }
    return it->second;
}

uint32_t TraceBuilder::gpuTrack(int32_t device, int64_t stream, const Lane& lane, bool other)
{
    stream = stream < 0 ? -1 : stream;
    auto [it, added] = m_gpuTracks.try_emplace({device, stream, other}, kNoTrack);
    if (added) {
        Track track;
        track.kind = stream < 0 ? TrackKind::GpuDevice : TrackKind::GpuStream;
        track.rank = owningRank(device);
        track.device = device;
        track.stream = stream;
        // Kineto names stream threads "stream 7 " and device rows "Device 0".
        const auto meta = m_r.threads.find({lane.pid, lane.tid});
        std::string name = meta != m_r.threads.end() ? meta->second.name : std::string();
        if (other) { // syncs and other CPU-side records Kineto puts on a stream: beside its work
            name = (stream < 0 ? "GPU " + std::to_string(device)
                               : "stream " + std::to_string(stream)) +
                   " syncs";
            track.sortKey = 1;
        }
        if (!name.empty())
            track.name = m_c.strings.intern(name);
        it->second = addTrack(m_c, track).value;
    }
    return it->second;
}

uint32_t TraceBuilder::trackOfSlice(const RawSlice& slice)
{
    if (slice.asyncLane)
        return m_asyncLanes[slice.lane].track;
    const Lane& lane = m_r.lanes[slice.lane];
    // Work on a GPU lane that is neither GPU activity nor annotation (Kineto's cuda_sync)
    // overlaps the stream's copies and kernels without nesting in them: its own track.
    const bool onGpu = lane.key.gpu || isDevicePid(lane.pid);
    if (onGpu && slice.kind == RegionKind::Cpu) {
        const int64_t device = lane.key.gpu ? lane.key.a : lane.pid;
        const int64_t stream = lane.key.gpu ? lane.key.b : lane.tid;
        if (device >= 0 && device <= INT32_MAX)
            return gpuTrack(int32_t(device), stream, lane, true);
    }
    return trackOfLane(slice.lane);
}

uint32_t TraceBuilder::trackOfLane(uint32_t laneIndex)
{
    if (m_laneTrack[laneIndex] != kNoTrack)
        return m_laneTrack[laneIndex];
    const Lane& lane = m_r.lanes[laneIndex];
    uint32_t track = kNoTrack;
    if (lane.key.gpu) {
        track = gpuTrack(int32_t(lane.key.a), lane.key.b, lane);
    } else if (isDevicePid(lane.pid) && lane.pid >= 0 && lane.pid <= INT32_MAX) {
        track = gpuTrack(int32_t(lane.pid), lane.tid, lane); // Kineto: pid = device, tid = stream
    } else if (m_r.spanscopeExport && lane.tid == lane.pid) {
        track = processTrack(rankOf(lane.pid)); // an export's calls that had no thread
    } else {
        const int32_t rank = rankOf(lane.pid);
        Track t;
        t.kind = TrackKind::Thread;
        t.rank = rank;
        t.thread = lane.tid;
        const auto meta = m_r.threads.find({lane.pid, lane.tid});
        t.sortKey = meta != m_r.threads.end() && meta->second.sortIndex ? *meta->second.sortIndex
                                                                        : lane.tid;
        track = addTrack(m_c, t).value;
        ThreadInfo info;
        info.rank = rank;
        info.index = lane.tid;
        info.ident = lane.tid;
        info.nativeId = lane.tid;
        if (meta != m_r.threads.end())
            info.name = m_c.strings.intern(meta->second.name);
        m_c.threads.push_back(info);
    }
    m_laneTrack[laneIndex] = track;
    return track;
}

uint32_t TraceBuilder::counterTrack(int32_t rank, int32_t device, const std::string& name,
                                    const char* unit)
{
    auto [it, added] = m_counterTracks.try_emplace({rank, device, name}, kNoTrack);
    if (added) {
        Track track;
        track.kind = TrackKind::Counter;
        track.rank = rank;
        track.device = device;
        track.name = m_c.strings.intern(name);
        it->second = addTrack(m_c, track).value;
        CounterSeries series;
        series.track = TrackId{it->second};
        series.unit = m_c.strings.intern(unit);
        m_seriesOfTrack[it->second] = m_c.counters.size();
        m_c.counters.push_back(std::move(series));
    }
    return it->second;
}

} // namespace spanscope::model::io::chrome::builder
