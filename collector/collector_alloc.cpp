#include "collector_alloc.h"

#include "clock.h"
#include "collector.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

namespace spanscope::collector {

namespace proto = spanscope::protocol;

const alloc_internal::AllocAbi* AllocTap::s_abi = nullptr;

namespace {

// Allocations of at least this many requested bytes are sent one by one (bytes;
// SPANSCOPE_ALLOC_THRESHOLD overrides).
constexpr std::size_t kDefaultLargeThreshold = 1u << 20;
// The process totals are sampled this often (ns): at least 100 times a second.
constexpr std::uint64_t kTotalsIntervalNs = 10000000;

ThreadBuffer* recordingThread()
{
    Collector* c = Collector::instance();
    return c && c->enabled() ? c->threadBuffer() : nullptr;
}

void onLarge(void* address, std::size_t bytes, bool allocated)
{
    ThreadBuffer* b = recordingThread();
    if (!b)
        return;
    const std::uint64_t now = ticks();
    b->emplace<proto::LargeAllocRecord>(b->popReserve(), [&](proto::LargeAllocRecord& r) {
        proto::setRecordHeader(r, proto::RecordType::LargeAlloc);
        r.tid = b->tid();
        r.timestamp = now;
        r.address = reinterpret_cast<std::uintptr_t>(address);
        r.bytes = allocated ? bytes : 0;
    });
    // The heap in use right after it: the 10 ms samples alone would miss a large block
    // that lives shorter than that (O(threads), but large blocks cost far more anyway).
    b->emplace<proto::AllocTotalsRecord>(b->popReserve(), [&](proto::AllocTotalsRecord& r) {
        AllocTap::fillTotals(r, now);
    });
}

void onSpan(const char* operation, std::size_t length, std::int64_t startNs, std::int64_t endNs,
            bool process, std::uint64_t iterations, std::uint64_t bytes, std::uint64_t allocations)
{
    ThreadBuffer* b = recordingThread();
    if (!b)
        return;
    const std::uint32_t name = Collector::instance()->strings().intern(std::string_view(operation, length));
    b->emplace<proto::AllocSpanRecord>(b->popReserve(), [&](proto::AllocSpanRecord& r) {
        proto::setRecordHeader(r, proto::RecordType::AllocSpan);
        r.tid = b->tid();
        r.startNs = startNs;
        r.endNs = endNs;
        r.iterations = iterations;
        r.bytes = bytes;
        r.allocations = allocations;
        r.operation = name;
        r.process = process ? 1 : 0;
    });
}

// The thread is exiting: its last allocations go out now, before its counters are reused.
void onThreadEnd(const alloc_internal::ThreadCounters* counters)
{
    Collector* c = Collector::instance();
    ThreadBuffer* b = c ? c->existingThreadBuffer() : nullptr;
    if (!b || b->allocCounters != counters)
        return;
    AllocTap::report(b, ticks, b->popReserve());
    b->allocCounters = nullptr;
}

} // namespace

bool AllocTap::attach()
{
    using AbiFn = const alloc_internal::AllocAbi* (*)();
    auto abiFn = reinterpret_cast<AbiFn>(::dlsym(RTLD_DEFAULT, "spanscope_alloc_abi"));
    const alloc_internal::AllocAbi* abi = abiFn ? abiFn() : nullptr;
    if (!abi || abi->version != alloc_internal::AllocAbi::kVersion ||
        abi->size != sizeof(alloc_internal::AllocAbi)) {
        if (abi)
            Collector::logOnce("libspanscope-alloc is from another version; allocations not recorded");
        return false;
    }
    std::size_t threshold = kDefaultLargeThreshold;
    if (const char* text = std::getenv("SPANSCOPE_ALLOC_THRESHOLD"); text && *text) {
        char* end = nullptr;
        const unsigned long long value = std::strtoull(text, &end, 10);
        if (end && *end == '\0' && value > 0)
            threshold = std::size_t(value);
    }
    s_abi = abi;
    abi->observe(&onLarge, threshold, &onSpan, &onThreadEnd);
    return true;
}

void AllocTap::startThread(ThreadBuffer* b)
{
    const alloc_internal::ThreadCounters* c = s_abi ? s_abi->threadCounters() : nullptr;
    b->allocCounters = c;
    if (!c)
        return;
    // A block an exited thread left behind holds that thread's counts too.
    b->allocationsReported = c->start.allocations;
    b->bytesReported = c->start.bytes;
    b->freesReported = c->start.frees;
    std::memcpy(b->binAllocationsReported, c->start.binAllocations, sizeof c->start.binAllocations);
    std::memcpy(b->binBytesReported, c->start.binBytes, sizeof c->start.binBytes);
}

void AllocTap::writeDelta(ThreadBuffer* b, std::uint64_t now, std::size_t keep,
                          std::uint64_t allocations, std::uint64_t frees, std::uint64_t bytes)
{
    const alloc_internal::ThreadCounters* c = b->allocCounters;
    // The size bins that changed go right after the delta. The delta keeps room for them
    // in its block, so either all of them are written or none (nothing else writes to the
    // block in between: one producer).
    std::uint8_t changed[alloc_internal::kSizeBins];
    std::size_t count = 0;
    for (std::size_t bin = 0; bin < alloc_internal::kSizeBins; ++bin)
        if (alloc_internal::load(c->binAllocations[bin]) != b->binAllocationsReported[bin])
            changed[count++] = std::uint8_t(bin);
    // Dropped (queue full): the next report covers this one's allocations too.
    const bool written = b->emplace<proto::AllocDeltaRecord>(
        keep + count * sizeof(proto::AllocSizeBinRecord), [&](proto::AllocDeltaRecord& r) {
            proto::setRecordHeader(r, proto::RecordType::AllocDelta);
            r.tid = b->tid();
            r.timestamp = now;
            r.allocations = allocations - b->allocationsReported;
            r.bytes = bytes - b->bytesReported;
            r.frees = frees - b->freesReported;
        });
    if (!written)
        return;
    b->allocationsReported = allocations;
    b->bytesReported = bytes;
    b->freesReported = frees;
    for (std::size_t k = 0; k < count; ++k) {
        const std::size_t bin = changed[k];
        const std::uint64_t binAllocations = alloc_internal::load(c->binAllocations[bin]);
        const std::uint64_t binBytes = alloc_internal::load(c->binBytes[bin]);
        b->emplace<proto::AllocSizeBinRecord>(keep, [&](proto::AllocSizeBinRecord& r) {
            proto::setRecordHeader(r, proto::RecordType::AllocSizeBin);
            r.tid = b->tid();
            r.bin = std::uint32_t(bin);
            r.reserved = 0;
            r.allocations = binAllocations - b->binAllocationsReported[bin];
            r.bytes = binBytes - b->binBytesReported[bin];
        });
        b->binAllocationsReported[bin] = binAllocations;
        b->binBytesReported[bin] = binBytes;
    }
}

void AllocTap::appendTotals(std::string& out, std::uint64_t nowTicks, bool force)
{
    static std::uint64_t lastNs = 0;
    if (!s_abi)
        return;
    const std::uint64_t now = monotonicNs();
    if (!force && now - lastNs < kTotalsIntervalNs)
        return;
    lastNs = now;
    proto::AllocTotalsRecord r;
    fillTotals(r, nowTicks);
    out.append(reinterpret_cast<const char*>(&r), sizeof r);
}

void AllocTap::fillTotals(proto::AllocTotalsRecord& r, std::uint64_t nowTicks)
{
    const alloc_internal::ProcessTotals totals = s_abi->processTotals();
    proto::setRecordHeader(r, proto::RecordType::AllocTotals);
    r.reserved = 0;
    r.timestamp = nowTicks;
    r.allocations = totals.allocations;
    r.bytes = totals.bytes;
    r.frees = totals.frees;
    r.liveBytes = totals.liveUsableBytes;
}

} // namespace spanscope::collector
