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
    AllocTap::report(b, ticks(), b->popReserve());
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

void AllocTap::writeDelta(ThreadBuffer* b, std::uint64_t now, std::size_t keep,
                          std::uint64_t allocations, std::uint64_t frees, std::uint64_t bytes)
{
    // Dropped (queue full): the next report covers this one's allocations too.
    const bool written = b->emplace<proto::AllocDeltaRecord>(keep, [&](proto::AllocDeltaRecord& r) {
        proto::setRecordHeader(r, proto::RecordType::AllocDelta);
        r.tid = b->tid();
        r.timestamp = now;
        r.allocations = allocations - b->allocationsReported;
        r.bytes = bytes - b->bytesReported;
        r.frees = frees - b->freesReported;
    });
    if (written) {
        b->allocationsReported = allocations;
        b->bytesReported = bytes;
        b->freesReported = frees;
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
    const alloc_internal::ProcessTotals totals = s_abi->processTotals();
    proto::AllocTotalsRecord r{};
    proto::setRecordHeader(r, proto::RecordType::AllocTotals);
    r.timestamp = nowTicks;
    r.allocations = totals.allocations;
    r.bytes = totals.bytes;
    r.frees = totals.frees;
    r.liveBytes = totals.liveUsableBytes;
    out.append(reinterpret_cast<const char*>(&r), sizeof r);
}

} // namespace spanscope::collector
