#include "wheel_guard.h"

#include <QAbstractScrollArea>
#include <QCoreApplication>
#include <QEvent>
#include <QObject>
#include <QWidget>

namespace spanscope::views {

namespace {

class WheelGuard final : public QObject
{
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() != QEvent::Wheel)
            return false;
        auto* widget = static_cast<QWidget*>(watched);
        if (widget->hasFocus())
            return false;
        // Not ours: the pane that scrolls gets it. Sent to it directly, since Qt passes
        // only wheel events that came from the window system on to parents.
        for (QWidget* w = widget->parentWidget(); w; w = w->parentWidget())
            if (auto* area = qobject_cast<QAbstractScrollArea*>(w)) {
                QCoreApplication::sendEvent(area->viewport(), event);
                return true;
            }
        event->ignore();
        return true;
    }
};

} // namespace

void takeWheelOnlyWhenFocused(QWidget* widget)
{
    // One guard per process; it keeps no state.
    static WheelGuard* const guard = new WheelGuard;
    widget->setFocusPolicy(Qt::StrongFocus);
    widget->installEventFilter(guard);
}

} // namespace spanscope::views
