#pragma once
// The GPU work of a capture as the analyses read it, gathered once: per GPU device of a
// rank, its kernels, copies and memsets (closed ones; a call that never closed has no
// duration to analyse) in (start, end, event) order, each with its stream, class, label and
// the CPU call that launched it. Columns, no object per activity. Built from the capture
// alone, so every source (imported, saved, live) gets the same figures. Any thread.

#include "kernel_classes.h"
#include "model/capture.h"
#include "model/gpu/activity_launch.h"

#include <cstdint>
#include <vector>

namespace spanscope::model::analysis {

inline constexpr uint32_t kNoEvent = UINT32_MAX;

struct DeviceWork
{
    int32_t rank = 0;   // the process whose calls launched the device's work
    int32_t device = 0; // the source's device id (CUDA ordinal, Kineto's `device`)
    std::vector<int64_t> streams; // stream ids, ascending; `stream` below indexes it
    // One entry per activity, sorted by (start, end, event). ns.
    std::vector<uint32_t> event;
    std::vector<int64_t> start, end;
    std::vector<uint32_t> stream;
    std::vector<uint32_t> region;
    std::vector<RegionKind> kind; // Kernel, Memcpy or Memset
    std::vector<GpuWorkClass> workClass;
    std::vector<int16_t> label;   // KernelClasses::labels() index, -1 = none
    std::vector<uint32_t> launch; // event of the launch call, kNoEvent = none known

    size_t size() const { return event.size(); }
};

struct GpuWork
{
    std::vector<DeviceWork> devices; // by (rank, device)
    // Per label: kernels it took (a label that takes none is reported as such).
    std::vector<uint64_t> labelKernels;
};

// O(A log A) for A activities.
GpuWork gatherGpuWork(const Capture& capture, const KernelClasses& classes);

} // namespace spanscope::model::analysis
