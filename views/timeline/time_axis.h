#pragma once
// Ruler ticks for a time window: 1-2-5 steps chosen so labels never crowd, labels in the
// unit that fits the step (ns to s), relative to an origin (run start) or absolute.

#include <QString>

#include <cstdint>
#include <vector>

namespace spanscope::views {

struct TimeTick
{
    double x = 0;   // px
    QString label;  // empty for minor ticks
};

// Ticks for [t0, t1) drawn `width` px wide, at least `minLabelPx` between labels.
std::vector<TimeTick> timeTicks(int64_t t0, int64_t t1, int width, int64_t origin, int minLabelPx = 90);

// "1.25 ms" with as many decimals as `stepNs` needs to tell neighbouring ticks apart.
QString formatTick(int64_t ns, int64_t stepNs);

} // namespace spanscope::views
