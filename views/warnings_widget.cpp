#include "warnings_widget.h"

#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QStackedLayout>
#include <QStyle>
#include <QTreeWidget>

namespace spanscope::views {

WarningsWidget::WarningsWidget(QWidget* parent) : QWidget(parent)
{
    m_stack = new QStackedLayout(this);

    m_empty = new QLabel(tr("No warnings: the file was read without surprises."), this);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setEnabled(false); // greyed, like other empty-state hints
    m_stack->addWidget(m_empty);

    m_list = new QTreeWidget(this);
    m_list->setObjectName(QStringLiteral("warningsList"));
    m_list->setColumnCount(2);
    m_list->setHeaderLabels({tr("Warning"), tr("Concerns")});
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(false);
    m_list->setWordWrap(true);
    m_list->setAlternatingRowColors(true);
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_list->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_stack->addWidget(m_list);
}

void WarningsWidget::setWarnings(const std::vector<model::Warning>& warnings)
{
    m_list->clear();
    const QIcon icon = style()->standardIcon(QStyle::SP_MessageBoxWarning);
    QList<QTreeWidgetItem*> items;
    items.reserve(qsizetype(warnings.size()));
    for (const auto& warning : warnings) {
        auto* item = new QTreeWidgetItem;
        const QString message = QString::fromStdString(warning.message);
        const QString object = QString::fromStdString(warning.object);
        item->setIcon(0, icon);
        item->setText(0, message);
        item->setToolTip(0, message);
        item->setText(1, object);
        item->setToolTip(1, object);
        items.append(item);
    }
    m_list->addTopLevelItems(items);
    m_stack->setCurrentWidget(warnings.empty() ? static_cast<QWidget*>(m_empty) : m_list);
}

int WarningsWidget::count() const
{
    return m_list->topLevelItemCount();
}

} // namespace spanscope::views
