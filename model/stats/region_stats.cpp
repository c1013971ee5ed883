#include "region_stats.h"

#include "saturating.h"
#include "percentile.h"
#include "row_durations.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace spanscope::model {

namespace {

// Up to this many durations, percentiles come from sorting them.
constexpr size_t kSortedPercentilesUpTo = 64;

bool inThread(const Capture& capture, uint32_t row, uint64_t i, const std::optional<ThreadFilter>& thread)
{
    return !thread || capture.threadOfEvent(row, i) == thread->threadId;
}

// Summary-only rows: what the stored aggregates say, nothing more.
RegionStats aggregateStats(const Capture& capture, std::span<const uint32_t> rows)
{
    RegionStats stats;
    stats.summaryOnly = true;
    int64_t exclusive = 0;
    bool exclusiveKnown = true;
    bool any = false;
    for (const uint32_t r : rows) {
        const auto& row = capture.rows[r];
        if (!row.aggregate)
            continue;
        const auto& a = *row.aggregate;
        stats.calls += a.count;
        stats.total = addSaturating(stats.total, a.total);
        if (a.count > 0) {
            stats.minimum = any ? std::min(stats.minimum, a.minimum) : a.minimum;
            stats.maximum = any ? std::max(stats.maximum, a.maximum) : a.maximum;
            any = true;
        }
        if (a.exclusive >= 0)
            exclusive = addSaturating(exclusive, a.exclusive);
        else
            exclusiveKnown = false;
    }
    stats.mean = stats.calls ? double(stats.total) / double(stats.calls) : 0.0;
    if (exclusiveKnown)
        stats.exclusive = exclusive;
    return stats;
}

std::optional<int64_t> exclusiveOf(const Capture& capture, std::span<const uint32_t> rows,
                                   const std::optional<ThreadFilter>& thread)
{
    if (thread) {
        if (!capture.nestingComputed)
            return std::nullopt;
        int64_t sum = 0;
        for (const auto& lane : capture.laneExclusive) {
            const Track& track = capture.track(lane.track);
            if (track.kind == TrackKind::Thread && track.thread == thread->threadId
                && std::find(rows.begin(), rows.end(), lane.row) != rows.end())
                sum = addSaturating(sum, lane.exclusiveNs);
        }
        return sum;
    }
    int64_t sum = 0;
    for (const uint32_t r : rows) {
        if (capture.nestingComputed)
            sum = addSaturating(sum, capture.rowExclusive[r]);
        else if (capture.rows[r].storedExclusive >= 0)
            sum = addSaturating(sum, capture.rows[r].storedExclusive);
        else
            return std::nullopt;
    }
    return sum;
}

// What a closed call adds besides its duration: GPU time, time suspended, allocations.
struct CallExtras
{
    int64_t gpuTotal = 0, awaitTotal = 0, allocCount = 0, allocBytes = 0, allocIterations = 0;
    uint64_t gpuCalls = 0, allocCalls = 0, spanCalls = 0;

