#include "gpu_analysis.h"

#include "gpu_work.h"
#include "model/share_out.h"
#include "sync_calls.h"

namespace spanscope::model::analysis {

GpuAnalysis analyzeGpu(const Capture& capture, const KernelClasses& classes)
{
    GpuAnalysis analysis;
    analysis.classSpecs = classes.specs();
    const GpuWork work = gatherGpuWork(capture, classes);
    for (size_t l = 0; l < classes.labels().size(); ++l)
        analysis.labels.push_back({classes.labels()[l].name, classes.labels()[l].pattern, work.labelKernels[l]});
    // The critical paths and each device's figures read only the capture and the work: on
    // both cores, the paths (the largest part, about half) first.
    analysis.devices.resize(work.devices.size());
    shareOut(1 + work.devices.size(), [&](size_t item, int) {
        if (item == 0)
            analysis.criticalPaths = criticalPaths(capture, work, syncCalls(capture));
        else
            analysis.devices[item - 1] = analyzeDevice(capture, work.devices[item - 1], classes);
    });
    for (const DeviceWork& device : work.devices)
        analysis.multiRank = analysis.multiRank || device.rank != work.devices.front().rank;
    return analysis;
}

} // namespace spanscope::model::analysis
