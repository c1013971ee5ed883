// The collector's side of libspanscope-alloc, when both are in the job (spanscope-run
// --alloc preloads it): each thread reports what it allocated since its previous report
// right before each of its pushes and pops (so the viewer attributes it to the range that
// was innermost meanwhile) and when it exits; the sender samples the process totals about
// every 10 ms; large allocations and the span API's spans come through observers. The
// collector's own allocations are never counted (its sender runs with counting off, its
// slow paths switch it off).
#pragma once

#include "alloc/alloc_abi.h"
#include "protocol/spanscope_protocol.h"
#include "thread_buffer.h"

#include <cstdint>
#include <string>

namespace spanscope::collector {

class AllocTap
{
public:
    // Looks for libspanscope-alloc in the process and registers the observers; false when
    // it is not there. Once, from Collector::init.
    static bool attach();

    // A new ThreadBuffer of the calling thread: its counters (none without the library),
    // reported from where the thread's own counts start.
    static void startThread(ThreadBuffer* b);

    // Producer thread, before a Push or Pop: an AllocDelta when the thread allocated or
    // freed since its last one. Leaves `keep` bytes free in the block (room kept for pops).
    // `now()` gives the delta's timestamp (ticks); it is called only when a delta is
    // written, so a push without allocations reads the clock once, for its own record
    // (a TSC read costs about as much as the rest of the push).
    template <typename Now> static void report(ThreadBuffer* b, Now now, std::size_t keep)
    {
        const alloc_internal::ThreadCounters* c = b->allocCounters;
        if (!c)
            return;
        const std::uint64_t allocations = alloc_internal::load(c->allocations);
        const std::uint64_t frees = alloc_internal::load(c->frees);
        if (__builtin_expect(allocations == b->allocationsReported && frees == b->freesReported, 1))
            return;
        writeDelta(b, now(), keep, allocations, frees, alloc_internal::requestedBytes(*c));
    }

    // Sender: an AllocTotals record when 10 ms passed since the last one (or `force`).
    static void appendTotals(std::string& out, std::uint64_t nowTicks, bool force);

    // The process totals as of `nowTicks`. Only with the library attached.
    static void fillTotals(protocol::AllocTotalsRecord& r, std::uint64_t nowTicks);

    // Counting off (+1) or on again (-1) for the calling thread: the collector's own work.
    static void suppress(int delta)
    {
        if (s_abi)
            s_abi->suppress(delta);
    }

private:
    static void writeDelta(ThreadBuffer* b, std::uint64_t now, std::size_t keep,
                           std::uint64_t allocations, std::uint64_t frees, std::uint64_t bytes);
    static const alloc_internal::AllocAbi* s_abi;
};

// Counting off for the collector's own allocations in a scope.
struct CollectorAllocations
{
    CollectorAllocations() { AllocTap::suppress(1); }
    ~CollectorAllocations() { AllocTap::suppress(-1); }
    CollectorAllocations(const CollectorAllocations&) = delete;
    CollectorAllocations& operator=(const CollectorAllocations&) = delete;
};

} // namespace spanscope::collector
