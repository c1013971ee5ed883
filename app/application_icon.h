#pragma once
// The application icon (resources/icons/spanscope.svg, compiled into the viewer), rendered
// at the sizes window managers and task bars ask for.

#include <QIcon>

namespace spanscope::app {

QIcon applicationIcon();

} // namespace spanscope::app
