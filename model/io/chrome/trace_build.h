#pragma once
// Turns the records of a walked Chrome trace into a Capture: processes become ranks, (pid,
// tid) pairs thread tracks, Kineto's GPU pids device and stream tracks, async ids packed
// task tracks; slices are laid out as (region, rank) rows; launches are linked to their
// GPU work by correlation id and by flow events; counters, instants and allocations go
// to their tracks. O(N log N) for N events.

#include "../../load_control.h"
#include "../../result.h"
#include "trace_records.h"

namespace spanscope::model::io::chrome {

Status buildTrace(TraceRecords& records, Capture& capture, const ProgressRange& progress);

} // namespace spanscope::model::io::chrome
