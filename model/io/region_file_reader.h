#pragma once
// Opens any HDF5 region file scope-profiler has written (schema 1 per-rank groups,
// schema 2/3 columnar or aggregate; see docs/scope-profiler-hdf5.md) and spanscope's own
// captures, which are a schema-3 file plus extra groups.

#include "../capture.h"
#include "../load_control.h"
#include "../result.h"

#include <memory>
#include <string>

namespace spanscope::model::io {

// Reads the whole file. Runs on the calling thread (call it from a worker); reports
// progress to and honours cancellation from `control` when given. Warnings about
// recoverable oddities are attached to the capture. Nesting is not computed here; call
// computeNesting() (or analyzeCapture()) on the result.
Result<std::shared_ptr<Capture>> readRegionFile(const std::string& path,
                                                LoadControl* control = nullptr);
// Same, reporting progress into a part of a larger job's range.
Result<std::shared_ptr<Capture>> readRegionFile(const std::string& path,
                                                const ProgressRange& progress);

// Highest schema version this build reads.
constexpr int kNewestSchema = 3;

} // namespace spanscope::model::io
