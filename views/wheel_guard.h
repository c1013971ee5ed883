#pragma once
// Spin boxes and combo boxes that sit in scrolling panes take the mouse wheel only once
// focused (a click or Tab), so scrolling over a pane scrolls the pane instead of changing
// a value under the pointer. GUI thread only.

class QWidget;

namespace spanscope::views {

// Installs the guard on `widget` (a spin box or combo box) and gives it StrongFocus.
void takeWheelOnlyWhenFocused(QWidget* widget);

} // namespace spanscope::views
