#pragma once
// Flows of a Chrome trace: launches linked to their GPU work by correlation id (Kineto
// writes it on both ends; this works without any flow event), and the trace's own flow
// events (s/t/f, chained by id) bound to the slices they point at: a start or step to the
// slice enclosing it, a finish to the next slice that begins at or after it, or with
// "bp": "e" to the enclosing one.

#include "trace_records.h"

#include <cstdint>
#include <vector>

namespace spanscope::model::io::chrome {

struct FlowStats
{
    uint64_t dangling = 0; // flow events that bound to no slice
};

// `eventOfSlice`: slice -> event index; `laneTracks`: lane -> the tracks its slices went
// to (a Kineto stream's kernels and its syncs are two tracks of one (pid, tid)). A flow
// event binds to the best slice of any of them: the enclosing one that starts last, or
// the next one that starts first. Fills capture.flows (finished). Needs the capture's
// event columns laid out and gpuActivities finished.
FlowStats linkFlows(const TraceRecords& records, Capture& capture,
                    const std::vector<uint32_t>& eventOfSlice,
                    const std::vector<std::vector<uint32_t>>& laneTracks);

} // namespace spanscope::model::io::chrome
