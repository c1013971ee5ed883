#pragma once
// One call that turns a path into a published, analysed capture: read (any format),
// nesting, summary.
// Runs on the calling thread (a worker); progress and cancel through LoadControl.

#include "capture.h"
#include "load_control.h"
#include "result.h"
#include "stats/capture_summary.h"
#include "timeline/timeline_index.h"

#include <memory>
#include <optional>
#include <string>

namespace spanscope::model {

struct LoadedCapture
{
    std::shared_ptr<const Capture> capture;
    std::shared_ptr<const CaptureSummary> summary;
    std::shared_ptr<const TimelineIndex> timeline; // null unless asked for
};

struct LoadOptions
{
    bool timeline = false; // also build the timeline index (12 bytes per call)
    bool keepArgs = true;  // Chrome traces: keep each event's args (the CLI's summary does not)
};

// Reads any file spanscope opens, by its content: HDF5 region files and spanscope
// captures (io/region_file_reader.h), Chrome trace JSON, plain or gzipped
// (io/chrome/chrome_trace_reader.h). Nesting is not computed.
Result<std::shared_ptr<Capture>> readCaptureFile(const std::string& path, const ProgressRange& progress,
                                                 LoadOptions options = {});

// Nesting, summary and (if asked) the timeline index of a capture that was just built
// (read from a file or assembled live). Null when `progress` says cancel.
std::optional<LoadedCapture> analyzeCapture(std::shared_ptr<Capture> capture,
                                            const ProgressRange& progress, LoadOptions options);

Result<LoadedCapture> loadCapture(const std::string& path, LoadControl* control = nullptr,
                                  LoadOptions options = {});

} // namespace spanscope::model
