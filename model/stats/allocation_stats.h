#pragma once
// What was allocated, for the whole run or inside the calls of one region (on the same
// track, so a thread's allocations count for the ranges that thread had open), per device
// or all together: counts, bytes, the peak, log2 size histograms by count and by bytes,
// and the largest allocations. Any thread; reads the capture only. O(A log C) for A
// allocations and C calls of the region.

#include "../capture.h"
#include "saturating.h"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace spanscope::model {

struct AllocationScope
{
    std::optional<std::vector<uint32_t>> rows; // the region's capture rows; nullopt = whole run
    std::optional<int32_t> device;             // AllocationTable device; nullopt = every device
};

struct AllocationBreakdown
{
    static constexpr size_t kBins = 64;
    uint64_t allocs = 0, frees = 0;
    int64_t allocatedBytes = 0, freedBytes = 0; // freed counts positive
    // The largest sum of allocated minus freed bytes reached, taking the allocations in
    // scope in time order (for the whole run of one device: its peak memory in use, as far
    // as the source recorded allocations).
    int64_t peakBytes = 0;
    // Bin k holds allocations of [2^k, 2^(k+1)) bytes (bin 0 also 0 and 1 byte).
    std::array<uint64_t, kBins> countByLog2{};
    std::array<int64_t, kBins> bytesByLog2{};
    std::vector<uint32_t> largest; // AllocationTable rows, largest first
    // Host memory of a live capture (Capture::countedAllocations): counts, bytes and bins
    // are the sums counted per (thread, innermost range), so a region's are exclusive
    // (made while one of its calls was innermost on its thread); frees are counted, their
    // bytes are not; the peak is the heap in use (whole run only); `largest` holds the
    // allocations the collector sent one by one (at or above its threshold).
    bool counted = false;
    bool peakKnown = true; // false: peakBytes means nothing (a region of a live capture)
};

size_t log2Bin(uint64_t bytes);

// Live captures (Capture::countedAllocations): the sums over the rows that `pick(row)`
// selects, region set to -1. Saturating.
template <typename Pick> CountedAllocations sumCounted(const Capture& capture, Pick pick)
{
    CountedAllocations sum;
    auto add = [](uint64_t& to, uint64_t value) { to = addSaturatingUnsigned(to, value); };
    for (const CountedAllocations& row : capture.countedAllocations) {
        if (!pick(row))
            continue;
        add(sum.allocations, row.allocations);
        add(sum.bytes, row.bytes);
        add(sum.frees, row.frees);
        for (size_t bin = 0; bin < CountedAllocations::kBins; ++bin) {
            add(sum.binAllocations[bin], row.binAllocations[bin]);
            add(sum.binBytes[bin], row.binBytes[bin]);
        }
    }
    return sum;
}

// The counter allocation events imply: per (rank, device) without an "allocated" counter of
// the source's own (PyTorch reports its allocator's totals; a plain allocation stream does
// not), an "allocated" counter of the bytes allocated minus freed since the recording
// began, sampled at every event. Call after the capture has its tracks (computeNesting),
// before it is published.
void addImpliedAllocationCounters(Capture& capture);
AllocationBreakdown allocationBreakdown(const Capture& capture, const AllocationScope& scope, size_t largest = 50);

} // namespace spanscope::model
