// What libspanscope-alloc offers the NVTX collector when both are in a process. The
// collector finds it with dlsym(RTLD_DEFAULT, "spanscope_alloc_abi") and never links it:
// either library works alone.
#pragma once

#include "alloc_counters.h"
#include "alloc_observer.h"

#include <cstddef>
#include <cstdint>

namespace spanscope::alloc_internal {

struct AllocAbi
{
    static constexpr std::uint32_t kVersion = 2; // 2: ThreadCounters has size bins
    std::uint32_t version;   // kVersion of the library
    std::uint32_t size;      // sizeof(AllocAbi) of the library
    ThreadCounters* (*threadCounters)(); // the calling thread's block (alloc_counters.h)
    ProcessTotals (*processTotals)();
    void (*suppress)(int delta); // +1 / -1 around the collector's own allocations
    // Large allocations (at or above `threshold` requested bytes) and the frees of
    // possibly large blocks go to `large`; ended spans to `span`; threads about to exit to
    // `threadEnd`. Null observers: none.
    void (*observe)(LargeObserver large, std::size_t threshold, SpanObserver span,
                    ThreadEndObserver threadEnd);
};

} // namespace spanscope::alloc_internal

extern "C" const spanscope::alloc_internal::AllocAbi* spanscope_alloc_abi();
