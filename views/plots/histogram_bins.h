#pragma once
// The numbers behind the duration histogram: geometric (log-spaced) bins, the cumulative
// distribution and the marker statistics of a set of call durations. No Qt, so it is
// tested on its own and runs on a worker thread. Pure functions; any thread.

#include <cstdint>
#include <span>
#include <vector>

namespace spanscope::views {

// Bins [edges[i], edges[i+1]) in ns, the last one closed on the right. edges.size() is
// counts.size() + 1, ascending, geometric: edges[i] = lowest * (highest/lowest)^(i/n).
struct HistogramBins
{
    std::vector<double> edges;    // ns
    std::vector<uint64_t> counts; // calls per bin
    uint64_t total = 0;           // sum of counts: every duration given
    // Durations below the lowest edge (only 0 ns ones: a log axis cannot show 0), counted
    // in the first bin; the widget says so.
    uint64_t belowLowest = 0;
};

// One step of the cumulative distribution: `fraction` of the calls last <= `ns`.
struct CdfPoint
{
    double ns = 0.0;
    double fraction = 0.0; // in (0, 1]
};

// Everything the histogram shows of one selection, computed in one pass over a copy of
// its durations.
struct DurationDistribution
{
    HistogramBins bins;
    std::vector<CdfPoint> cdf;
    uint64_t calls = 0;                                 // closed calls
    int64_t minimum = 0, maximum = 0;                   // ns
    double mean = 0.0, p50 = 0.0, p95 = 0.0, p99 = 0.0; // ns; percentiles as model/ does
};

inline constexpr int kDefaultBinCount = 60;
inline constexpr size_t kDefaultCdfPoints = 2000;

// Log-spaced histogram of `durations` (ns, any order). Edges run from the smallest
// positive duration to the largest (a single value gets one bin from value/1.25 to
// value*1.25; only zeros are treated as 1 ns). `binCount` bins at most: fewer calls get
// fewer bins (4 x cube root of the count, at least 5), as 60 bins over a dozen calls
// would be mostly empty. Empty input: no bins. O(n).
HistogramBins logHistogram(std::span<const int64_t> durations, int binCount = kDefaultBinCount);

// The empirical CDF of ascending `sorted` durations, thinned to about `maxPoints` steps
// spread evenly over the calls. Every point is exact (the fraction of calls <= ns), the
// fractions never decrease and the last one is 1. O(min(n, maxPoints) log n).
std::vector<CdfPoint> cumulativeDistribution(std::span<const int64_t> sorted,
                                             size_t maxPoints = kDefaultCdfPoints);

// Bins, CDF, mean and p50/p95/p99 of `durations` (taken by value: it is sorted in place).
// O(n log n); for ten million calls about a second, so call it off the GUI thread then.
DurationDistribution describeDurations(std::vector<int64_t> durations,
                                       int binCount = kDefaultBinCount,
                                       size_t cdfPoints = kDefaultCdfPoints);

} // namespace spanscope::views
