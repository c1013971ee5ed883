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

// A ruler for [t0, t1) drawn `width` px wide, at least `minLabelPx` between labels, times
// counted from `origin`. Labels never need more than kMaxTickLabelChars: deep in a long run
// ("585.063585846 s") the ticks are labelled as offsets ("+200 ns") from `base`, the time of
// the first labelled tick, which the ruler shows once.
struct TimeRuler
{
    std::vector<TimeTick> ticks;
    QString base;      // empty unless the labels are offsets from it
    int64_t step = 1;  // ns between labelled ticks
};
inline constexpr int kMaxTickLabelChars = 10;
TimeRuler timeRuler(int64_t t0, int64_t t1, int width, int64_t origin, int minLabelPx = 90);

// The 1-2-5 step (ns) at least `wantedNs` long: the precision a time at this zoom needs.
int64_t niceStep(double wantedNs);

// "1.25 ms" with as many decimals as `stepNs` needs to tell neighbouring ticks apart.
QString formatTick(int64_t ns, int64_t stepNs);

} // namespace spanscope::views
