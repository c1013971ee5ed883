#pragma once
// What a live snapshot hands its analysis about each row's durations, so that the row's
// statistics cost what arrived since the last snapshot (docs/live-updates.md, "Statistics
// by merging"). A call is *committed* once it is closed: its start and end never change
// again, so its share of the sums and its duration in the sorted runs are kept from one
// snapshot to the next. The rest of the row (ranges still open, shown ending at the last
// timestamp) is added anew every snapshot.

#include "duration_runs.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace spanscope::model {

// Count, sum, extremes and spread of closed calls' durations (ns), one call at a time or
// merged. The spread is Welford's running mean and sum of squared deviations, merged as
// Chan et al. do, so any split of the calls gives the same figures up to rounding.
struct DurationSums
{
    uint64_t closed = 0;
    int64_t total = 0; // saturating
    int64_t minimum = std::numeric_limits<int64_t>::max();
    int64_t maximum = std::numeric_limits<int64_t>::min();
    int64_t startMin = std::numeric_limits<int64_t>::max();
    int64_t endMax = std::numeric_limits<int64_t>::min();
    double mean = 0.0, m2 = 0.0;

    // A closed call (end >= start).
    void add(int64_t start, int64_t end);
    void merge(const DurationSums& other);
};

// The committed calls of a row: every one counted, the closed ones summed and their
// durations kept sorted. Immutable once made; snapshots share it.
struct CommittedCalls
{
    uint64_t calls = 0;
    uint64_t unclosed = 0; // end before start: counted, no part in durations
    DurationSums sums;
    DurationRuns durations;

    // These calls and those given as (start, end) pairs, in any order.
    std::shared_ptr<const CommittedCalls> with(const std::vector<std::pair<int64_t, int64_t>>& added) const;
};

// One row of a live snapshot: its committed calls and the others (closed by the snapshot
// at its last timestamp), which together are every call of the row.
struct RowDurations
{
    std::shared_ptr<const CommittedCalls> committed; // never null
    uint64_t calls = 0, unclosed = 0;                // of the whole row
    DurationSums sums;                               // of the whole row's closed calls
    std::vector<int64_t> pending; // durations of the closed calls not committed, sorted

    // From the committed calls and the rest of the row as (start, end) pairs.
    static std::shared_ptr<const RowDurations> of(std::shared_ptr<const CommittedCalls> committed,
                                                  const std::vector<std::pair<int64_t, int64_t>>& rest);
};

} // namespace spanscope::model
