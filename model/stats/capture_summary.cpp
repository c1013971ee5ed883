#include "capture_summary.h"

#include "saturating.h"
#include "../share_out.h"

#include <algorithm>
#include <atomic>
#include <limits>
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

RowsOfRegion::RowsOfRegion(const Capture& capture)
{
    // A counting sort by region keeps each region's rows in row order; then by rank.
    const size_t regions = capture.regionNames.size();
    m_begin.assign(regions + 1, 0);
    for (const RegionRow& row : capture.rows)
        ++m_begin[row.region + 1];
    for (size_t region = 0; region < regions; ++region)
        m_begin[region + 1] += m_begin[region];
    m_rows.resize(capture.rows.size());
    std::vector<uint32_t> next(m_begin.begin(), m_begin.end() - 1);
    for (uint32_t r = 0; r < capture.rows.size(); ++r)
        m_rows[next[capture.rows[r].region]++] = r;
    for (size_t region = 0; region < regions; ++region)
        if (m_begin[region + 1] - m_begin[region] > 1)
            std::stable_sort(m_rows.begin() + m_begin[region], m_rows.begin() + m_begin[region + 1],
                             [&](uint32_t a, uint32_t b) { return capture.rows[a].rank < capture.rows[b].rank; });
}

std::shared_ptr<const CaptureSummary> summarizeCapture(const Capture& capture,
                                                       const ProgressRange& progress)
{
    auto summary = std::make_shared<CaptureSummary>();
    const size_t regionCount = capture.regionNames.size();
    summary->rowsOfRegion = RowsOfRegion(capture);

    // The statistics of each row, and of each region over its rows where it has several,
    // are independent: shared out over two threads, largest first.
    summary->perRow.resize(capture.rows.size());
    summary->pooled.resize(regionCount);
    struct Job
    {
        bool pooled;    // a region over its rows, else one row
        uint32_t index; // region or row
        uint64_t calls;
    };
    std::vector<Job> jobs;
    jobs.reserve(capture.rows.size());
    for (uint32_t r = 0; r < capture.rows.size(); ++r)
        jobs.push_back({false, r, capture.rows[r].count});
    for (uint32_t region = 0; region < regionCount; ++region) {
        uint64_t calls = 0;
        for (const uint32_t r : summary->rowsOfRegion[region])
            calls += capture.rows[r].count;
        if (summary->rowsOfRegion[region].size() > 1)
            jobs.push_back({true, region, calls});
    }
    // Each job writes its own slot, so their order only balances the two threads' work.
    std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.calls > b.calls; });
    const double total = double(std::max<uint64_t>(capture.events.size() * 2, 1));
    std::atomic<uint64_t> done{0};
    std::vector<int64_t> scratch[2];
    shareOut(jobs.size(), [&](size_t j, int worker) {
        if (progress.cancelled())
            return;
        const Job& job = jobs[j];
        if (job.pooled) {
            summary->pooled[job.index] = computeRegionStats(capture, summary->rowsOfRegion[job.index], scratch[worker]);
        } else {
            const uint32_t one[] = {job.index};
            summary->perRow[job.index] = computeRegionStats(capture, one, scratch[worker]);
        }
        const uint64_t now = done.fetch_add(job.calls) + job.calls;
        if (worker == 0) // ProgressRange reports from one thread
            progress.report(double(now) / total);
    });
    if (progress.cancelled())
        return nullptr;
    for (uint32_t region = 0; region < regionCount; ++region) {
        const std::span<const uint32_t> rows = summary->rowsOfRegion[region];
        if (rows.size() == 1)
            summary->pooled[region] = summary->perRow[rows.front()];
        summary->pooled[region].imbalancePercent = imbalance(summary->perRow, rows);
    }

    // Region order: earliest first start, stable; regions without closed calls last. Sorted
    // as (start, region) pairs: comparing through `pooled` (280 bytes apart) missed the
    // cache on nearly every comparison with a million regions.
    std::vector<std::pair<int64_t, uint32_t>> byStart(regionCount);
    for (uint32_t region = 0; region < regionCount; ++region) {
        const auto& stats = summary->pooled[region];
        byStart[region] = {stats.closedCalls() > 0 && !stats.summaryOnly ? stats.startMin
                                                                          : std::numeric_limits<int64_t>::max(),
                           region};
    }
    std::sort(byStart.begin(), byStart.end());
    summary->regionOrder.resize(regionCount);
    for (uint32_t i = 0; i < regionCount; ++i)
        summary->regionOrder[i] = byStart[i].second;
    summary->rowOrder.reserve(capture.rows.size());
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
