#pragma once
// What one GPU device did and why it waited, by the definitions in docs/gpu-analyses.md:
// the utilization (how the span splits into compute, communication, memory and idle), the
// launch latency, and per stream its busy time, gaps (host wait or other wait) and largest
// queue; with the device's largest gaps. Plain values; any thread.

#include "gpu_work.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spanscope::model::analysis {

struct ClassFigures
{
    uint64_t count = 0;
    int64_t totalNs = 0; // summed durations (not their union), saturating
};

struct LabelFigures
{
    std::string name, pattern;
    uint64_t count = 0;
    int64_t totalNs = 0;
    int64_t busyNs = 0; // the union of the label's kernels
};

// ns. computeNs + communicationNs + memoryNs + idleNs == spanNs exactly.
struct Utilization
{
    int64_t firstStartNs = 0, lastEndNs = 0;
    int64_t spanNs = 0;
    int64_t computeNs = 0;       // |U(compute)|
    int64_t communicationNs = 0; // |U(communication) \ U(compute)|
    int64_t memoryNs = 0;        // |U(memory) \ (U(compute) ∪ U(communication))|
    int64_t idleNs = 0;          // span − |U(all)|
    int64_t communicationTotalNs = 0;      // |U(communication)|
    int64_t communicationOverlappedNs = 0; // |U(communication) ∩ U(compute)|
    ClassFigures classes[kGpuWorkClasses]; // by GpuWorkClass
    std::vector<LabelFigures> labels;      // by KernelClasses::labels()
};

// Per launched activity group (the activities of one launch call): the start of its
// first-starting activity minus the end of the call. ns; negative when the GPU started
// before the call returned.
struct LaunchLatency
{
    uint64_t count = 0;
    int64_t minNs = 0, medianNs = 0, maxNs = 0; // median: the lower one, sorted[(n − 1) / 2]
    uint64_t negative = 0;
    std::vector<int64_t> values; // every latency, in no particular order (for histograms)
};

enum class WaitKind : uint8_t {
    Host,  // the work after the gap was launched at or after the gap began
    Other, // it was launched before: the stream waited on another stream, an event, a sync
};
inline const char* waitKindName(WaitKind kind) { return kind == WaitKind::Host ? "host" : "other"; }

struct StreamFigures
{
    int64_t stream = -1;
    std::string name; // the stream's own name, "" = none
    uint64_t activities = 0;
    int64_t busyNs = 0;
    uint64_t gaps = 0;
    int64_t gapNs = 0, hostWaitNs = 0, otherWaitNs = 0; // hostWaitNs + otherWaitNs == gapNs
    uint64_t maxQueue = 0; // the most activities launched and not yet started at once
};

// A time a stream had nothing running: from the end of `before` (the latest end so far on
// the stream) to the start of `after`.
struct StreamGap
{
    int64_t stream = -1;
    int64_t startNs = 0, endNs = 0;
    uint32_t before = kNoEvent, after = kNoEvent; // events
    uint32_t beforeRegion = 0, afterRegion = 0;
    WaitKind kind = WaitKind::Host;
    int64_t deviceIdleNs = 0; // how much of it no stream of the device ran anything
};

struct DeviceFigures
{
    int32_t rank = 0, device = 0;
    std::string name; // from the device table, "" = unknown
    Utilization utilization;
    LaunchLatency launchLatency;
    std::vector<StreamFigures> streams; // by stream id
    std::vector<StreamGap> largestGaps; // the kLargestGaps largest, largest first, ties by time
};

inline constexpr size_t kLargestGaps = 20;

// O(A log A) for the device's A activities (the queue sorts launch times per stream).
DeviceFigures analyzeDevice(const Capture& capture, const DeviceWork& work, const KernelClasses& classes);

Utilization utilizationOf(const DeviceWork& work, const KernelClasses& classes);
LaunchLatency launchLatencyOf(const Capture& capture, const DeviceWork& work);

} // namespace spanscope::model::analysis
