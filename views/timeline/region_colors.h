#pragma once
// A color per region name that stays the same across runs, files and sessions (a hash of
// the name picks the hue), for light and dark palettes.

#include <QColor>
#include <QString>

#include <string_view>

namespace spanscope::views {

QColor regionColor(std::string_view name, bool dark);
// Black or white, whichever reads better on `background`.
QColor textColorOn(const QColor& background);

} // namespace spanscope::views
