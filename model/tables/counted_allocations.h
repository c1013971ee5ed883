#pragma once
// Allocations counted by libspanscope-alloc in a live capture (spanscope-run --alloc), per
// thread and the range that was innermost on it when they were made: how many, their
// requested bytes, the blocks freed, and log2 size bins. Unlike AllocationTable rows these
// are sums, not single allocations: the job makes far too many to send one by one.

#include "../track.h"

#include <array>
#include <cstdint>

namespace spanscope::model {

struct CountedAllocations
{
    static constexpr size_t kBins = 64; // bin k: [2^k, 2^(k+1)) bytes, bin 0 also 0 and 1 byte

    TrackId track;       // the thread's track
    int64_t region = -1; // region id of the innermost range; -1 = outside every range
    uint64_t allocations = 0, bytes = 0, frees = 0;
    std::array<uint64_t, kBins> binAllocations{}, binBytes{};
};

} // namespace spanscope::model
