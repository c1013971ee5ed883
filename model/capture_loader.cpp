#include "capture_loader.h"

#include "io/region_file_reader.h"
#include "stats/nesting.h"

namespace spanscope::model {

Result<LoadedCapture> loadCapture(const std::string& path, LoadControl* control, LoadOptions options)
{
    const ProgressRange progress(control, 0.0, 1.0);
    auto read = io::readRegionFile(path, progress.sub(0.0, 0.6));
    if (!read)
        return read.error();
    std::shared_ptr<Capture> capture = std::move(read.value());
    const Error cancelled{ErrorCode::Cancelled, "loading was cancelled", path, {}};
    // The timeline index is collected during the nesting walk: one pass for both.
    TimelineIndexBuilder timeline;
    if (!computeNesting(*capture, progress.sub(0.6, 0.8), options.timeline ? &timeline : nullptr))
        return cancelled;
    auto summary = summarizeCapture(*capture, progress.sub(0.8, 1.0));
    if (!summary)
        return cancelled;
    LoadedCapture loaded{capture, std::move(summary), nullptr};
    if (options.timeline)
        loaded.timeline = timeline.finish(*capture);
    return loaded;
}

} // namespace spanscope::model
