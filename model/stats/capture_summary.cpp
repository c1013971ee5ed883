#include "capture_summary.h"

#include "saturating.h"
#include "../share_out.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <set>

namespace spanscope::model {

namespace {

std::optional<double> imbalance(const Column<RegionStats>& perRow, std::span<const uint32_t> rows)
{
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

const RegionStats& CaptureSummary::noRows()
{
    static const RegionStats none = [] {
        RegionStats stats;
        stats.imbalancePercent = 0.0;
        return stats;
    }();
    return none;
}

std::shared_ptr<const CaptureSummary> summarizeCapture(const Capture& capture,
                                                       const ProgressRange& progress)
{
    auto summary = std::make_shared<CaptureSummary>();
    const size_t regionCount = capture.regionNames.size();
    summary->rowsOfRegion = RowsOfRegion(capture);
    const RowsOfRegion& rowsOfRegion = summary->rowsOfRegion;

    // The statistics of each row, and of each region over its rows where it has several,
    // are independent: shared out over two threads in chunks of consecutive rows (or
    // regions) of about equal work, largest first. A chunk per row would cost two atomic
    // operations on a line both cores write, and a capture with a name per range has a
    // million rows.
    summary->perRow.resize(capture.rows.size());
    summary->m_pooledSlot.assign(regionCount, CaptureSummary::kNotPooled);
    std::vector<uint32_t> pooledRegions; // by slot
    for (uint32_t region = 0; region < regionCount; ++region) {
        if (rowsOfRegion[region].size() < 2)
            continue;
        summary->m_pooledSlot[region] = uint32_t(pooledRegions.size());
        pooledRegions.push_back(region);
    }
    summary->m_pooled.resize(pooledRegions.size());
    auto callsOfRegion = [&](uint32_t region) {
        uint64_t calls = 0;
        for (const uint32_t r : rowsOfRegion[region])
            calls += capture.rows[r].count;
        return calls;
    };
    // Rows first, then the pooled regions (slots of m_pooled): chunks from
    // `firstPooledChunk` on hold slots.
    constexpr uint64_t kItemWork = 16; // what a row costs besides its calls, in calls
    const uint64_t totalWork = 2 * capture.events.size() + kItemWork * (capture.rows.size() + pooledRegions.size());
    const uint64_t perChunk = std::max<uint64_t>(totalWork / 64, 4096);
    std::vector<WorkChunk> chunks;
    cutIntoChunks(uint32_t(capture.rows.size()), perChunk,
                  [&](uint32_t r) { return capture.rows[r].count + kItemWork; }, chunks);
    const size_t firstPooledChunk = chunks.size();
    cutIntoChunks(uint32_t(pooledRegions.size()), perChunk,
                  [&](uint32_t slot) { return callsOfRegion(pooledRegions[slot]) + kItemWork; }, chunks);
    // Each chunk writes its own slots, so their order only balances the two threads' work.
    const std::vector<uint32_t> schedule = largestFirst(chunks);
    std::atomic<uint64_t> done{0};
    std::vector<int64_t> scratch[2];
    shareOut(chunks.size(), [&](size_t item, int worker) {
        const WorkChunk& chunk = chunks[schedule[item]];
        const bool pooled = schedule[item] >= firstPooledChunk;
        for (uint32_t i = chunk.first; i < chunk.last && !progress.cancelled(); ++i) {
            if (pooled) {
                summary->m_pooled[i] = computeRegionStats(capture, rowsOfRegion[pooledRegions[i]], scratch[worker]);
            } else {
                const uint32_t one[] = {i};
                RegionStats& stats = summary->perRow[i];
                stats = computeRegionStats(capture, one, scratch[worker]);
                if (rowsOfRegion[capture.rows[i].region].size() == 1)
                    stats.imbalancePercent = 0.0; // the row is its region's pool
            }
        }
        const uint64_t now = done.fetch_add(chunk.work) + chunk.work;
        if (worker == 0) // ProgressRange reports from one thread
            progress.report(double(now) / double(std::max<uint64_t>(totalWork, 1)));
    });
    if (progress.cancelled())
        return nullptr;
    for (uint32_t slot = 0; slot < pooledRegions.size(); ++slot)
        summary->m_pooled[slot].imbalancePercent = imbalance(summary->perRow, rowsOfRegion[pooledRegions[slot]]);

    // Region order: earliest first start, stable; regions without closed calls last. Sorted
    // as (start, region) pairs: comparing through `pooled` (280 bytes apart) missed the
    // cache on nearly every comparison with a million regions.
    std::vector<std::pair<int64_t, uint32_t>> byStart(regionCount);
    for (uint32_t region = 0; region < regionCount; ++region) {
        const auto& stats = summary->pooled(region);
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
        for (const uint64_t i : capture.rowEvents(row))
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
