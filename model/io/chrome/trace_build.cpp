#include "trace_build.h"

#include "trace_flows.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace spanscope::model::io::chrome {

namespace {

constexpr uint32_t kNoTrack = TrackId::kNone;

// The range a begin and its end make (B/E, or async b/e): the begin's name, category and
// args, else the end's. Without an end (`end` null): a call that never closed.
template <typename Record> RawSlice pairedSlice(const Record& begin, const Record* end)
{
    RawSlice slice;
    slice.start = begin.ts;
    slice.end = end ? end->ts : begin.ts - 1;
    slice.name = begin.name || !end ? begin.name : end->name;
    slice.cat = begin.cat || !end ? begin.cat : end->cat;
    slice.args = begin.args != ArgsRef::kNone || !end ? begin.args : end->args;
    return slice;
}

class TraceBuilder
{
public:
    TraceBuilder(TraceRecords& records, Capture& capture) : m_r(records), m_c(capture) {}

    Status build(const ProgressRange& progress);

private:
    void pairBeginEnds();
    void pairAsyncs();
    void assignRanks();
    int32_t rankOf(ProcessKey pid) const;
    bool isDevicePid(ProcessKey pid) const { return m_r.devicePids.count(pid) > 0; }
    int32_t owningRank(int32_t device) const;
    uint32_t trackOfLane(uint32_t lane);
    uint32_t trackOfSlice(const RawSlice& slice);
    uint32_t processTrack(int32_t rank);
    uint32_t gpuTrack(int32_t device, int64_t stream, const Lane& lane, bool other = false);
    uint32_t counterTrack(int32_t rank, int32_t device, const std::string& name, const char* unit);
    CounterSeries& seriesOf(uint32_t counterTrack);
    void layOut();
    void addGpuActivities();
    void addInstants();
    void addCounters();
    void addMemory();
    void addMetadata();
    std::string processLabel(ProcessKey pid) const;

    TraceRecords& m_r;
    Capture& m_c;

    std::vector<ProcessKey> m_cpuPids; // in rank order
    std::map<ProcessKey, int32_t> m_rankOfPid;
    std::map<int32_t, int32_t> m_ownerOfDevice; // device -> rank whose launches started its work
    int32_t m_firstRank = 0;
    std::vector<uint32_t> m_laneTrack; // lane -> track, kNoTrack until made
    std::map<std::tuple<int32_t, int64_t, bool>, uint32_t> m_gpuTracks; // (device, stream, other)
    std::map<int32_t, uint32_t> m_processTracks;
    std::map<std::tuple<int32_t, int32_t, std::string>, uint32_t> m_counterTracks;
    std::unordered_map<uint32_t, size_t> m_seriesOfTrack; // counter track -> Capture::counters

    struct AsyncLane
    {
        ProcessKey pid = 0;
        uint32_t cat = 0;
        uint32_t number = 0; // 1-based within (pid, cat)
        int64_t busyUntil = INT64_MIN;
        uint32_t track = kNoTrack;
    };
    std::vector<AsyncLane> m_asyncLanes;
    std::vector<RawInstant> m_asyncInstants; // 'n' events; lane = async lane
    uint64_t m_unmatchedEnds = 0, m_unclosedBegins = 0, m_unmatchedAsyncEnds = 0,
             m_unclosedAsync = 0;

    std::vector<uint32_t> m_eventOfSlice;              // slice -> event index
    std::vector<std::vector<uint32_t>> m_tracksOfLane; // lane -> tracks its slices went to
};

void TraceBuilder::pairBeginEnds()
{
    auto& items = m_r.beginEnds;
    std::stable_sort(items.begin(), items.end(), [](const RawBeginEnd& a, const RawBeginEnd& b) {
        if (a.lane != b.lane)
            return a.lane < b.lane;
        return a.ts != b.ts ? a.ts < b.ts : a.order < b.order;
    });
    std::vector<const RawBeginEnd*> open;
    auto flush = [&]() {
        for (const RawBeginEnd* begin : open) { // never ended: kept, flagged as unclosed
            RawSlice slice = pairedSlice(*begin, static_cast<const RawBeginEnd*>(nullptr));
            slice.lane = begin->lane;
            m_r.slices.push_back(slice);
            ++m_unclosedBegins;
        }
        open.clear();
    };
    for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0 && items[i].lane != items[i - 1].lane)
            flush();
        const RawBeginEnd& item = items[i];
        if (item.begin) {
            open.push_back(&item);
            continue;
        }
        if (open.empty()) {
            ++m_unmatchedEnds;
            continue;
        }
        RawSlice slice = pairedSlice(*open.back(), &item);
        open.pop_back();
        slice.lane = item.lane;
        m_r.slices.push_back(slice);
    }
    flush();
    items.clear();
    items.shrink_to_fit();
}

