#pragma once
// One capture out of several processes of the same job: each process's capture (one
// NvtxAssembler per collector stream) becomes one rank of the result, in the order given.
// NVTX domains are merged by name (ids are per process), categories by (domain, number);
// metadata counts are summed and every process's warnings are kept, naming its pid.

#include "../capture.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace spanscope::model::live {

struct ProcessCapture
{
    uint32_t pid = 0; // 0 = unknown (the stream had no Hello)
    std::shared_ptr<const Capture> capture;
};

// Rank k of the result is processes[k]. A single process comes back as an equal capture
// (rank 0). The inputs are left unchanged. O(events).
std::shared_ptr<Capture> mergeProcesses(const std::vector<ProcessCapture>& processes);

} // namespace spanscope::model::live
