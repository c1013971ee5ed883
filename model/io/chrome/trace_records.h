#pragma once
// What the Chrome trace walk (trace_walk.cpp) collects from the JSON before anything is
// laid out: every event as a small fixed-size record, strings interned into the capture's
// string table, args as references into its args store. trace_build.cpp turns these into
// a Capture once the whole file is read, because a trace may list events in any order and
// names its processes and threads (M events) anywhere, often at the very end.

#include "../../capture.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace spanscope::model::io::chrome {

// A pid or tid as the trace wrote it: a number, or a string mapped to a synthetic key.
using ProcessKey = int64_t;
using ThreadKey = int64_t;

// Where an event sits before tracks exist: a (pid, tid) pair, or for GPU work named by its
// args a (device, stream) pair.
struct LaneKey
{
    bool gpu = false; // true: (a, b) = (device, stream); false: (pid, tid)
    int64_t a = 0, b = 0;
    auto operator<=>(const LaneKey&) const = default;
};

struct Lane
{
    LaneKey key;
    ProcessKey pid = 0; // the pid the events came with (for GPU lanes: of the first one)
    ThreadKey tid = 0;
};

// A complete (X) event, a paired B/E, or a paired async b/e.
struct RawSlice
{
    int64_t start = 0, end = 0; // ns; end < start: never closed
    uint64_t args = ArgsRef::kNone;
    uint32_t name = 0, cat = 0; // NameId values
    uint32_t lane = 0;          // index into TraceRecords::lanes, or an async lane (asyncLane set)
    RegionKind kind = RegionKind::Cpu;
    bool asyncLane = false; // `lane` indexes TraceRecords::asyncLanes
};

// Attributes of a GPU activity slice from its args.
struct RawGpuActivity
{
    uint32_t slice = 0;
    uint64_t correlation = 0;
    uint32_t context = 0;
    std::optional<KernelLaunchShape> kernel;
    std::optional<uint64_t> copyBytes;
    CopyKind copyKind = CopyKind::Unknown;
};

struct RawBeginEnd
{
    int64_t ts = 0;
    uint64_t args = ArgsRef::kNone;
    uint32_t name = 0, cat = 0, lane = 0;
    uint32_t order = 0; // position in the file, breaks ties
    bool begin = true;
};

struct RawAsync
{
    int64_t ts = 0;
    uint64_t args = ArgsRef::kNone;
    uint32_t name = 0, cat = 0;
    uint32_t key = 0; // index into TraceRecords::asyncKeys: (cat, id, scope)
    ProcessKey pid = 0;
    uint32_t order = 0;
    char phase = 'b'; // 'b' begin, 'e' end, 'n' instant
};

struct RawFlow
{
    int64_t ts = 0;
    // 64-bit hash of (cat, scope, id, name): flows chain by it. A trace has about as many
    // flow ids as launches (millions); hashing spares a string per id, and two ids
    // colliding in 64 bits among a million is a one-in-ten-billion event.
    uint64_t key = 0;
    uint32_t lane = 0;
    uint32_t order = 0;
    char phase = 's';      // 's' start, 't' step, 'f' finish
    bool enclosing = true; // binds to the enclosing slice; false: the next slice to start
    FlowKind kind = FlowKind::User;
    // Kineto's launch flows (ac2g, or its older names): the id, which is the launch's
    // correlation number; 0 for other flows or an id that is not a number.
    uint64_t correlation = 0;
};

struct RawInstant
{
    int64_t ts = 0;
    uint64_t args = ArgsRef::kNone;
    uint32_t name = 0, lane = 0;
    char scope = 't'; // 't' thread, 'p' process, 'g' global
};

struct RawMemory
{
    int64_t ts = 0;
    uint32_t lane = 0;
    int32_t device = AllocationTable::kHost;
    uint64_t address = 0;
    int64_t bytes = 0;
    std::optional<int64_t> totalAllocated, totalReserved;
};

struct RawCounterSample
{
    int64_t ts = 0;
    double value = 0;
};

struct ProcessMeta
{
    std::string name, labels;
    std::optional<int64_t> sortIndex;
    std::optional<int64_t> rank; // "spanscope_rank" M event of spanscope's own exports
};

// Per-call values only a region file or live capture has, carried by spanscope's exports
// in "spanscope.*" args (slice -> ns).
struct RawCallExtras
{
    uint32_t slice = 0;
    int64_t gpuNs = -1, awaitNs = 0;
};

struct ThreadMeta
{
    std::string name;
    std::optional<int64_t> sortIndex;
};

// Source and tags of a (region, rank) row, from spanscope's own exports.
struct RowSource
{
    std::string name, kind, file, text;
    int64_t rank = 0, line = -1;
    std::vector<std::string> tags;
};

// Hash lookups by string_view into maps keyed by std::string, without building a string.
struct TextHash
{
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};
using TextIndex = std::unordered_map<std::string, uint32_t, TextHash, std::equal_to<>>;

struct TraceRecords
{
    std::vector<Lane> lanes;
    std::map<LaneKey, uint32_t> laneOf;
    std::vector<RawSlice> slices;
    std::vector<RawGpuActivity> gpuActivities;
    std::vector<std::pair<uint32_t, uint64_t>>
        launchCorrelations; // (slice, correlation) of runtime calls
    std::vector<RawBeginEnd> beginEnds;
    std::vector<RawAsync> asyncs;
    std::vector<std::string> asyncKeys;
    TextIndex asyncKeyOf;
    std::vector<RawFlow> flows;
    std::vector<RawInstant> instants;
    std::vector<RawMemory> memory;
    // Counter series by (pid, series name), samples in file order.
    std::map<std::pair<ProcessKey, std::string>, std::vector<RawCounterSample>> counters;
    std::set<ProcessKey> devicePids; // pids that carry GPU work (Kineto: pid = device)
    std::map<ProcessKey, ProcessMeta> processes;
    std::map<std::pair<ProcessKey, ThreadKey>, ThreadMeta> threads;
    std::map<std::string, std::string> stringPids; // synthetic key text -> the trace's string
    std::vector<DeviceInfo> devices;
    std::optional<int64_t> distributedRank, worldSize;
    Metadata metadata;
    std::vector<Warning> warnings;
    std::map<std::string, uint64_t> unknownPhases; // phase -> events not shown
    uint64_t skippedEvents = 0;                    // events whose fields had the wrong type
    std::string firstSkipped;                      // what was wrong with the first, and where
    uint64_t profilerSpans = 0;                    // Kineto's "Trace" spans left out of the regions
    bool kineto = false;                           // the file looks like a PyTorch profiler trace
    bool spanscopeExport = false; // written by spanscope: "spanscope.*" args carry GPU/await ns
    std::vector<RawCallExtras> extras;
    // Kineto's cuda_sync records that name the stream they waited for: (slice, wait_on_stream).
    std::vector<std::pair<uint32_t, int64_t>> syncWaitStreams;
    std::vector<RowSource> rowSources;
    uint32_t nextOrder = 0;

    uint32_t lane(LaneKey key, ProcessKey pid, ThreadKey tid)
    {
        auto [it, added] = laneOf.try_emplace(key, uint32_t(lanes.size()));
        if (added)
            lanes.push_back({key, pid, tid});
        return it->second;
    }
    static uint32_t keyOf(std::vector<std::string>& keys, TextIndex& index, std::string_view key)
    {
        if (const auto it = index.find(key); it != index.end())
            return it->second;
        const uint32_t id = uint32_t(keys.size());
        keys.emplace_back(key);
        index.emplace(keys.back(), id);
        return id;
    }
};

} // namespace spanscope::model::io::chrome
