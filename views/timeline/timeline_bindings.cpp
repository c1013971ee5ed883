#include "timeline_bindings.h"

#include <QCoreApplication>

namespace spanscope::views {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("TimelineView", text);
}

TimelineBinding key(QKeyCombination combination, const char* action)
{
    const QKeySequence sequence(combination);
    return {sequence.toString(QKeySequence::NativeText), tr(action), sequence};
}

TimelineBinding gesture(const char* input, const char* action)
{
    return {tr(input), tr(action), {}};
}

} // namespace

std::vector<TimelineBinding> timelineBindings()
{
    return {
        gesture("Mouse wheel", "Zoom around the pointer"),
        key(Qt::Key_W, "Zoom in around the pointer"),
        key(Qt::Key_S, "Zoom out around the pointer"),
        gesture("Drag", "Pan in time and scroll the lanes"),
        key(Qt::Key_A, "Pan towards the start"),
        key(Qt::Key_D, "Pan towards the end"),
        gesture("Shift+wheel", "Scroll the lanes"),
        gesture("Horizontal wheel", "Pan"),
        key(Qt::Key_F, "Fit the whole run"),
        key(Qt::Key_Home, "Fit the whole run"),
        key(Qt::Key_Z, "Zoom to the selected call"),
        gesture("Ctrl+drag", "Zoom to a range"),
        gesture("Shift+drag", "Measure a span"),
        gesture("Click", "Select a call (the region table follows)"),
        gesture("Double-click", "Fill the view with a call"),
        gesture("Click a lane header", "Fold or unfold the lane"),
        gesture("Click or drag in the overview", "Move the visible window"),
        key(Qt::Key_F3, "Next call of a region matching the filter"),
        key(Qt::SHIFT | Qt::Key_F3, "Previous call of a region matching the filter"),
        key(Qt::Key_Escape, "Clear the selection and the measurement"),
    };
}

} // namespace spanscope::views
