#pragma once
// The timeline's keys and mouse gestures, in the words Help › Keyboard Shortcuts shows
// them. TimelineView's input handlers (timeline_view_input.cpp) implement them; a test
// sends every key listed here and checks that the timeline takes it.

#include <QKeySequence>
#include <QString>
#include <vector>

namespace spanscope::views {

struct TimelineBinding
{
    QString input;     // "W", "Shift+drag", "Mouse wheel"
    QString action;    // what it does
    QKeySequence key;  // the key, for keys; empty for mouse gestures
};

std::vector<TimelineBinding> timelineBindings();

} // namespace spanscope::views
