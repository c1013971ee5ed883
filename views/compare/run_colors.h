#pragma once
// One colour per run of a comparison (baseline first), the same in the histogram legend,
// the scaling plot and the timeline labels. Picked from the Okabe-Ito set so that runs
// stay apart for colour-blind readers, lighter on dark palettes. Pure; any thread.

#include <QColor>
#include <cstddef>

namespace spanscope::views {

QColor runColor(size_t run, bool dark);

} // namespace spanscope::views
