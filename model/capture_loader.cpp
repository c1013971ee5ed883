#include "capture_loader.h"

#include "io/region_file_reader.h"
#include "stats/nesting.h"

namespace spanscope::model {

Result<LoadedCapture> loadCapture(const std::string& path, LoadControl* control)
{
    const ProgressRange progress(control, 0.0, 1.0);
    auto read = io::readRegionFile(path, progress.sub(0.0, 0.6));
    if (!read)
        return read.error();
    std::shared_ptr<Capture> capture = std::move(read.value());
    const Error cancelled{ErrorCode::Cancelled, "loading was cancelled", path, {}};
    if (!computeNesting(*capture, progress.sub(0.6, 0.8)))
        return cancelled;
    auto summary = summarizeCapture(*capture, progress.sub(0.8, 1.0));
    if (!summary)
        return cancelled;
    return LoadedCapture{std::move(capture), std::move(summary)};
}

} // namespace spanscope::model