void TraceBuilder::pairAsyncs()
{
    auto& items = m_r.asyncs;
    std::stable_sort(items.begin(), items.end(), [](const RawAsync& a, const RawAsync& b) {
        if (a.key != b.key)
            return a.key < b.key;
        return a.ts != b.ts ? a.ts < b.ts : a.order < b.order;
    });
    // Ranges of one id nest (b/e pairs like a stack); every range of an id goes on one lane.
    struct IdRanges
    {
        ProcessKey pid = 0;
        uint32_t cat = 0;
        int64_t first = 0, last = 0;
        std::vector<RawSlice> slices;
        std::vector<RawInstant> instants;
    };
    std::vector<IdRanges> ids;
    for (size_t i = 0; i < items.size();) {
        size_t j = i;
        IdRanges id;
        id.pid = items[i].pid;
        id.cat = items[i].cat;
        id.first = items[i].ts;
        id.last = items[i].ts;
        std::vector<const RawAsync*> open;
        for (; j < items.size() && items[j].key == items[i].key; ++j) {
            const RawAsync& item = items[j];
            id.last = std::max(id.last, item.ts);
            if (item.phase == 'b') {
                open.push_back(&item);
            } else if (item.phase == 'e') {
                if (open.empty()) {
                    ++m_unmatchedAsyncEnds;
                    continue;
                }
                id.slices.push_back(pairedSlice(*open.back(), &item));
                open.pop_back();
            } else {
                RawInstant instant;
                instant.ts = item.ts;
                instant.name = item.name;
                instant.args = item.args;
                id.instants.push_back(instant);
            }
        }
        for (const RawAsync* begin : open) { // never ended
            id.slices.push_back(pairedSlice(*begin, static_cast<const RawAsync*>(nullptr)));
            ++m_unclosedAsync;
        }
        if (!id.slices.empty() || !id.instants.empty())
            ids.push_back(std::move(id));
        i = j;
    }
    // Pack ids onto lanes per (pid, cat): an id takes the first lane free at its start.
    std::stable_sort(ids.begin(), ids.end(),
                     [](const IdRanges& a, const IdRanges& b) { return a.first < b.first; });
    std::map<std::pair<ProcessKey, uint32_t>, std::vector<uint32_t>> lanesOf;
    for (auto& id : ids) {
        auto& lanes = lanesOf[{id.pid, id.cat}];
        uint32_t chosen = kNoTrack;
        for (const uint32_t lane : lanes)
            if (m_asyncLanes[lane].busyUntil < id.first) {
                chosen = lane;
                break;
            }
        if (chosen == kNoTrack) {
            chosen = uint32_t(m_asyncLanes.size());
            m_asyncLanes.push_back({id.pid, id.cat, uint32_t(lanes.size() + 1)});
            lanes.push_back(chosen);
        }
        m_asyncLanes[chosen].busyUntil = id.last;
        for (RawSlice& slice : id.slices) {
            slice.lane = chosen;
            slice.asyncLane = true;
            m_r.slices.push_back(slice);
        }
        for (RawInstant& instant : id.instants) {
            instant.lane = chosen;
            m_asyncInstants.push_back(instant);
        }
    }
    items.clear();
    items.shrink_to_fit();
}

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