    // `gpu`: false where the GPU time comes from the rows instead (addRow()).
    void add(const EventColumns& events, uint64_t i, bool gpu = true)
    {
        if (gpu && events.hasGpu() && events.gpu[i] >= 0) {
            ++gpuCalls;
            gpuTotal = addSaturating(gpuTotal, events.gpu[i]);
        }
        if (events.hasAwait())
            awaitTotal = addSaturating(awaitTotal, events.awaitNs[i]);
        if (events.hasAllocations() && events.allocCounts[i] >= 0) {
            ++allocCalls;
            allocCount = addSaturating(allocCount, events.allocCounts[i]);
            allocBytes = addSaturating(allocBytes, events.allocBytes[i]);
            if (!events.allocIterations.empty() && events.allocIterations[i] >= 0) {
                ++spanCalls;
                allocIterations = addSaturating(allocIterations, events.allocIterations[i]);
            }
        }
    }
    void addRow(const RowGpuTime& row)
    {
        gpuCalls += row.calls;
        gpuTotal = addSaturating(gpuTotal, row.total);
    }
    void into(const EventColumns& events, RegionStats& stats) const
    {
        if (events.hasGpu() && gpuCalls > 0) {
            stats.gpuCalls = gpuCalls;
            stats.gpuTotal = gpuTotal;
        }
        if (events.hasAwait())
            stats.awaitTotal = awaitTotal;
        if (allocCalls > 0) {
            stats.allocCount = allocCount;
            stats.allocBytes = allocBytes;
            if (spanCalls > 0)
                stats.allocIterations = allocIterations;
        }
    }
};

// Whether every one of `rows` has its durations from a live snapshot.
bool haveRowDurations(const Capture& capture, std::span<const uint32_t> rows)
{
    if (capture.rowDurations.size() != capture.rows.size())
        return false;
    return std::all_of(rows.begin(), rows.end(), [&](uint32_t r) { return capture.rowDurations[r] != nullptr; });
}

// computeRegionStats() from the rows' RowDurations: the same figures (the spread up to
// rounding), at a cost that does not grow with the calls but where the capture has time
// suspended or allocations, or GPU times the source does not sum per row
// (Capture::rowGpuTimes), which closed calls can still gain (a kernel that finishes after
// its launch returned) and so are summed from the columns.
RegionStats statsOfRowDurations(const Capture& capture, std::span<const uint32_t> rows)
{
    RegionStats stats;
    const auto& events = capture.events;
    DurationSums sums;
    std::vector<std::span<const int64_t>> runs;
    int64_t firstStart = std::numeric_limits<int64_t>::max();
    int64_t lastEnd = std::numeric_limits<int64_t>::min();
    CallExtras extras;
    const bool gpuOfRows = capture.rowGpuTimes.size() == capture.rows.size();
    const bool extrasFromColumns = events.hasAwait() || events.hasAllocations() || (events.hasGpu() && !gpuOfRows);
    for (const uint32_t r : rows) {
        const RowDurations& row = *capture.rowDurations[r];
        stats.calls += row.calls;
        stats.unclosed += row.unclosed;
        sums.merge(row.sums);
        row.committed->durations.viewsInto(runs);
        runs.emplace_back(row.pending);
        if (row.sums.closed == 0)
            continue;
        // The row's first and last closed calls in its order (by start), as the whole
        // computation sees them.
        const RowEvents calls = capture.rowEvents(r);
        const auto closed = [&](uint64_t k) { return events.end[calls[k]] >= events.start[calls[k]]; };
        uint64_t first = 0, last = calls.size();
        while (first < last && !closed(first))
            ++first;
        while (last > first && !closed(last - 1))
            --last;
        if (first == last)
            continue; // the durations disagree with the calls; nothing to take first and last from
        const uint64_t firstCall = calls[first], lastCall = calls[last - 1];
        if (events.start[firstCall] < firstStart) {
            firstStart = events.start[firstCall];
            stats.first = subtractSaturating(events.end[firstCall], events.start[firstCall]);
        }
        if (row.sums.endMax > lastEnd) {
            lastEnd = row.sums.endMax;
            stats.last = subtractSaturating(events.end[lastCall], events.start[lastCall]);
        }
        if (gpuOfRows)
            extras.addRow(capture.rowGpuTimes[r]);
        if (extrasFromColumns)
            for (const uint64_t i : calls)
                if (events.end[i] >= events.start[i])
                    extras.add(events, i, !gpuOfRows);
    }
    if (sums.closed == 0) {
        stats.stddev = 0.0;
        stats.p50 = stats.p95 = stats.p99 = 0.0;
    } else {
        stats.total = sums.total;
        stats.minimum = sums.minimum;
        stats.maximum = sums.maximum;
        stats.startMin = sums.startMin;
        stats.endMax = sums.endMax;
        stats.mean = double(sums.total) / double(sums.closed);
        stats.stddev = std::sqrt(std::max(0.0, sums.m2) / double(sums.closed));
        stats.p50 = percentileOfRuns(runs, 50.0);
        stats.p95 = percentileOfRuns(runs, 95.0);
        stats.p99 = percentileOfRuns(runs, 99.0);
    }
    extras.into(events, stats);
    stats.exclusive = exclusiveOf(capture, rows, std::nullopt);
    return stats;
}

} // namespace

