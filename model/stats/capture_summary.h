#pragma once
// Every statistic of a capture, per (region, rank) row and pooled per region, computed
// once on a worker thread. Immutable afterwards; any thread may read it.

#include "../column.h"
#include "../load_control.h"
#include "region_stats.h"

#include <memory>
#include <span>
#include <vector>

namespace spanscope::model {

// The rows of each region (region id -> its rows, by rank), stored flat: two allocations for
// the whole capture rather than one per region, which a capture with a region per call (a
// name per range, as PyTorch's emit_nvtx writes them) would pay a million times per update.
class RowsOfRegion
{
public:
    explicit RowsOfRegion(const Capture& capture);
    RowsOfRegion() = default;

    std::span<const uint32_t> operator[](uint32_t region) const
    {
        return {m_rows.data() + m_begin[region], size_t(m_begin[region + 1] - m_begin[region])};
    }
    size_t size() const { return m_begin.empty() ? 0 : m_begin.size() - 1; }

private:
    std::vector<uint32_t> m_begin; // region -> its first entry in m_rows; one more at the end
    std::vector<uint32_t> m_rows;  // row indices, region after region
};

class CaptureSummary;
// O(N) expected for N calls. Returns nullptr if cancelled.
std::shared_ptr<const CaptureSummary> summarizeCapture(const Capture& capture,
                                                       const ProgressRange& progress = {nullptr, 0, 1});

class CaptureSummary
{
public:
    // index = row index in capture.rows. A column (huge pages, see column.h): 280 bytes a
    // row, made afresh every live update, and a capture with a name per range has a
    // million rows.
    Column<RegionStats> perRow;
    RowsOfRegion rowsOfRegion;                     // region id -> its rows, by rank
    // Region ids ordered by earliest first start over all ranks (stable); regions that
    // recorded nothing come last.
    std::vector<uint32_t> regionOrder;
    // Row indices ordered by region order, then rank.
    std::vector<uint32_t> rowOrder;

    size_t regionCount() const { return rowsOfRegion.size(); }
    // A region's statistics over all its rows (ranks). Those of a region with a single row
    // are that row's (whose imbalance is then 0), kept once: a capture with a name per
    // range has a million such regions, and a second copy cost 280 bytes each per update.
    const RegionStats& pooled(uint32_t region) const
    {
        const uint32_t slot = m_pooledSlot[region];
        if (slot != kNotPooled)
            return m_pooled[slot];
        const auto rows = rowsOfRegion[region];
        return rows.empty() ? noRows() : perRow[rows.front()];
    }

private:
    friend std::shared_ptr<const CaptureSummary> summarizeCapture(const Capture&, const ProgressRange&);
    static constexpr uint32_t kNotPooled = UINT32_MAX;
    static const RegionStats& noRows();
    std::vector<uint32_t> m_pooledSlot;  // region id -> index into m_pooled, or kNotPooled
    std::vector<RegionStats> m_pooled;   // regions with several rows
};

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
