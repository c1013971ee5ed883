#include "capture_loader.h"

#include "gpu/gpu_counters.h"
#include "io/chrome/chrome_trace_reader.h"
#include "io/chrome/json_input.h"
#include "io/region_file_reader.h"
#include "io/stream_file_reader.h"
#include "stats/allocation_stats.h"
#include "stats/nesting.h"

namespace spanscope::model {

std::optional<LoadedCapture> analyzeCapture(std::shared_ptr<Capture> capture,
                                            const ProgressRange& progress, LoadOptions options)
{
    // The timeline index is collected during the nesting walk: one pass for both.
    TimelineIndexBuilder timeline;
    // A live snapshot's listed tracks go on from the walk of the snapshot its calls were
    // appended to, and leave theirs for the next (stats/nesting_carry.h).
    const std::shared_ptr<NestingCarrySlot> slot = options.timeline ? capture->nestingOrder.carrySlot.lock() : nullptr;
    std::shared_ptr<const NestingCarry> previous;
    if (slot) {
        std::lock_guard lock(slot->mutex);
        if (slot->carry && capture->nestingOrder.appendedTo != 0
            && slot->carry->layoutSerial == capture->nestingOrder.appendedTo)
            previous = slot->carry;
        slot->carry.reset(); // of no use to any later snapshot
    }
    NestingCarry next;
    NestingOptions nesting;
    nesting.resumeFrom = previous.get();
    nesting.carryOut = slot ? &next : nullptr;
    timeline.resumeFrom(previous.get(), *capture);
    if (!computeNesting(*capture, progress.sub(0.0, 0.5), options.timeline ? &timeline : nullptr, nesting))
        return std::nullopt;
    addImpliedAllocationCounters(*capture); // tracks exist now; the timeline index reads them
    // Each GPU's utilization and each stream's queue, as lanes (a live snapshot brings its
    // own, made as its work came: model/gpu/gpu_lanes.h).
    if (options.timeline)
        addGpuCounters(*capture);

    auto summary = summarizeCapture(*capture, progress.sub(0.5, 1.0));
    if (!summary)
        return std::nullopt;
    LoadedCapture loaded{capture, std::move(summary), nullptr};
    if (options.timeline)
        loaded.timeline = timeline.finish(*capture, slot ? &next : nullptr);
    previous.reset();
    if (slot && !next.tracks.empty()) {
        next.layoutSerial = capture->nestingOrder.layoutSerial;
        next.capture = capture;
        next.index = loaded.timeline;
        std::lock_guard lock(slot->mutex);
        slot->carry = std::make_shared<const NestingCarry>(std::move(next));
    }
    return loaded;
}

Result<std::shared_ptr<Capture>> readCaptureFile(const std::string& path, const ProgressRange& progress,
                                                 LoadOptions options)
{
    if (io::looksLikeJsonOrGzip(path))
        return io::readChromeTrace(path, progress, io::ChromeImportOptions{options.keepArgs});
    if (io::looksLikeCollectorStream(path))
        return io::readCollectorStream(path, progress);
    return io::readRegionFile(path, progress);
}

Result<LoadedCapture> loadCapture(const std::string& path, LoadControl* control, LoadOptions options)
{
    const ProgressRange progress(control, 0.0, 1.0);
    auto read = readCaptureFile(path, progress.sub(0.0, 0.6), options);
    if (!read)
        return read.error();
    auto analyzed = analyzeCapture(std::move(read.value()), progress.sub(0.6, 1.0), options);
    if (!analyzed)
        return Error{ErrorCode::Cancelled, "loading was cancelled", path, {}};
    return std::move(*analyzed);
}

} // namespace spanscope::model