void TraceBuilder::layOut()
{
    const auto& slices = m_r.slices;
    const size_t n = slices.size();
    // Device owners first: GPU tracks take the rank of the process that launched their work.
    {
        std::unordered_map<uint64_t, uint32_t> launchOf;
        for (const auto& [slice, correlation] : m_r.launchCorrelations)
            launchOf.emplace(correlation, slice);
        std::map<int32_t, std::map<int32_t, uint64_t>> votes;
        for (const RawGpuActivity& activity : m_r.gpuActivities) {
            const auto it =
                activity.correlation ? launchOf.find(activity.correlation) : launchOf.end();
            if (it == launchOf.end())
                continue;
            const Lane& gpuLane = m_r.lanes[slices[activity.slice].lane];
            const int64_t device = gpuLane.key.gpu ? gpuLane.key.a : gpuLane.pid;
            const Lane& cpuLane = m_r.lanes[slices[it->second].lane];
            if (device >= 0 && device <= INT32_MAX)
                ++votes[int32_t(device)][rankOf(cpuLane.pid)];
        }
        for (const auto& [device, ranks] : votes)
            m_ownerOfDevice[device] =
                std::max_element(ranks.begin(), ranks.end(), [](auto& a, auto& b) {
                    return a.second < b.second;
                })->first;
    }

    // Tracks of every slice, then regions keyed by (name, kind).
    std::vector<uint32_t> sliceTracks(n);
    for (auto& lane : m_asyncLanes) {
        Track track;
        track.kind = TrackKind::Task;
        track.rank = rankOf(lane.pid);
        track.task = int64_t(&lane - m_asyncLanes.data());
        std::string name = m_c.strings.text(NameId{lane.cat});
        track.name = m_c.strings.intern(
            (name.empty() ? std::string("async") : name + " async") +
            (lane.number > 1 ? " " + std::to_string(lane.number) : std::string()));
        track.sortKey = int64_t(lane.number);
        lane.track = addTrack(m_c, track).value;
    }
    std::unordered_map<uint64_t, uint32_t> regionOf; // name << 8 | kind -> region
    std::vector<uint32_t> regionOfSlice(n);
    for (size_t i = 0; i < n; ++i) {
        const RawSlice& slice = slices[i];
        sliceTracks[i] = trackOfSlice(slice);
        if (!slice.asyncLane) {
            auto& tracks = m_tracksOfLane[slice.lane];
            if (std::find(tracks.begin(), tracks.end(), sliceTracks[i]) == tracks.end())
                tracks.push_back(sliceTracks[i]);
        }
        const uint64_t key = (uint64_t(slice.name) << 8) | uint64_t(slice.kind);
        auto [it, added] = regionOf.try_emplace(key, uint32_t(m_c.regionNames.size()));
        if (added) {
            m_c.regionNames.push_back(NameId{slice.name});
            m_c.regionKinds.push_back(slice.kind);
            m_c.regionCategories.push_back(NameId{slice.cat});
        }
        regionOfSlice[i] = it->second;
    }

    // Rows: one per (region, rank), ordered by region then rank; calls by (start asc, end
    // desc) within a row. A counting pass groups slices by row, then each row is sorted
    // unless it already is (the usual case: files list a thread in time order).
    std::unordered_map<uint64_t, uint32_t> provisional; // region << 32 | rank -> first-seen number
    std::vector<std::pair<uint32_t, int32_t>> keys;
    std::vector<uint32_t> rowOfSlice(n);
    for (size_t i = 0; i < n; ++i) {
        const int32_t rank = m_c.tracks[sliceTracks[i]].rank;
        const uint64_t key = (uint64_t(regionOfSlice[i]) << 32) | uint32_t(rank);
        auto [it, added] = provisional.try_emplace(key, uint32_t(keys.size()));
        if (added)
            keys.emplace_back(regionOfSlice[i], rank);
        rowOfSlice[i] = it->second;
    }
    std::vector<uint32_t> byKey(keys.size());
    std::iota(byKey.begin(), byKey.end(), 0u);
    std::sort(byKey.begin(), byKey.end(),
              [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    std::vector<uint32_t> finalRow(keys.size());
    for (uint32_t row = 0; row < byKey.size(); ++row) {
        finalRow[byKey[row]] = row;
        RegionRow r;
        r.region = keys[byKey[row]].first;
        r.rank = keys[byKey[row]].second;
        m_c.rows.push_back(r);
    }
    for (auto& row : rowOfSlice)
        row = finalRow[row];
    const uint32_t rowCount = uint32_t(keys.size());
    std::vector<uint64_t> offsets(rowCount + 1, 0);
    for (size_t i = 0; i < n; ++i)
        ++offsets[rowOfSlice[i] + 1];
    std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
    std::vector<uint32_t> order(n);
    {
        std::vector<uint64_t> next(offsets.begin(), offsets.end() - 1);
        for (size_t i = 0; i < n; ++i)
            order[next[rowOfSlice[i]]++] = uint32_t(i);
    }
    const auto before = [&](uint32_t a, uint32_t b) {
        if (slices[a].start != slices[b].start)
            return slices[a].start < slices[b].start;
        return slices[a].end > slices[b].end;
    };
    for (uint32_t row = 0; row < rowCount; ++row) {
        auto first = order.begin() + int64_t(offsets[row]),
             last = order.begin() + int64_t(offsets[row + 1]);
        if (!std::is_sorted(first, last, before))
            std::stable_sort(first, last, before);
        m_c.rows[row].offset = offsets[row];
        m_c.rows[row].count = offsets[row + 1] - offsets[row];
    }

    auto& e = m_c.events;
    e.start.resize(n);
    e.end.resize(n);
    e.track.resize(n);
    bool anyArgs = false;
    for (const RawSlice& slice : slices)
        anyArgs |= slice.args != ArgsRef::kNone;
    if (anyArgs)
        e.args.resize(n);
    m_eventOfSlice.resize(n);
    for (size_t k = 0; k < n; ++k) {
        const uint32_t i = order[k];
        const RawSlice& slice = slices[i];
        e.start[k] = slice.start;
        e.end[k] = slice.end;
        e.track[k] = sliceTracks[i];
        if (anyArgs)
            e.args[k] = slice.args;
        m_eventOfSlice[i] = uint32_t(k);
    }
    for (auto& row : m_c.rows)
        row.track = row.count ? TrackId{e.track[row.offset]} : TrackId{processTrack(row.rank)};
    for (const RowSource& source : m_r.rowSources) {
        const auto kind = regionKindFromName(source.kind).value_or(RegionKind::Cpu);
        for (auto& row : m_c.rows) {
            if (row.rank != source.rank || m_c.regionKind(row.region) != kind ||
                m_c.regionName(row.region) != source.name)
                continue;
            row.sourceFile = m_c.strings.intern(source.file);
            row.sourceText = m_c.strings.intern(source.text);
            row.sourceLine = source.line;
            for (const auto& tag : source.tags)
                row.tags.push_back(m_c.strings.intern(tag));
        }
    }
    for (const RawCallExtras& extras : m_r.extras) {
        const uint32_t event = m_eventOfSlice[extras.slice];
        if (extras.gpuNs >= 0) {
            if (e.gpu.empty())
                e.gpu.assign(n, -1);
            e.gpu[event] = extras.gpuNs;
        }
        if (extras.awaitNs != 0) {
            if (e.awaitNs.empty())
                e.awaitNs.assign(n, 0);
            e.awaitNs[event] = extras.awaitNs;
        }
    }
}

void TraceBuilder::addGpuActivities()
{
    for (const RawGpuActivity& activity : m_r.gpuActivities) {
        const uint32_t event = m_eventOfSlice[activity.slice];
        if (activity.kernel)
            m_c.gpuActivities.addKernel(event, activity.correlation, activity.context,
                                        *activity.kernel);
        else if (activity.copyBytes)
            m_c.gpuActivities.addCopy(event, activity.correlation, activity.context,
                                      *activity.copyBytes, activity.copyKind);
        else
            m_c.gpuActivities.addOther(event, activity.correlation, activity.context);
    }
    m_c.gpuActivities.finish();
}

void TraceBuilder::addInstants()
{
    for (const RawInstant& instant : m_r.instants) {
        uint32_t track = kNoTrack;
        if (instant.scope == 'g')
            track = processTrack(m_firstRank);
        else if (instant.scope == 'p')
            track = processTrack(rankOf(m_r.lanes[instant.lane].pid));
        else
            track = trackOfLane(instant.lane);
        m_c.instants.add(instant.ts, TrackId{track}, NameId{instant.name}, ArgsRef{instant.args});
    }
    for (const RawInstant& instant : m_asyncInstants)
        m_c.instants.add(instant.ts, TrackId{m_asyncLanes[instant.lane].track},
                         NameId{instant.name}, ArgsRef{instant.args});
    m_c.instants.finish();
}

CounterSeries& TraceBuilder::seriesOf(uint32_t track)
{
    return m_c.counters[m_seriesOfTrack.at(track)];
}

void TraceBuilder::addCounters()
{
    for (const auto& [key, samples] : m_r.counters) {
        CounterSeries& series = seriesOf(counterTrack(rankOf(key.first), -1, key.second, ""));
        for (const RawCounterSample& sample : samples)
            series.add(sample.ts, sample.value);
    }
}

void TraceBuilder::addMemory()
{
    for (const RawMemory& memory : m_r.memory) {
        const uint32_t track = trackOfLane(memory.lane);
        m_c.allocations.add(memory.ts, TrackId{track}, memory.address, memory.bytes, memory.device);
        const int32_t rank = m_c.tracks[track].rank;
        // PyTorch's caching allocator reports its totals after each event: the counters.
        auto sample = [&](const char* name, const std::optional<int64_t>& value) {
            if (value)
                seriesOf(counterTrack(rank, memory.device, name, "bytes"))
                    .add(memory.ts, double(*value));
        };
        sample(memory.device < 0 ? "host allocated" : "allocated", memory.totalAllocated);
        sample(memory.device < 0 ? "host reserved" : "reserved", memory.totalReserved);
    }
    m_c.allocations.finish();
}

std::string TraceBuilder::processLabel(ProcessKey pid) const
{
    const auto named = m_r.stringPids.find(std::to_string(pid));
    std::string label =
        named != m_r.stringPids.end() ? "\"" + named->second + "\"" : "pid " + std::to_string(pid);
    const auto meta = m_r.processes.find(pid);
    if (meta != m_r.processes.end() && !meta->second.name.empty())
        label += " " + meta->second.name;
    return label;
}

void TraceBuilder::addMetadata()
{
    Metadata metadata;
    auto text = [](std::string value) {
        MetadataValue v;
        v.kind = MetadataValue::Kind::String;
        v.text = std::move(value);
        return v;
    };
    auto integer = [](int64_t value) {
        MetadataValue v;
        v.kind = MetadataValue::Kind::Integer;
        v.integer = value;
        return v;
    };
    metadata.push_back(
        {"format", text(m_r.kineto ? "PyTorch profiler (Kineto) trace" : "Chrome trace")});
    MetadataValue processes;
    processes.kind = MetadataValue::Kind::StringList;
    for (const ProcessKey pid : m_cpuPids)
        processes.list.push_back("rank " + std::to_string(rankOf(pid)) + ": " + processLabel(pid));
    if (!processes.list.empty())
        metadata.push_back({"processes", processes});
    if (m_r.distributedRank)
        metadata.push_back({"distributed_rank", integer(*m_r.distributedRank)});
    if (m_r.worldSize)
        metadata.push_back({"world_size", integer(*m_r.worldSize)});
    if (m_r.profilerSpans)
        metadata.push_back({"profiler_spans", integer(int64_t(m_r.profilerSpans))});
    for (auto& entry : m_r.metadata)
        metadata.push_back(std::move(entry));
    m_c.metadata = std::move(metadata);

    auto warn = [&](uint64_t count, const std::string& what) {
        if (count)
            m_c.warnings.push_back({std::to_string(count) + " " + what, {}});
    };
    for (auto& warning : m_r.warnings)
        m_c.warnings.push_back(std::move(warning));
    warn(m_unmatchedEnds, "'E' events end nothing that began on their thread; left out");
    warn(m_unclosedBegins, "'B' events never ended; kept as calls that never closed");
    warn(m_unmatchedAsyncEnds, "async 'e' events end an id that is not open; left out");
    warn(m_unclosedAsync, "async ranges never ended; kept as calls that never closed");
    if (m_r.skippedEvents)
        m_c.warnings.push_back({std::to_string(m_r.skippedEvents) +
                                    " events could not be used; first: " + m_r.firstSkipped,
                                {}});
    for (const auto& [phase, count] : m_r.unknownPhases)
        m_c.warnings.push_back({std::to_string(count) + " events of phase '" + phase +
                                    "' are not shown (spanscope does not read that phase)",
                                {}});
}

Status TraceBuilder::build(const ProgressRange& progress)
{
    pairBeginEnds();
    pairAsyncs();
    progress.report(0.1);
    assignRanks();
    m_laneTrack.assign(m_r.lanes.size(), kNoTrack);
    m_tracksOfLane.assign(m_r.lanes.size(), {});
    layOut();
    progress.report(0.5);
    if (progress.cancelled())
        return Error{ErrorCode::Cancelled, "loading was cancelled", m_c.sourcePath, {}};
    addGpuActivities();
    FlowStats flowStats = linkFlows(m_r, m_c, m_eventOfSlice, m_tracksOfLane);
    if (flowStats.dangling)
        m_c.warnings.push_back(
            {std::to_string(flowStats.dangling) +
                 " flow events have no other end in the trace (a finish without a start, "
                 "or no slice on their thread to attach to); those arrows are left out",
             {}});
    progress.report(0.8);
    addInstants();
    addCounters();
    addMemory();
    for (auto& series : m_c.counters)
        series.finish();
    std::sort(m_r.devices.begin(), m_r.devices.end(),
              [](const DeviceInfo& a, const DeviceInfo& b) { return a.device < b.device; });
    m_c.devices = std::move(m_r.devices);
    addMetadata();
    m_c.args.seal();
    m_c.rowExclusive.assign(m_c.rows.size(), -1);
    progress.report(1.0);
    return Ok{};
}

} // namespace

Status buildTrace(TraceRecords& records, Capture& capture, const ProgressRange& progress)
{
    return TraceBuilder(records, capture).build(progress);
}

} // namespace spanscope::model::io::chrome
