#include "run_colors.h"

#include <array>

namespace spanscope::views {

namespace {

// Okabe & Ito (2008): blue, orange, bluish green, vermillion, reddish purple, sky blue,
// yellow. Yellow last: it reads worst on a light background.
constexpr std::array<QRgb, 7> kRunColors{0x0072B2, 0xE69F00, 0x009E73, 0xD55E00,
                                         0xCC79A7, 0x56B4E9, 0xF0E442};

} // namespace

QColor runColor(size_t run, bool dark)
{
    const QColor color = QColor::fromRgb(kRunColors[run % kRunColors.size()]);
    // More than seven runs repeat the hues, darker each round, so they still differ.
    const int round = int(run / kRunColors.size());
    const QColor base = round > 0 ? color.darker(100 + 25 * round) : color;
    return dark ? base.lighter(135) : base;
}

} // namespace spanscope::views
