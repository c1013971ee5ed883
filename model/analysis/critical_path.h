#pragma once
// The critical path of each rank, on Holistic Trace Analysis' model (docs/gpu-analyses.md):
// nodes are the starts and ends of CPU calls (on threads) and of GPU activities; each node
// depends on the node before it on its CPU thread (a call's start on its parent's start or
// its previous sibling's end, its end on its last child's end or its own start) or on its
// stream (an activity's start on the end of the work before it), on its launch call's
// start (an activity's start), and on synchronizations (a synchronizing call's end on the
// end of the work it waited for, a copy's launch call's end on the copy it waited for, an
// activity's start on the work a cudaStreamWaitEvent made its stream wait for). Of a node's
// dependencies the one that arrived last is what it waited for — HTA decides this at each
// kernel's start (a launch edge or a kernel-kernel edge, never both); here it is decided the
// same way at every node — so each node keeps one incoming edge and the critical path is the
// longest path ending at the rank's last node: the chain of last arrivals back to where it
// began. Each step's time goes to what bounds it, so the shares add up to the length exactly.
// Any thread; O(N log N) for N calls and activities.

#include "gpu_work.h"
#include "sync_calls.h"

#include <cstdint>
#include <vector>

namespace spanscope::model::analysis {

// What a step of the path is: which kind of edge it follows.
enum class PathShare : uint8_t {
    Cpu,              // along a CPU thread: inside a call or between calls
    GpuCompute,       // a compute kernel running
    GpuCommunication, // a communication kernel (NCCL, RCCL) running
    GpuMemory,        // a copy, memset or memory kernel running
    LaunchOverhead,   // from a launch call's start to its work's start on an idle stream
    KernelGap,        // from one activity's end to the next one's start on a busy stream
    Synchronization,  // from the awaited work's end to the end of the wait (host or stream)
};
inline constexpr int kPathShares = 7;
// "cpu", "gpu_compute", "gpu_communication", "gpu_memory", "launch_overhead", "kernel_gaps",
// "synchronization": the names of `bound_by` in the CLI's JSON.
inline const char* pathShareName(PathShare share)
{
    switch (share) {
    case PathShare::Cpu:
        return "cpu";
    case PathShare::GpuCompute:
        return "gpu_compute";
    case PathShare::GpuCommunication:
        return "gpu_communication";
    case PathShare::GpuMemory:
        return "gpu_memory";
    case PathShare::LaunchOverhead:
        return "launch_overhead";
    case PathShare::KernelGap:
        return "kernel_gaps";
    case PathShare::Synchronization:
        return "synchronization";
    }
    return "cpu";
}


struct PathNode
{
    uint32_t event = 0;   // the call or activity
    bool end = false;     // its end (else its start)
    int64_t timeNs = 0;
    PathShare via = PathShare::Cpu; // the step that reached it (meaningless on the first node)
    uint32_t region = 0;  // the event's region
    TrackId track;        // and track
};

struct CriticalPath
{
    int32_t rank = 0;
    int64_t lengthNs = 0;              // from the first node to the last, the sum of the shares
    int64_t boundBy[kPathShares] = {}; // ns per PathShare
    std::vector<PathNode> nodes;       // in time order, first to last
};

// One path per rank that has GPU work, by rank.
std::vector<CriticalPath> criticalPaths(const Capture& capture, const GpuWork& work,
                                        const std::vector<SyncCall>& syncs);

} // namespace spanscope::model::analysis
