#pragma once
// What a capture's GPU did, per device and stream, and what it allocated, per device: the
// figures behind the CLI summary's "gpu" and "allocations" and the viewer's GPU details.
// Any thread; reads the capture only. O(N) for N events.

#include "../capture.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spanscope::model {

struct StreamActivity
{
    int32_t device = 0;
    int64_t stream = -1; // -1: work the source tied to the device, not to a stream
    std::string name;    // the stream's name (NVTX's nvtxNameCudaStream, Kineto's), "" = none
    uint64_t kernels = 0, memcpys = 0, memsets = 0;
    int64_t kernelNs = 0, memcpyNs = 0, memsetNs = 0;
    uint64_t memcpyBytes = 0;
};

struct DeviceActivity
{
    int32_t rank = 0; // the process whose calls launched the device's work
    int32_t device = 0;
    std::string name; // from the device table; empty when the source has none
    std::vector<StreamActivity> streams; // by stream id
};

struct GpuSummary
{
    std::vector<DeviceActivity> devices; // by (rank, device id); only devices with GPU work
    uint64_t launchesMatched = 0;        // runtime calls linked to at least one activity
};

GpuSummary summarizeGpu(const Capture& capture);

struct AllocationTotals
{
    int32_t device = AllocationTable::kHost;
    uint64_t allocs = 0, frees = 0;
    int64_t allocBytes = 0; // sum of the sizes allocated
    // The most memory allocated at once: the source's own total where it reports one (an
    // "allocated" counter of the device), else the running sum of allocations and frees.
    int64_t peakBytes = 0;
};

std::vector<AllocationTotals> summarizeAllocations(const Capture& capture); // host first, then GPUs

} // namespace spanscope::model
