#pragma once
// Opens Chrome trace-event JSON (.json, .json.gz; the JSON object or array form) as
// written by Chrome, Perfetto's converters and, above all, the PyTorch profiler (Kineto):
// CPU ranges, GPU kernels, copies and memsets on GPU stream tracks, launch flows,
// counters, instants, async ranges and allocations. Format:
// https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU
// and docs/chrome-trace-import.md for what spanscope makes of each part.

#include "../../capture.h"
#include "../../load_control.h"
#include "../../result.h"

#include <memory>
#include <string>

namespace spanscope::model::io {

struct ChromeImportOptions
{
    // Keep every event's args text (shown in the details, written back on export). The
    // CLI's summary does not need them and leaves them out.
    bool keepArgs = true;
};

// Reads the whole file on the calling thread (a worker). Damage that leaves events
// readable (a file cut short, a bad event, invalid UTF-8) becomes a warning; a file with
// nothing readable is an error naming the file and the byte offset.
Result<std::shared_ptr<Capture>> readChromeTrace(const std::string& path,
                                                 const ProgressRange& progress,
                                                 ChromeImportOptions options = {});

} // namespace spanscope::model::io
