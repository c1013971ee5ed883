#include "duration_format.h"

#include <cmath>
#include <cstdio>

namespace spanscope::model::report {

std::string formatDuration(double ns)
{
    struct Unit
    {
        double scale;
        const char* name;
    };
    static const Unit units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}};
    const double magnitude = std::fabs(ns);
    char buffer[48];
    for (const auto& unit : units) {
        if (magnitude >= unit.scale) {
            const double value = ns / unit.scale;
            const int decimals = std::fabs(value) >= 100 ? 1 : std::fabs(value) >= 10 ? 2 : 3;
            std::snprintf(buffer, sizeof buffer, "%.*f %s", decimals, value, unit.name);
            return buffer;
        }
    }
    if (ns == std::floor(ns))
        std::snprintf(buffer, sizeof buffer, "%.0f ns", ns);
    else
        std::snprintf(buffer, sizeof buffer, "%.1f ns", ns);
    return buffer;
}

std::string formatBytes(double bytes)
{
    static const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
    char buffer[48];
    double value = bytes;
    const char* unit = nullptr;
    for (const char* candidate : units) {
        if (std::fabs(value) < 1024.0)
            break;
        value /= 1024.0;
        unit = candidate;
    }
    if (!unit) {
        std::snprintf(buffer, sizeof buffer, "%.0f B", bytes);
        return buffer;
    }
    const int decimals = std::fabs(value) >= 100 ? 1 : std::fabs(value) >= 10 ? 2 : 3;
    std::snprintf(buffer, sizeof buffer, "%.*f %s", decimals, value, unit);
    return buffer;
}

} // namespace spanscope::model::report
