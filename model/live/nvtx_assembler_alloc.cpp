// NvtxAssembler's allocation records (libspanscope-alloc in the job): counts and size bins
// per (thread, innermost range), large allocations one by one, the heap in use.
#include "nvtx_assembler.h"

#include "../stats/saturating.h"

#include <algorithm>
#include <numeric>

namespace spanscope::model::live {

using namespace protocol;

CountedAllocations& NvtxAssembler::countedFor(uint32_t thread)
{
    const int64_t call = innermostOpen(thread);
    const int64_t region = call >= 0 ? int64_t(m_calls[size_t(call)].region) : -1;
    CountedAllocations& counted = m_counted[{thread, region}];
    counted.region = region;
    return counted;
}

NvtxAssembler::CallAllocations& NvtxAssembler::allocationsOf(size_t call)
{
    while (m_callAllocations.size() < m_calls.size()) // from now on appendCall keeps it whole
        m_callAllocations.push_back({});
    return m_callAllocations.edit(call);
}

void NvtxAssembler::onAllocDelta(const AllocDeltaRecord& r)
{
    if (m_finished)
        return;
    m_sawAllocations = true;
    const uint32_t thread = threadOf(r.tid);
    // Saturating: a damaged or hostile stream must not wrap the sums.
    const int64_t call = innermostOpen(thread);
    if (call >= 0) {
        CallAllocations& c = allocationsOf(size_t(call));
        c.allocations = addSaturatingUnsigned(c.allocations, r.allocations);
        c.bytes = addSaturatingUnsigned(c.bytes, r.bytes);
    }
    CountedAllocations& counted = countedFor(thread);
    counted.allocations = addSaturatingUnsigned(counted.allocations, r.allocations);
    counted.bytes = addSaturatingUnsigned(counted.bytes, r.bytes);
    counted.frees = addSaturatingUnsigned(counted.frees, r.frees);
}

void NvtxAssembler::onAllocSizeBin(const AllocSizeBinRecord& r)
{
    if (m_finished || r.bin >= CountedAllocations::kBins)
        return;
    m_sawAllocations = true;
    // Right after its thread's AllocDelta: the same range is innermost.
    CountedAllocations& counted = countedFor(threadOf(r.tid));
    counted.binAllocations[r.bin] = addSaturatingUnsigned(counted.binAllocations[r.bin], r.allocations);
    counted.binBytes[r.bin] = addSaturatingUnsigned(counted.binBytes[r.bin], r.bytes);
}

void NvtxAssembler::onLargeAlloc(const LargeAllocRecord& r)
{
    if (m_finished)
        return;
    m_sawAllocations = true;
    const int64_t ns = toNs(r.timestamp);
    seen(ns);
    m_large.push_back({ns, threadOf(r.tid), r.address, r.bytes});
}

void NvtxAssembler::onAllocTotals(const AllocTotalsRecord& r)
{
    if (m_finished)
        return;
    m_sawAllocations = true;
    // Samples come from the sender and, after large allocations, from the job's threads:
    // the latest in time wins, not the last to arrive.
    if (r.timestamp >= m_allocTotals.timestamp)
        m_allocTotals = r;
    m_peakLiveBytes = std::max(m_peakLiveBytes, r.liveBytes);
    const int64_t ns = toNs(r.timestamp);
    seen(ns);
    m_heapInUse.emplace_back(ns, r.liveBytes);
}

void NvtxAssembler::addAllocationTables(Capture& c) const
{
    std::vector<TrackId> trackOf(m_threads.size()); // by dense thread number, made on first use
    auto track = [&](uint32_t thread) {
        if (!trackOf[thread].valid())
            trackOf[thread] = threadTrack(c, 0, thread);
        return trackOf[thread];
    };
    for (const auto& [key, counted] : m_counted) {
        CountedAllocations row = counted;
        row.track = track(key.first);
        c.countedAllocations.push_back(row);
    }
    // A free matches the latest large allocation at its address before it in time (threads'
    // records arrive in any order); other frees were of blocks below the threshold (the
    // interposer cannot tell without a lookup).
    std::vector<uint32_t> order(m_large.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return m_large[a].time < m_large[b].time; });
    std::unordered_map<uint64_t, uint64_t> largeAt; // address -> requested bytes
    for (const uint32_t i : order) {
        const LargeAlloc& large = m_large[i];
        int64_t bytes = 0;
        if (large.bytes) {
            largeAt[large.address] = large.bytes;
            bytes = clampToInt64(large.bytes);
        } else if (auto it = largeAt.find(large.address); it != largeAt.end()) {
            bytes = -clampToInt64(it->second);
            largeAt.erase(it);
        } else {
            continue;
        }
        c.allocations.add(large.time, track(large.thread), large.address, bytes, AllocationTable::kHost);
    }
    c.allocations.finish();
    if (!m_heapInUse.empty()) {
        // "host allocated", the name sources with their allocator's own total use: the
        // heap in use of the whole process, not only what the large allocations add up to.
        CounterSeries heap;
        heap.track = counterTrack(c, 0, AllocationTable::kHost, "host allocated");
        heap.unit = c.strings.intern("bytes");
        for (const auto& [time, bytes] : m_heapInUse)
            heap.add(time, double(bytes));
        heap.finish();
        c.counters.push_back(std::move(heap));
    }
}

} // namespace spanscope::model::live
