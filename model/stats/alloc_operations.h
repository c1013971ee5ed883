#pragma once
// The operations of the allocation span API (<spanscope/alloc.h>) a live capture holds:
// its spans are calls "alloc: <operation>" with their iterations (events.allocIterations).
// The figures are computed exactly as the program's own Report computes them (the same
// code), from every span of every process. Any thread; reads the capture only. O(spans log spans).

#include "../capture.h"

#include <spanscope/alloc.h>

#include <vector>

namespace spanscope::model {

inline constexpr const char* kAllocSpanRegionPrefix = "alloc: ";

// By operation name, ascending; empty when the capture has no spans.
std::vector<alloc::OperationReport> allocOperations(const Capture& capture);

} // namespace spanscope::model
