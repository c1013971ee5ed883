#pragma once
// The top-level members of a Chrome trace object other than "traceEvents": Kineto's
// deviceProperties and distributedInfo, otherData, spanscope's own export header, and
// anything else as metadata. Internal to model/io/chrome.

#include "json_values.h"
#include "trace_records.h"

#include <string_view>

namespace spanscope::model::io::chrome {

void readTopLevel(std::string_view key, sj::value value, Capture& capture, TraceRecords& records);

} // namespace spanscope::model::io::chrome
