#include "track.h"

#include "capture.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>

namespace spanscope::model {

const char* trackKindName(TrackKind kind)
{
    switch (kind) {
    case TrackKind::Process: return "process";
    case TrackKind::Thread: return "thread";
    case TrackKind::Task: return "task";
    case TrackKind::NvtxDomain: return "nvtx-domain";
    case TrackKind::GpuDevice: return "gpu-device";
    case TrackKind::GpuStream: return "gpu-stream";
    case TrackKind::Counter: return "counter";
    }
    return "process";
}

bool isGpuTrack(TrackKind kind)
{
    return kind == TrackKind::GpuDevice || kind == TrackKind::GpuStream;
}

TrackId addTrack(Capture& capture, Track track)
{
    capture.tracks.push_back(track);
    return TrackId{uint32_t(capture.tracks.size() - 1)};
}

namespace {

// A name that already says what the generic label would ("stream 7 ", "thread 12 (python)")
// replaces it instead of being appended to it.
std::string labelled(const std::string& generic, const std::string& name)
{
    if (name.empty())
        return generic;
    if (name.find(generic) != std::string::npos)
        return name.back() == ' ' ? name.substr(0, name.find_last_not_of(' ') + 1) : name;
    return generic + " " + name;
}

} // namespace

std::string trackTitle(const Capture& capture, TrackId id)
{
    if (!id.valid() || id.value >= capture.tracks.size())
        return "(no track)";
    const Track& track = capture.tracks[id.value];
    const std::string own = capture.strings.text(track.name);
    std::string title = "rank " + std::to_string(track.rank);
    const std::string dot = " \u00b7 ";
    switch (track.kind) {
    case TrackKind::Process:
        if (!own.empty())
            title += dot + own;
        break;
    case TrackKind::Thread: {
        const ThreadInfo* info = capture.thread(track.rank, track.thread);
        const std::string name = !own.empty() ? own : info ? capture.strings.text(info->name) : std::string();
        title += dot + labelled("thread " + std::to_string(track.thread), name);
        break;
    }
    case TrackKind::Task: {
        const TaskInfo* info = capture.task(track.rank, track.task);
        const std::string name = !own.empty() ? own : info ? capture.strings.text(info->name) : std::string();
        title += dot + labelled("task " + std::to_string(track.task), name);
        break;
    }
    case TrackKind::NvtxDomain: {
        const TaskInfo* info = capture.task(track.rank, track.task);
        const std::string name = !own.empty() ? own : info ? capture.strings.text(info->name) : std::string();
        title += dot + "async " + (name.empty() ? std::to_string(track.task) : name);
        break;
    }
    case TrackKind::GpuDevice:
        title += dot + labelled("GPU " + std::to_string(track.device), own);
        break;
    case TrackKind::GpuStream:
        title += dot + "GPU " + std::to_string(track.device) + dot
                 + labelled("stream " + std::to_string(track.stream), own);
        break;
    case TrackKind::Counter:
        if (track.device >= 0)
            title += dot + "GPU " + std::to_string(track.device);
        title += dot + (own.empty() ? std::string("counter") : own);
        break;
    }
    if (track.inferredLane > 0)
        title += dot + "overlap lane " + std::to_string(track.inferredLane + 1);
    return title;
}

std::vector<TrackId> tracksInDisplayOrder(const Capture& capture)
{
    // CPU tracks first, then each GPU with its streams and counters, then host counters.
    auto section = [](const Track& t) {
        if (t.kind == TrackKind::Counter)
            return t.device >= 0 ? 1 : 2;
        return isGpuTrack(t.kind) ? 1 : 0;
    };
    // Streams by number, each followed by its companions (a stream's syncs: sortKey 1);
    // everything else by its source's sort key.
    auto key = [&](uint32_t i) {
        const Track& t = capture.tracks[i];
        const bool stream = t.kind == TrackKind::GpuStream;
        return std::make_tuple(t.rank, section(t), t.device, int(t.kind), stream ? t.stream : t.sortKey,
                               stream ? t.sortKey : t.stream, t.thread, t.task, t.inferredLane, i);
    };
    std::vector<uint32_t> order(capture.tracks.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
    std::vector<TrackId> ids;
    ids.reserve(order.size());
    for (const uint32_t i : order)
        ids.push_back(TrackId{i});
    return ids;
}

namespace {

// Track ids of one rank's threads or tasks, by id: a vector for the small dense ids files
// use, a map for anything else (ids come from the file and may be huge or negative).
class IdTracks
{
public:
    static constexpr uint32_t kUnset = TrackId::kNone;
    uint32_t find(int64_t id) const
    {
        if (id >= 0 && id < kDense)
            return size_t(id) < m_dense.size() ? m_dense[size_t(id)] : kUnset;
        const auto it = m_sparse.find(id);
        return it == m_sparse.end() ? kUnset : it->second;
    }
    void set(int64_t id, uint32_t track)
    {
        if (id >= 0 && id < kDense) {
            if (size_t(id) >= m_dense.size())
                m_dense.resize(size_t(id) + 1, kUnset);
            m_dense[size_t(id)] = track;
        } else {
            m_sparse[id] = track;
        }
    }

private:
    static constexpr int64_t kDense = 1 << 20;
    std::vector<uint32_t> m_dense;
    std::unordered_map<int64_t, uint32_t> m_sparse;
};

Track makeTrack(TrackKind kind, int32_t rank)
{
    Track track;
    track.kind = kind;
    track.rank = rank;
    return track;
}

struct RankTracks
{
    uint32_t process = TrackId::kNone;
    IdTracks threads, tasks;
};

class TrackAssigner
{
public:
    explicit TrackAssigner(Capture& capture) : m_capture(capture) {}

    uint32_t process(RankTracks& rank, int32_t r)
    {
        if (rank.process == TrackId::kNone)
            rank.process = add(makeTrack(TrackKind::Process, r));
        return rank.process;
    }
    uint32_t thread(RankTracks& rank, int32_t r, int64_t id)
    {
        uint32_t track = rank.threads.find(id);
        if (track == IdTracks::kUnset) {
            Track t = makeTrack(TrackKind::Thread, r);
            t.thread = id;
            track = add(t);
            rank.threads.set(id, track);
        }
        return track;
    }
    uint32_t task(RankTracks& rank, int32_t r, int64_t id)
    {
        uint32_t track = rank.tasks.find(id);
        if (track == IdTracks::kUnset) {
            Track t = makeTrack(TrackKind::Task, r);
            t.task = id;
            if (const TaskInfo* info = m_capture.task(r, id)) {
                t.thread = info->threadIndex;
                if (m_capture.strings.text(info->kind) == "nvtx-async")
                    t.kind = TrackKind::NvtxDomain;
            }
            track = add(t);
            rank.tasks.set(id, track);
        }
        return track;
    }

private:
    uint32_t add(Track track) { return addTrack(m_capture, track).value; }
    Capture& m_capture;
};

} // namespace

void assignTracks(Capture& capture)
{
    if (!capture.tracks.empty())
        return;
    auto& events = capture.events;
    TrackAssigner assigner(capture);
    std::map<int32_t, RankTracks> ranks;
    const bool lanes = events.hasThreads() || events.hasTasks();
    uint32_t* trackOut = nullptr;
    if (lanes) {
        events.track.resize(events.size());
        trackOut = events.track.mutableData();
    }
    for (auto& row : capture.rows) {
        // GPU work (kernels, copies, GPU ranges) sits on GPU tracks its source lays out.
        if (capture.regionKind(row.region) != RegionKind::Cpu)
            continue;
        RankTracks& rank = ranks[row.rank];
        if (!lanes) {
            row.track = TrackId{assigner.process(rank, row.rank)};
            continue;
        }
        // Calls of a row usually run on one thread: remember the last lookup.
        int64_t lastThread = INT64_MIN, lastTask = INT64_MIN;
        uint32_t lastTrack = TrackId::kNone;
        for (const uint64_t i : capture.rowEvents(row)) {
            if (i >= events.size())
                continue;
            const int64_t task = events.hasTasks() ? events.taskIds[i] : -1;
            const int64_t thread = events.hasThreads() ? events.threadIds[i] : -1;
            if (task != lastTask || thread != lastThread || lastTrack == TrackId::kNone) {
                lastTask = task;
                lastThread = thread;
                lastTrack = task >= 0     ? assigner.task(rank, row.rank, task)
                            : thread >= 0 ? assigner.thread(rank, row.rank, thread)
                                          : assigner.process(rank, row.rank);
            }
            trackOut[i] = lastTrack;
        }
    }
    // NVTX marks, and threads that ended a start/end range another thread began, get their
    // thread's track: the timeline then has a lane to draw them on even when that thread
    // recorded no range of its own.
    for (const NvtxMark& mark : capture.nvtx.marks)
        if (mark.thread >= 0)
            assigner.thread(ranks[mark.rank], mark.rank, mark.thread);
        else
            assigner.process(ranks[mark.rank], mark.rank);
    const auto& ends = capture.nvtx.crossThreadEnds;
    for (const auto& row : capture.rows)
        for (const EventSpan& span : capture.rowEvents(row).spans()) {
            auto it = std::lower_bound(ends.begin(), ends.end(), span.begin,
                                       [](const NvtxCrossThreadEnd& end, uint64_t e) { return end.event < e; });
            for (; it != ends.end() && it->event < span.end; ++it)
                assigner.thread(ranks[row.rank], row.rank, it->endThread);
        }
}

TrackId threadTrack(Capture& capture, int32_t rank, int64_t thread)
{
    for (size_t i = 0; i < capture.tracks.size(); ++i) {
        const Track& t = capture.tracks[i];
        if (t.kind == TrackKind::Thread && t.rank == rank && t.thread == thread && t.inferredLane == 0)
            return TrackId{uint32_t(i)};
    }
    Track t = makeTrack(TrackKind::Thread, rank);
    t.thread = thread;
    return addTrack(capture, t);
}

TrackId counterTrack(Capture& capture, int32_t rank, int32_t device, const std::string& name)
{
    const NameId id = capture.strings.intern(name);
    for (size_t i = 0; i < capture.tracks.size(); ++i) {
        const Track& t = capture.tracks[i];
        if (t.kind == TrackKind::Counter && t.rank == rank && t.device == device && t.name == id)
            return TrackId{uint32_t(i)};
    }
    Track t = makeTrack(TrackKind::Counter, rank);
    t.device = device;
    t.name = id;
    return addTrack(capture, t);
}

} // namespace spanscope::model