std::vector<int64_t> closedDurations(const Capture& capture, std::span<const uint32_t> rows,
                                     std::optional<ThreadFilter> thread)
{
    std::vector<int64_t> durations;
    const auto& events = capture.events;
    for (const uint32_t r : rows) {
        const auto& row = capture.rows[r];
        for (const uint64_t i : capture.rowEvents(row))
            if (events.end[i] >= events.start[i] && inThread(capture, r, i, thread))
                durations.push_back(subtractSaturating(events.end[i], events.start[i]));
    }
    return durations;
}

RegionStats computeRegionStats(const Capture& capture, std::span<const uint32_t> rows,
                               std::vector<int64_t>& scratch, std::optional<ThreadFilter> thread)
{
    if (capture.layout == StorageLayout::Aggregate)
        return aggregateStats(capture, rows);
    if (!thread && haveRowDurations(capture, rows))
        return statsOfRowDurations(capture, rows);

    RegionStats stats;
    const auto& events = capture.events;
    scratch.clear();
    int64_t firstStart = std::numeric_limits<int64_t>::max();
    int64_t lastEnd = std::numeric_limits<int64_t>::min();
    CallExtras extras;
    stats.startMin = std::numeric_limits<int64_t>::max();
    stats.endMax = std::numeric_limits<int64_t>::min();

    for (const uint32_t r : rows) {
        const auto& row = capture.rows[r];
        bool rowHasFirst = false;
        int64_t rowFirstStart = 0, rowFirst = 0, rowLast = 0;
        int64_t rowLastEnd = std::numeric_limits<int64_t>::min();
        for (const uint64_t i : capture.rowEvents(row)) {
            if (!inThread(capture, r, i, thread))
                continue;
            ++stats.calls;
            const int64_t start = events.start[i], end = events.end[i];
            if (end < start) {
                ++stats.unclosed;
                continue;
            }
            const int64_t duration = subtractSaturating(end, start);
            scratch.push_back(duration);
            if (!rowHasFirst) {
                rowHasFirst = true;
                rowFirstStart = start;
                rowFirst = duration;
            }
            rowLast = duration;
            rowLastEnd = std::max(rowLastEnd, end);
            stats.startMin = std::min(stats.startMin, start);
            stats.endMax = std::max(stats.endMax, end);
            extras.add(events, i);
        }
        if (rowHasFirst) {
            if (rowFirstStart < firstStart) {
                firstStart = rowFirstStart;
                stats.first = rowFirst;
            }
            if (rowLastEnd > lastEnd) {
                lastEnd = rowLastEnd;
                stats.last = rowLast;
            }
        }
    }

    const size_t n = scratch.size();
    if (n == 0) {
        stats.startMin = stats.endMax = 0;
        stats.stddev = 0.0;
        stats.p50 = stats.p95 = stats.p99 = 0.0;
    } else {
        int64_t total = 0, minimum = scratch.front(), maximum = scratch.front();
        for (const int64_t d : scratch) {
            total = addSaturating(total, d);
            minimum = std::min(minimum, d);
            maximum = std::max(maximum, d);
        }
        stats.total = total;
        stats.minimum = minimum;
        stats.maximum = maximum;
        stats.mean = double(total) / double(n);
        double m2 = 0.0;
        for (const int64_t d : scratch) {
            const double delta = double(d) - stats.mean;
            m2 += delta * delta;
        }
        stats.stddev = std::sqrt(m2 / double(n));
        if (n <= kSortedPercentilesUpTo) {
            // The same order statistics and interpolation, without the two allocations a
            // call of percentilesOfUnsorted() costs: most rows of a capture with a region per
            // range hold one or two calls, and it has a million of them.
            std::sort(scratch.begin(), scratch.end());
            stats.p50 = percentileOfSorted(scratch, 50.0);
            stats.p95 = percentileOfSorted(scratch, 95.0);
            stats.p99 = percentileOfSorted(scratch, 99.0);
        } else {
            const auto ps = percentilesOfUnsorted(scratch, {50.0, 95.0, 99.0});
            stats.p50 = ps[0];
            stats.p95 = ps[1];
            stats.p99 = ps[2];
        }
    }
    extras.into(events, stats);
    stats.exclusive = exclusiveOf(capture, rows, thread);
    return stats;
}

} // namespace spanscope::model
