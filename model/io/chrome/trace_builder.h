#pragma once
// The builder behind buildTrace (trace_build.h), shared by the files that make its parts:
// trace_build.cpp pairs begins with ends and lays the slices out as calls, trace_tracks.cpp
// decides ranks and tracks, trace_extras.cpp adds GPU activities, instants, counters,
// memory and metadata.

#include "trace_build.h"

#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace spanscope::model::io::chrome::builder {

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

} // namespace spanscope::model::io::chrome::builder
