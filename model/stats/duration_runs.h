#pragma once
// Durations (ns) of a set of calls that only grows, kept as a few sorted runs that the
// sets made from one another share, so that a live row's exact percentiles cost what
// arrived since the last update rather than a selection over every call again.
//
// Adding k values sorts them into a run of their own and merges it with the runs before
// while the one before holds no more than twice as many (so each run holds more than
// twice the next: at most log2(n) runs, and a value is merged O(log n) times over the
// set's life). An order statistic is found across the runs by bisecting values:
// O(runs · log n) per probe, at most 64 probes.

#include "../column.h"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace spanscope::model {

class DurationRuns
{
public:
    // A column: a merged run's storage is new every time, and large ones are mappings of huge
    // pages, not faulted in 4 KiB at a time (column.h); nor zeroed before the merge writes it.
    using Run = std::shared_ptr<const Column<int64_t>>;

    // This set with `added` (any order) added; this one is left as it is (its runs shared).
    DurationRuns with(std::vector<int64_t> added) const;

    uint64_t size() const { return m_size; }
    // Sorted ascending, largest first.
    const std::vector<Run>& runs() const { return m_runs; }
    // Appends a view of every run to `out`.
    void viewsInto(std::vector<std::span<const int64_t>>& out) const;

private:
    std::vector<Run> m_runs;
    uint64_t m_size = 0;
};

// The k-th smallest (from 0) of the values of `runs`, each sorted ascending;
// k < their total size.
int64_t orderStatistic(std::span<const std::span<const int64_t>> runs, uint64_t k);

// Percentile p in [0, 100] of the values of `runs` (each sorted ascending), interpolated
// as percentileOfSorted() does; 0 when they hold none.
double percentileOfRuns(std::span<const std::span<const int64_t>> runs, double p);

} // namespace spanscope::model
