#include "gpu_analysis.h"

#include "gpu_work.h"
#include "sync_calls.h"

namespace spanscope::model::analysis {

GpuAnalysis analyzeGpu(const Capture& capture, const KernelClasses& classes)
{
    GpuAnalysis analysis;
    analysis.classSpecs = classes.specs();
    const GpuWork work = gatherGpuWork(capture, classes);
    for (size_t l = 0; l < classes.labels().size(); ++l)
        analysis.labels.push_back({classes.labels()[l].name, classes.labels()[l].pattern, work.labelKernels[l]});
    for (const DeviceWork& device : work.devices) {
        analysis.devices.push_back(analyzeDevice(capture, device, classes));
        analysis.multiRank = analysis.multiRank || device.rank != work.devices.front().rank;
    }
    analysis.criticalPaths = criticalPaths(capture, work, syncCalls(capture));
    return analysis;
}

} // namespace spanscope::model::analysis
