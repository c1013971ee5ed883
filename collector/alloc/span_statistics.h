// The per-iteration figures of an operation from its spans: a least-squares slope through
// the origin with a heteroskedasticity-consistent (HC0) 95 % interval. Pure arithmetic;
// any thread.
#pragma once

#include <spanscope/alloc.h>

#include <cstdint>
#include <string>
#include <vector>

namespace spanscope::alloc_internal {

struct SpanRecord
{
    std::uint64_t iterations = 0, bytes = 0, allocations = 0;
    friend bool operator<(const SpanRecord& a, const SpanRecord& b)
    {
        if (a.iterations != b.iterations)
            return a.iterations < b.iterations;
        if (a.bytes != b.bytes)
            return a.bytes < b.bytes;
        return a.allocations < b.allocations;
    }
};

struct SlopeEstimate
{
    double slope;     // NaN when the spans hold no iteration
    double low, high; // NaN with fewer than two spans (or no iteration)
};

// Σ(nᵢ·xᵢ)/Σ(nᵢ²) over (iterations nᵢ, value xᵢ), with slope ± t(0.975, k-1)·se, where
// se² = Σ(nᵢ²·eᵢ²)/(Σnᵢ²)² and eᵢ = xᵢ - slope·nᵢ. `spans` must be sorted (operator<), so
// the floating-point sums come out the same however the spans were gathered.
SlopeEstimate slopeThroughOrigin(const std::vector<SpanRecord>& spans,
                                 std::uint64_t SpanRecord::*value);

// The totals and per-iteration figures of one operation from its spans (sorted, as for
// slopeThroughOrigin). Shared by Report and the viewer's summary of captured spans.
alloc::OperationReport operationReport(std::string name, const std::vector<SpanRecord>& spans);

// Student's t quantile for a two-sided 95 % interval (p = 0.975), df >= 1.
double studentT975(std::uint64_t degreesOfFreedom);

} // namespace spanscope::alloc_internal
