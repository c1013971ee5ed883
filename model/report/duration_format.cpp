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

} // namespace spanscope::model::report
