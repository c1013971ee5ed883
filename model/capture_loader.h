#pragma once
// One call that turns a path into a published, analysed capture: read, nesting, summary.
// Runs on the calling thread (a worker); progress and cancel through LoadControl.

#include "capture.h"
#include "load_control.h"
#include "result.h"
#include "stats/capture_summary.h"

#include <memory>
#include <string>

namespace spanscope::model {

struct LoadedCapture
{
    std::shared_ptr<const Capture> capture;
    std::shared_ptr<const CaptureSummary> summary;
};

Result<LoadedCapture> loadCapture(const std::string& path, LoadControl* control = nullptr);

} // namespace spanscope::model
