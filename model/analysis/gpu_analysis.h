#pragma once
// Where a capture's GPU time went and why the GPU waited: per device its utilization,
// launch latency, streams and largest gaps, and per rank the critical path
// (docs/gpu-analyses.md). One implementation for the CLI, the GPU tab and comparison; a pure
// function of the capture, so imported, saved and live captures get the same answers.
// No Qt. Any thread; it takes a second core for part of the work where there is one.

#include "critical_path.h"
#include "device_figures.h"
#include "kernel_classes.h"

#include <memory>
#include <string>
#include <vector>

namespace spanscope::model::analysis {

struct LabelUse
{
    std::string name, pattern;
    uint64_t kernels = 0; // 0: the label matched no kernel of the capture (said, not silent)
};

struct GpuAnalysis
{
    std::vector<DeviceFigures> devices;        // by (rank, device); only devices with GPU work
    std::vector<CriticalPath> criticalPaths;   // by rank; ranks with GPU work
    std::vector<LabelUse> labels;              // the user's kernel labels and what they took
    std::vector<std::string> classSpecs;       // the classes used (KernelClasses::specs())
    bool multiRank = false;                    // devices of more than one rank

    bool empty() const { return devices.empty(); }
    // The longest of the ranks' critical paths (the one that bounds the run), or null.
    const CriticalPath* longestPath() const
    {
        const CriticalPath* longest = nullptr;
        for (const CriticalPath& path : criticalPaths)
            if (!longest || path.lengthNs > longest->lengthNs)
                longest = &path;
        return longest;
    }
};

// O(N log N) for N calls and activities.
GpuAnalysis analyzeGpu(const Capture& capture, const KernelClasses& classes = {});

} // namespace spanscope::model::analysis
