#pragma once
// Every statistic of a capture, per (region, rank) row and pooled per region, computed
// once on a worker thread. Immutable afterwards; any thread may read it.

#include "../load_control.h"
#include "region_stats.h"

#include <memory>
#include <vector>

namespace spanscope::model {

struct CaptureSummary
{
    std::vector<RegionStats> perRow;              // index = row index in capture.rows
    std::vector<RegionStats> pooled;              // index = region id
    std::vector<std::vector<uint32_t>> rowsOfRegion; // region id -> its rows, by rank
    // Region ids ordered by earliest first start over all ranks (stable); regions that
    // recorded nothing come last.
    std::vector<uint32_t> regionOrder;
    // Row indices ordered by region order, then rank.
    std::vector<uint32_t> rowOrder;
};

// O(N) expected for N calls. Returns nullptr if cancelled.
std::shared_ptr<const CaptureSummary> summarizeCapture(const Capture& capture,
                                                       const ProgressRange& progress = {nullptr, 0, 1});

// Statistics of one region on each thread it ran on (threads of all ranks in `rows`).
struct ThreadBreakdown
{
    int32_t rank = 0;
    int64_t threadId = -1;
    std::string threadName; // from the thread table; empty if unknown
    RegionStats stats;
};
std::vector<ThreadBreakdown> threadBreakdown(const Capture& capture, std::span<const uint32_t> rows);

} // namespace spanscope::model
