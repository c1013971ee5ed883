#pragma once
// One pass over a Chrome trace's JSON (simdjson On-Demand, forward only, no DOM): every
// event becomes a record in TraceRecords; nothing is laid out yet (trace_build.h).

#include "../../load_control.h"
#include "../../result.h"
#include "chrome_trace_reader.h"
#include "json_input.h"
#include "trace_records.h"

namespace spanscope::model::io::chrome {

// Walks `input` (its padding may be written to, to close an array cut short). Strings go
// into capture.strings, args into capture.args. A file that stops being valid JSON part
// way keeps the events before that point and gets a warning; an error only when nothing
// could be read, or when cancelled.
Status walkTrace(JsonInput& input, const std::string& path, Capture& capture, TraceRecords& records,
                 const ChromeImportOptions& options, const ProgressRange& progress);

} // namespace spanscope::model::io::chrome
