#include "span_statistics.h"

#include <cmath>
#include <limits>

namespace spanscope::alloc_internal {

double studentT975(std::uint64_t df)
{
    static constexpr double kTable[] = {
        12.7062047, 4.30265273, 3.18244631, 2.77644511, 2.57058184, 2.44691185, 2.36462425,
        2.30600414, 2.26215716, 2.22813885, 2.20098516, 2.17881283, 2.16036866, 2.14478669,
        2.13144955, 2.11990530, 2.10981558, 2.10092204, 2.09302405, 2.08596345, 2.07961384,
        2.07387307, 2.06865761, 2.06389856, 2.05953855, 2.05552944, 2.05183052, 2.04840714,
        2.04522964, 2.04227246};
    if (df == 0)
        return std::numeric_limits<double>::quiet_NaN();
    if (df <= std::size(kTable))
        return kTable[df - 1];
    // Cornish-Fisher expansion around the normal quantile: within 1e-6 from 31 on.
    const double z = 1.959963984540054, v = double(df);
    const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z, z9 = z7 * z * z;
    const double g1 = (z3 + z) / 4;
    const double g2 = (5 * z5 + 16 * z3 + 3 * z) / 96;
    const double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384;
    const double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160;
    return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

SlopeEstimate slopeThroughOrigin(const std::vector<SpanRecord>& spans,
                                 std::uint64_t SpanRecord::*value)
{
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    // long double: counts and sizes up to 2^32 square exactly into its 64-bit mantissa.
    long double nn = 0, nx = 0;
    for (const SpanRecord& s : spans) {
        const long double n = s.iterations;
        nn += n * n;
        nx += n * (long double)(s.*value);
    }
    if (nn == 0)
        return {kNaN, kNaN, kNaN};
    const long double slope = nx / nn;
    if (spans.size() < 2)
        return {double(slope), kNaN, kNaN};
    long double meat = 0;
    for (const SpanRecord& s : spans) {
        const long double n = s.iterations;
        const long double e = (long double)(s.*value) - slope * n;
        meat += n * n * e * e;
    }
    const double se = double(std::sqrt(meat) / nn);
    const double half = studentT975(spans.size() - 1) * se;
    return {double(slope), double(slope) - half, double(slope) + half};
}

alloc::OperationReport operationReport(std::string name, const std::vector<SpanRecord>& spans)
{
    alloc::OperationReport op;
    op.name = std::move(name);
    op.spans = spans.size();
    for (const SpanRecord& s : spans) {
        op.iterations += s.iterations;
        op.bytes += s.bytes;
        op.allocations += s.allocations;
    }
    const SlopeEstimate bytes = slopeThroughOrigin(spans, &SpanRecord::bytes);
    const SlopeEstimate allocations = slopeThroughOrigin(spans, &SpanRecord::allocations);
    op.bytesPerIteration = bytes.slope;
    op.bytesInterval = {bytes.low, bytes.high};
    op.allocationsPerIteration = allocations.slope;
    op.allocationsInterval = {allocations.low, allocations.high};
    return op;
}

} // namespace spanscope::alloc_internal
