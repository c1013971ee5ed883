#include "scaling_series.h"

#include <algorithm>

namespace spanscope::views {

std::vector<ScalingPoint> scalingSeries(std::span<const double> sizes,
                                        std::span<const std::optional<double>> times)
{
    std::vector<ScalingPoint> points;
    const size_t runs = std::min(sizes.size(), times.size());
    if (runs == 0)
        return points;
    const double firstSize = sizes[0] > 0 ? sizes[0] : 1.0;
    const std::optional<double> firstTime = times[0];
    for (size_t run = 0; run < runs; ++run) {
        ScalingPoint point;
        point.n = sizes[run];
        point.ideal = sizes[run] / firstSize;
        if (firstTime && *firstTime > 0 && times[run] && *times[run] > 0) {
            point.speedup = *firstTime / *times[run];
            if (point.ideal > 0)
                point.efficiency = *point.speedup / point.ideal;
        }
        points.push_back(point);
    }
    return points;
}

double defaultRunSize(const model::Capture& capture)
{
    if (const auto* size = model::findMetadata(capture.metadata, "mpi_size")) {
        if (size->kind == model::MetadataValue::Kind::Integer && size->integer > 0)
            return double(size->integer);
        if (size->kind == model::MetadataValue::Kind::Float && size->number > 0)
            return size->number;
    }
    return double(std::max<int32_t>(1, capture.numRanks));
}

std::optional<double> regionWallTime(const model::Capture& capture,
                                     const model::CaptureSummary& summary, const std::string& name)
{
    for (uint32_t region = 0; region < capture.regionNames.size(); ++region) {
        if (capture.regionName(region) != name)
            continue;
        std::optional<double> slowest;
        for (const uint32_t row : summary.rowsOfRegion[region])
            slowest = std::max(slowest.value_or(0.0), double(summary.perRow[row].total));
        return slowest;
    }
    return std::nullopt;
}

} // namespace spanscope::views
