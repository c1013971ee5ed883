#pragma once
// The numbers behind the overlaid histograms: one set of log-spaced bins shared by every
// run (so bars of different runs line up), each run's counts in them and its p50/p95/p99.
// The shared edges come from plots/histogram_bins.h's logHistogram over all runs' calls
// together. No Qt; pure functions, any thread.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace spanscope::views {

struct OverlaySeries
{
    bool perCall = false;             // false: the run has no per-call data for the region
    std::vector<uint64_t> counts;     // calls per shared bin; empty without per-call data
    uint64_t calls = 0;               // closed calls (= sum of counts)
    double p50 = 0, p95 = 0, p99 = 0; // ns, as model/ computes percentiles; 0 without calls
};

struct OverlayBins
{
    std::vector<double> edges;       // ns, ascending, counts.size() + 1 of them; empty: no calls
    std::vector<OverlaySeries> runs; // one per run given, in order
};

// Counts `durations` (ns) into the bins [edges[i], edges[i+1]); values below the first edge
// (0 ns calls on a log axis) go to the first bin, values at or past the last edge to the
// last, so the counts always sum to durations.size(). O(n log bins).
std::vector<uint64_t> countInBins(std::span<const double> edges,
                                  std::span<const int64_t> durations);

// Shared bins over every run's closed-call durations; a run given as nullopt has no
// per-call data. `binCount` as logHistogram's. O(n log n) for the percentiles.
OverlayBins overlayBins(std::vector<std::optional<std::vector<int64_t>>> durations, int binCount);

} // namespace spanscope::views
