#pragma once
// What the plot tests share (tst_plots.cpp, tst_plot_data.cpp): a capture summarized as the
// views get it, a small two-rank run with GPU times, and the rows of a region.

#include "model/stats/capture_summary.h"
#include "model/stats/nesting.h"

#include <memory>
#include <string>
#include <vector>

namespace spanscope::testing {

struct Snapshot
{
    std::shared_ptr<const model::Capture> capture;
    std::shared_ptr<const model::CaptureSummary> summary;
};

inline Snapshot summarize(std::shared_ptr<model::Capture> capture)
{
    model::computeNesting(*capture);
    auto summary = model::summarizeCapture(*capture);
    return {std::move(capture), std::move(summary)};
}

// Two ranks. "kernel" has GPU times; "host" has none; one kernel call never closed.
// kernel rank 0: wall 100, 200, 400 (gpu 90, 50, 400); rank 1: wall 1000 (gpu 0), 800
// (unclosed).
inline constexpr const char* kSmallGpuRun = R"(kernel 0 0 100 gpu=90
kernel 0 1000 1200 gpu=50
kernel 0 2000 2400 gpu=400
host 0 3000 3050
host 0 4000 4070
kernel 1 0 1000 gpu=0
kernel 1 2000 1200 gpu=10
host 1 3000 3300
)";

inline std::vector<uint32_t> rowsOf(const model::Capture& capture, const std::string& region)
{
    std::vector<uint32_t> rows;
    for (uint32_t r = 0; r < capture.rows.size(); ++r)
        if (capture.regionName(capture.rows[r].region) == region)
            rows.push_back(r);
    return rows;
}

} // namespace spanscope::testing
