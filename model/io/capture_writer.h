#pragma once
// Saves a Capture as a scope-profiler schema-3 region file (docs/capture-format.md) that
// scope-profiler's own readers and readRegionFile() open, plus a /spanscope group that
// marks the file as written by spanscope.

#include "../capture.h"
#include "../load_control.h"
#include "../result.h"

#include <string>

namespace spanscope::model::io {

// Version of what spanscope adds to the region format (attribute /spanscope@format_version).
// 2: /spanscope/counters, /spanscope/alloc and /events/alloc_iterations (live allocations).
// 3: /spanscope/gpu (GPU tracks, kernels, copies, flows and devices of live CUDA captures).
constexpr int64_t kCaptureFormatVersion = 3;

// Files holding at least this many events get chunked, gzip-4 + shuffle event columns,
// as scope-profiler's `hdf5_compression="auto"` does; smaller files stay contiguous.
constexpr uint64_t kCompressEventsFrom = 16384;

// Writes `capture` to `path` atomically: into `path + ".tmp-<pid>"` in the same directory,
// fsync, then rename over `path`. On any failure the temporary file is removed, an existing
// file at `path` is left untouched, and the Error names the path and what failed.
// Columnar and per-rank captures are written as storage_layout "columnar", aggregate ones
// as "aggregate". Holds hdf5Mutex() for the whole write. Runs on the calling thread (a
// worker); reports progress and honours cancellation through `progress`. Memory beyond
// the capture: one slab (8 MiB) per event column being written, plus the index columns;
// a capture whose rows are held in several spans of its columns (row_events.h) is laid out
// again first, into a copy (a file keeps each row as one span).
Status writeCaptureFile(const Capture& capture, const std::string& path,
                        const ProgressRange& progress = {nullptr, 0, 1});

} // namespace spanscope::model::io
