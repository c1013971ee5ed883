#pragma once
// Statistics of a set of calls: one region on one rank, pooled over ranks, or one thread.

#include "../capture.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace spanscope::model {

// All times in ns. Optional fields are absent when the source cannot give them (summary-
// only rows have no percentiles or std; GPU/await only where recorded).
struct RegionStats
{
    uint64_t calls = 0;     // every recorded call, unclosed included
    uint64_t unclosed = 0;  // calls whose end precedes their start; no part in durations
    int64_t total = 0;      // sum of durations of closed calls (= inclusive time)
    double mean = 0.0;
    int64_t minimum = 0, maximum = 0;
    int64_t first = 0, last = 0; // first/last duration in recorded order
    std::optional<double> stddev;             // population (divide by n)
    std::optional<double> p50, p95, p99;
    std::optional<int64_t> exclusive;
    int64_t startMin = 0, endMax = 0;          // earliest start, latest end (closed calls)
    std::optional<uint64_t> gpuCalls;          // calls with a GPU value >= 0
    std::optional<int64_t> gpuTotal;
    std::optional<int64_t> awaitTotal;         // ns suspended inside the calls
    // Allocations made while the calls were innermost (exclusive): calls and requested
    // bytes, over the calls that recorded them; empty where none did.
    std::optional<int64_t> allocCount, allocBytes;
    // Spans of the allocation span API: the iterations they stated, summed (allocation
    // metrics of such a region are per iteration); nullopt for every other region.
    std::optional<int64_t> allocIterations;
    // Over a region's rows: (max rank total / mean - 1) * 100. Set in a region's pooled
    // statistics, and in those of a row that is its region's only one (0).
    std::optional<double> imbalancePercent;
    bool summaryOnly = false;                  // from stored aggregates; no per-call data

    uint64_t closedCalls() const { return calls - unclosed; }
    std::optional<double> gpuMean() const
    {
        if (!gpuCalls || *gpuCalls == 0)
            return std::nullopt;
        return double(*gpuTotal) / double(*gpuCalls);
    }
};

// Restricts statistics to the calls of one thread (index in the rank's thread_table).
struct ThreadFilter
{
    int64_t threadId = -1;
};

// Statistics over `rows` (indices into capture.rows). Across several rows (ranks) the
// durations are pooled; first = `first` of the row with the earliest start, last = `last`
// of the row with the latest end. Uses computeNesting()'s exclusive times when available,
// otherwise the file's stored exclusive totals. `scratch` is reused between calls to avoid
// reallocating. O(n) expected; where every one of `rows` has its durations from a live
// snapshot (Capture::rowDurations) and no thread is asked for, O(runs · log n) from those
// (plus a pass over the calls where the capture has GPU times, time suspended or
// allocations, which a call can gain after it closed).
RegionStats computeRegionStats(const Capture& capture, std::span<const uint32_t> rows,
                               std::vector<int64_t>& scratch,
                               std::optional<ThreadFilter> thread = std::nullopt);

// Durations (ns) of the closed calls in `rows`, in recorded order.
std::vector<int64_t> closedDurations(const Capture& capture, std::span<const uint32_t> rows,
                                     std::optional<ThreadFilter> thread = std::nullopt);

} // namespace spanscope::model
