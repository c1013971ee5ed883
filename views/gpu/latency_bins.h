#pragma once
// The launch latencies of a device binned for a histogram on a log axis: one set of
// log-spaced bins over their magnitudes, each counting the latencies ≥ 0 and the negative
// ones (the GPU started before the launch call returned) apart, so both show on one axis.
// No Qt; any thread.

#include <cstdint>
#include <span>
#include <vector>

namespace spanscope::views {

struct LatencyBins
{
    std::vector<double> edges;       // ns, ascending, counts.size() + 1 of them
    std::vector<uint64_t> positive;  // latencies ≥ 0 per bin (0 ns counts in the first)
    std::vector<uint64_t> negative;  // |latency| of the negative ones per bin
};

// O(n) for n latencies (plus the bins' binary searches).
LatencyBins binLatencies(std::span<const int64_t> latencies, int binCount = 48);

} // namespace spanscope::views
