#include "time_axis.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace spanscope::views {

QString formatTick(int64_t ns, int64_t stepNs)
{
    struct Unit
    {
        int64_t scale;
        const char* name;
    };
    static const Unit units[] = {{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "µs"}, {1, "ns"}};
    const int64_t magnitude = std::max<int64_t>(std::llabs(ns), stepNs);
    for (const auto& unit : units) {
        if (magnitude >= unit.scale || unit.scale == 1) {
            int decimals = 0;
            for (int64_t step = stepNs; step < unit.scale && decimals < 9; step *= 10)
                ++decimals;
            return QString::number(double(ns) / double(unit.scale), 'f', decimals) + QChar(' ')
                   + QString::fromUtf8(unit.name);
        }
    }
    return QString::number(ns);
}

int64_t niceStep(double wantedNs)
{
    for (int64_t decade = 1; decade <= INT64_C(1'000'000'000'000'000); decade *= 10)
        for (const int64_t mult : {1, 2, 5})
            if (double(decade * mult) >= wantedNs)
                return decade * mult;
    return INT64_C(1'000'000'000'000'000);
}

TimeRuler timeRuler(int64_t t0, int64_t t1, int width, int64_t origin, int minLabelPx)
{
    TimeRuler ruler;
    if (t1 <= t0 || width <= 0)
        return ruler;
    const double nsPerPx = double(t1 - t0) / double(width);
    const int64_t step = niceStep(nsPerPx * minLabelPx);
    ruler.step = step;
    const int64_t minorStep = step % 5 == 0 && step >= 5 ? step / 5 : std::max<int64_t>(1, step / 2);
    // Ticks sit at multiples of the step relative to the origin.
    std::vector<int64_t> majors; // relative times of the labelled ticks
    const int64_t relativeStart = t0 - origin;
    for (int64_t k = relativeStart / minorStep - 1;; ++k) {
        const int64_t relative = k * minorStep;
        const int64_t t = origin + relative;
        if (t >= t1)
            break;
        if (t < t0)
            continue;
        TimeTick tick;
        tick.x = double(t - t0) / nsPerPx;
        if (relative % step == 0) {
            tick.label = formatTick(relative, step);
            majors.push_back(relative);
        }
        ruler.ticks.push_back(tick);
    }
    const bool tooLong = std::any_of(ruler.ticks.begin(), ruler.ticks.end(), [](const TimeTick& tick) {
        return tick.label.size() > kMaxTickLabelChars;
    });
    if (tooLong && !majors.empty()) {
        const int64_t base = majors.front();
        ruler.base = formatTick(base, step);
        size_t next = 0;
        for (TimeTick& tick : ruler.ticks)
            if (!tick.label.isEmpty())
                tick.label = QStringLiteral("+") + formatTick(majors[next++] - base, step);
    }
    return ruler;
}

} // namespace spanscope::views
