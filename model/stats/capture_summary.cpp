#include "capture_summary.h"

#include "saturating.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>

namespace spanscope::model {

namespace {

std::optional<double> imbalance(const std::vector<RegionStats>& perRow, std::span<const uint32_t> rows)
{
    if (rows.size() < 2)
        return 0.0;
    int64_t maximum = 0, sum = 0;
    size_t positive = 0;
    for (const uint32_t r : rows) {
        const int64_t total = perRow[r].total;
        maximum = std::max(maximum, total);
        if (total > 0) {
            sum = addSaturating(sum, total);
            ++positive;
        }
    }
    if (positive == 0)
        return 0.0;
    const double mean = double(sum) / double(positive);
    return (double(maximum) / mean - 1.0) * 100.0;
}

} // namespace

std::shared_ptr<const CaptureSummary> summarizeCapture(const Capture& capture,
                                                       const ProgressRange& progress)
{
    auto summary = std::make_shared<CaptureSummary>();
    const size_t regionCount = capture.regionNames.size();
    summary->rowsOfRegion.resize(regionCount);
    for (uint32_t r = 0; r < capture.rows.size(); ++r)
        summary->rowsOfRegion[capture.rows[r].region].push_back(r);
    for (auto& rows : summary->rowsOfRegion)
        std::stable_sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
            return capture.rows[a].rank < capture.rows[b].rank;
        });

    const double total = double(std::max<size_t>(capture.events.size() * 2, 1));
    double done = 0;
    std::vector<int64_t> scratch;
    summary->perRow.resize(capture.rows.size());
    for (uint32_t r = 0; r < capture.rows.size(); ++r) {
        if (progress.cancelled())
            return nullptr;
        const uint32_t one[] = {r};
        summary->perRow[r] = computeRegionStats(capture, one, scratch);
        done += double(capture.rows[r].count);
        progress.report(done / total);
    }
    summary->pooled.resize(regionCount);
    for (uint32_t region = 0; region < regionCount; ++region) {
        if (progress.cancelled())
            return nullptr;
        const auto& rows = summary->rowsOfRegion[region];
        auto& pooled = summary->pooled[region];
        if (rows.size() == 1) {
            pooled = summary->perRow[rows.front()];
        } else {
            pooled = computeRegionStats(capture, rows, scratch);
            for (const uint32_t r : rows)
                done += double(capture.rows[r].count);
        }
        pooled.imbalancePercent = imbalance(summary->perRow, rows);
        progress.report(done / total);
    }

    // Region order: earliest first start, stable; regions without closed calls last.
    auto earliest = [&](uint32_t region) {
        const auto& stats = summary->pooled[region];
        return stats.closedCalls() > 0 && !stats.summaryOnly ? stats.startMin
                                                              : std::numeric_limits<int64_t>::max();
    };
    summary->regionOrder.resize(regionCount);
    std::iota(summary->regionOrder.begin(), summary->regionOrder.end(), 0u);
    std::stable_sort(summary->regionOrder.begin(), summary->regionOrder.end(),
                     [&](uint32_t a, uint32_t b) { return earliest(a) < earliest(b); });
    for (const uint32_t region : summary->regionOrder)
        for (const uint32_t r : summary->rowsOfRegion[region])
            summary->rowOrder.push_back(r);
    progress.report(1.0);
    return summary;
}

std::vector<ThreadBreakdown> threadBreakdown(const Capture& capture, std::span<const uint32_t> rows)
{
    std::vector<ThreadBreakdown> result;
    const auto& events = capture.events;
    const bool threadColumn = events.hasThreads();
    if (!threadColumn && events.track.empty())
        return result;
    std::vector<int64_t> scratch;
    for (const uint32_t r : rows) {
        const auto& row = capture.rows[r];
        std::set<int64_t> threads;
        for (uint64_t i = row.offset; i < row.offset + row.count; ++i)
            if (const int64_t thread = capture.threadOfEvent(r, i); threadColumn || thread >= 0)
                threads.insert(thread);
        for (const int64_t thread : threads) {
            ThreadBreakdown entry;
            entry.rank = row.rank;
            entry.threadId = thread;
            if (const auto* info = capture.thread(row.rank, thread))
                entry.threadName = capture.strings.text(info->name);
            const uint32_t one[] = {r};
            entry.stats = computeRegionStats(capture, one, scratch, ThreadFilter{thread});
            result.push_back(std::move(entry));
        }
    }
    return result;
}

} // namespace spanscope::model
