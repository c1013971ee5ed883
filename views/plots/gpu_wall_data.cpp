#include "gpu_wall_data.h"

#include <algorithm>
#include <cmath>

namespace spanscope::views {

std::vector<RegionGpuTotals> regionGpuTotals(const model::Capture& capture,
                                             const model::CaptureSummary& summary,
                                             std::optional<int32_t> rank)
{
    std::vector<RegionGpuTotals> totals;
    for (uint32_t region = 0; region < summary.rowsOfRegion.size(); ++region) {
        RegionGpuTotals entry;
        entry.region = region;
        for (const uint32_t r : summary.rowsOfRegion[region]) {
            if (rank && capture.rows[r].rank != *rank)
                continue;
            const model::RegionStats& stats = summary.perRow[r];
            entry.calls += stats.calls;
            entry.wallNs += stats.total;
            entry.gpuCalls += stats.gpuCalls.value_or(0);
            entry.gpuNs += stats.gpuTotal.value_or(0);
        }
        if (entry.gpuCalls > 0)
            totals.push_back(entry);
    }
    std::stable_sort(
        totals.begin(), totals.end(),
        [](const RegionGpuTotals& a, const RegionGpuTotals& b) { return a.wallNs > b.wallNs; });
    return totals;
}

GpuWallPoints gpuWallPoints(const model::Capture& capture, std::span<const uint32_t> rows,
                            int cells)
{
    GpuWallPoints result;
    const auto& events = capture.events;
    if (!events.hasGpu())
        return result;
    auto usable = [&events](uint64_t i) {
        return events.end[i] >= events.start[i] && events.gpu[i] >= 0;
    };

    // First pass: the range, which the grid spans.
    int64_t lowest = 0, highest = 0;
    for (const uint32_t r : rows) {
        const auto& row = capture.rows[r];
        for (const uint64_t i : capture.rowEvents(row)) {
            if (!usable(i))
                continue;
            ++result.calls;
            for (const int64_t value : {events.end[i] - events.start[i], events.gpu[i]}) {
                if (value > 0 && (lowest == 0 || value < lowest))
                    lowest = value;
                highest = std::max(highest, value);
            }
        }
    }
    result.lowest = std::max<int64_t>(lowest, 1);
    result.highest = std::max<int64_t>(highest, result.lowest);
    if (result.calls == 0)
        return result;

    const bool thin = cells > 0;
    const double logLowest = std::log(double(result.lowest));
    const double span = std::log(double(result.highest)) - logLowest;
    const double cellsPerLog = thin && span > 0 ? double(cells) / span : 0.0;
    std::vector<bool> taken(thin ? size_t(cells) * size_t(cells) : 0, false);
    auto cellOf = [&](int64_t value) {
        const double v = double(std::max<int64_t>(value, 1));
        return size_t(std::clamp(int((std::log(v) - logLowest) * cellsPerLog), 0, cells - 1));
    };

    result.points.reserve(thin ? std::min<uint64_t>(result.calls, 1u << 16) : result.calls);
    for (const uint32_t r : rows) {
        const auto& row = capture.rows[r];
        for (const uint64_t i : capture.rowEvents(row)) {
            if (!usable(i))
                continue;
            const GpuWallPoint point{uint32_t(i), events.end[i] - events.start[i], events.gpu[i]};
            if (thin) {
                const size_t cell = cellOf(point.wallNs) * size_t(cells) + cellOf(point.gpuNs);
                if (taken[cell])
                    continue;
                taken[cell] = true;
            }
            result.points.push_back(point);
        }
    }
    return result;
}

} // namespace spanscope::views
