#pragma once
// Writes any capture (HDF5 region files, NVTX captures, imported traces) as Chrome
// trace-event JSON that Perfetto UI and chrome://tracing open, in the layout the PyTorch
// profiler uses: CPU processes and threads, GPUs as processes with one thread per stream,
// complete events per call, async tracks as async events, flows, counters, instants and
// allocations ("[memory]" events), names and metadata. Reading the file back with
// readChromeTrace() gives the same regions with the same statistics: what Chrome's format
// has no field for (a call's GPU or await time from a region file, its rank) travels in
// "spanscope.*" args and M events that other tools ignore.

#include "../../capture.h"
#include "../../load_control.h"
#include "../../result.h"

#include <string>

namespace spanscope::model::io {

// Atomic (temporary file + rename); gzip-compressed when `path` ends in ".gz". Any thread;
// reads the capture only. Progress and cancellation through `progress`.
Status writeChromeTrace(const Capture& capture, const std::string& path,
                        const ProgressRange& progress = {nullptr, 0, 1});

} // namespace spanscope::model::io
