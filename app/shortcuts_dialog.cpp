#include "shortcuts_dialog.h"

#include "views/timeline/timeline_bindings.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace spanscope::app {

namespace {

// "&Open…" → "Open…"; "&&" stays a literal "&".
QString plainText(QString text)
{
    text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
    text.remove(QLatin1Char('&'));
    text.replace(QLatin1Char('\x01'), QLatin1Char('&'));
    return text;
}

void collect(const QMenu* menu, const QString& path, QList<ShortcutRow>& rows)
{
    for (const QAction* action : menu->actions()) {
        if (action->isSeparator())
            continue;
        const QString name = path + QStringLiteral(" \u203a ") + plainText(action->text());
        if (const QMenu* sub = action->menu()) {
            collect(sub, name, rows);
            continue;
        }
        QStringList keys;
        for (const QKeySequence& key : action->shortcuts())
            if (!key.isEmpty())
                keys << key.toString(QKeySequence::NativeText);
        if (!keys.isEmpty())
            rows.append({keys.join(QStringLiteral(", ")), name});
    }
}

QTreeWidgetItem* section(QTreeWidget* tree, const QString& title)
{
    auto* item = new QTreeWidgetItem(tree, {title});
    item->setFirstColumnSpanned(true);
    QFont bold = item->font(0);
    bold.setBold(true);
    item->setFont(0, bold);
    item->setExpanded(true);
    return item;
}

} // namespace

QList<ShortcutRow> menuShortcuts(const QMenuBar* menuBar)
{
    QList<ShortcutRow> rows;
    for (const QAction* action : menuBar->actions())
        if (const QMenu* menu = action->menu())
            collect(menu, plainText(menu->title()), rows);
    return rows;
}

ShortcutsDialog::ShortcutsDialog(const QMenuBar* menuBar, QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Keyboard Shortcuts"));
    m_tree = new QTreeWidget;
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Keys"), tr("Does")});
    m_tree->setRootIsDecorated(false);
    m_tree->setSelectionMode(QAbstractItemView::NoSelection);

    QTreeWidgetItem* menus = section(m_tree, tr("Menus"));
    for (const ShortcutRow& row : menuShortcuts(menuBar))
        new QTreeWidgetItem(menus, {row.keys, row.command});
    QTreeWidgetItem* timeline = section(m_tree, tr("Timeline (click it first)"));
    for (const views::TimelineBinding& binding : views::timelineBindings())
        new QTreeWidgetItem(timeline, {binding.input, binding.action});
    m_tree->expandAll();
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_tree);
    layout->addWidget(buttons);
    resize(560, 620);
}

} // namespace spanscope::app
