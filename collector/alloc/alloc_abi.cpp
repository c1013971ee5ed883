#include "alloc_abi.h"

#include <cstdint>

namespace spanscope::alloc_internal {

std::size_t g_largeThreshold = SIZE_MAX;
LargeObserver g_largeObserver = nullptr;
SpanObserver g_spanObserver = nullptr;
ThreadEndObserver g_threadEndObserver = nullptr;

namespace {

void suppress(int delta)
{
    t_suppress += delta;
}

void observe(LargeObserver large, std::size_t threshold, SpanObserver span,
             ThreadEndObserver threadEnd)
{
    __atomic_store_n(&g_threadEndObserver, threadEnd, __ATOMIC_RELEASE);
    __atomic_store_n(&g_largeObserver, large, __ATOMIC_RELEASE);
    __atomic_store_n(&g_largeThreshold, large ? threshold : SIZE_MAX, __ATOMIC_RELAXED);
    __atomic_store_n(&g_spanObserver, span, __ATOMIC_RELEASE);
}

const AllocAbi kAbi{AllocAbi::kVersion, sizeof(AllocAbi), [] { return threadCounters(); }, &processTotals,
                    &suppress, &observe};

} // namespace
} // namespace spanscope::alloc_internal

extern "C" __attribute__((visibility("default"))) const spanscope::alloc_internal::AllocAbi*
spanscope_alloc_abi()
{
    return &spanscope::alloc_internal::kAbi;
}
