#pragma once
// Help › Keyboard Shortcuts (F1): every shortcut of the menus, read from the actions
// themselves, and the timeline's keys and mouse gestures (views/timeline/
// timeline_bindings.h). Non-modal; one per window.

#include <QDialog>
#include <QList>

class QMenuBar;
class QTreeWidget;

namespace spanscope::app {

struct ShortcutRow
{
    QString keys;    // "Ctrl+O", or several: "F1, ?"
    QString command; // "File › Open…"
};

// The menu commands that have a shortcut, in menu order.
QList<ShortcutRow> menuShortcuts(const QMenuBar* menuBar);

class ShortcutsDialog : public QDialog
{
    Q_OBJECT

public:
    explicit ShortcutsDialog(const QMenuBar* menuBar, QWidget* parent = nullptr);

    QTreeWidget* tree() const { return m_tree; }

private:
    QTreeWidget* m_tree = nullptr;
};

} // namespace spanscope::app
