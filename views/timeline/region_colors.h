#pragma once
// A color per region name that stays the same across runs, files and sessions (a hash of
// the name picks the hue), for light and dark palettes.

#include "model/region_kind.h"
#include "model/tables/flow_table.h"

#include <QColor>
#include <QString>

#include <string_view>

namespace spanscope::views {

QColor regionColor(std::string_view name, bool dark);
// Colors that tell GPU work apart at a glance: kernels in greens and cyans (the name picks
// the shade), copies in ambers, memsets in violet, GPU annotations in a pale blue; CPU
// ranges as regionColor().
QColor regionColor(std::string_view name, model::RegionKind kind, bool dark);
// Arrows of flows: launches orange, forward/backward violet, others grey.
QColor flowColor(model::FlowKind kind, bool dark);
// NVTX marks, and the arrow from the thread that started a range to the one that ended it.
QColor markColor(bool dark);
// Black or white, whichever reads better on `background`.
QColor textColorOn(const QColor& background);

} // namespace spanscope::views
