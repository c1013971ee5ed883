#pragma once
// Whether two statistics agree: every figure exactly, but the standard deviation, which two
// ways of summing may round differently (relative 1e-9).

#include "model/stats/capture_summary.h"

#include <QString>
#include <algorithm>
#include <cmath>

namespace spanscope::testing {

// Empty if they agree, else the first figure that differs.
inline QString statsDifference(const model::RegionStats& a, const model::RegionStats& b)
{
    auto text = [](const auto& v) {
        if constexpr (requires { v.has_value(); })
            return v ? QString::number(*v) : QStringLiteral("none");
        else
            return QString::number(v);
    };
#define SPANSCOPE_SAME(field)                                                                              \
    if (!(a.field == b.field))                                                                             \
        return QStringLiteral(#field ": %1 against %2").arg(text(a.field), text(b.field));
    SPANSCOPE_SAME(calls)
    SPANSCOPE_SAME(unclosed)
    SPANSCOPE_SAME(total)
    SPANSCOPE_SAME(mean)
    SPANSCOPE_SAME(minimum)
    SPANSCOPE_SAME(maximum)
    SPANSCOPE_SAME(first)
    SPANSCOPE_SAME(last)
    SPANSCOPE_SAME(p50)
    SPANSCOPE_SAME(p95)
    SPANSCOPE_SAME(p99)
    SPANSCOPE_SAME(exclusive)
    SPANSCOPE_SAME(startMin)
    SPANSCOPE_SAME(endMax)
    SPANSCOPE_SAME(gpuCalls)
    SPANSCOPE_SAME(gpuTotal)
    SPANSCOPE_SAME(awaitTotal)
    SPANSCOPE_SAME(allocCount)
    SPANSCOPE_SAME(allocBytes)
    SPANSCOPE_SAME(allocIterations)
    SPANSCOPE_SAME(imbalancePercent)
    SPANSCOPE_SAME(summaryOnly)
#undef SPANSCOPE_SAME
    if (a.stddev.has_value() != b.stddev.has_value()
        || (a.stddev && std::fabs(*a.stddev - *b.stddev) > 1e-9 * std::max(1.0, std::fabs(*b.stddev))))
        return QStringLiteral("stddev: %1 against %2").arg(text(a.stddev), text(b.stddev));
    return {};
}

// Empty if every row's and region's statistics agree, else where they first differ.
inline QString summaryDifference(const model::CaptureSummary& a, const model::CaptureSummary& b)
{
    if (a.perRow.size() != b.perRow.size() || a.regionCount() != b.regionCount())
        return QStringLiteral("row or region counts differ");
    for (size_t r = 0; r < a.perRow.size(); ++r)
        if (const QString d = statsDifference(a.perRow[r], b.perRow[r]); !d.isEmpty())
            return QStringLiteral("row %1: %2").arg(r).arg(d);
    for (size_t region = 0; region < a.regionCount(); ++region)
        if (const QString d = statsDifference(a.pooled(uint32_t(region)), b.pooled(uint32_t(region))); !d.isEmpty())
            return QStringLiteral("region %1: %2").arg(region).arg(d);
    if (a.regionOrder != b.regionOrder)
        return QStringLiteral("region order differs");
    return {};
}

} // namespace spanscope::testing
