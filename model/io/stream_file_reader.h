#pragma once
// Opens a recorded collector stream (.sps: what SPANSCOPE_OUTPUT writes, what
// scripts/gpu-check.sh brings back from a GPU machine) as a capture, assembled as the live
// viewer would. A damaged or cut stream keeps what decoded before the damage, with a warning.

#include "../capture.h"
#include "../load_control.h"
#include "../result.h"

#include <memory>
#include <string>

namespace spanscope::model::io {

// The file starts with the collector's frame magic ("SPSC").
bool looksLikeCollectorStream(const std::string& path);

Result<std::shared_ptr<Capture>> readCollectorStream(const std::string& path, const ProgressRange& progress);

} // namespace spanscope::model::io
