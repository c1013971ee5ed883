#include "frozen_column_table.h"

#include <QHeaderView>
#include <QScrollBar>

namespace spanscope::views {

FrozenColumnTableView::FrozenColumnTableView(QWidget* parent) : QTableView(parent)
{
    m_frozen = new QTableView(this);
    m_frozen->setObjectName(QStringLiteral("frozenColumn"));
    m_frozen->setFocusPolicy(Qt::NoFocus);
    m_frozen->verticalHeader()->hide();
    m_frozen->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_frozen->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_frozen->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_frozen->setVerticalScrollMode(ScrollPerPixel);
    m_frozen->setFrameShape(QFrame::NoFrame);
    // A line on its right edge shows where the scrolled columns pass under it.
    m_frozen->setStyleSheet(QStringLiteral("QTableView { border-right: 1px solid palette(mid); }"));
    setVerticalScrollMode(ScrollPerPixel);
    setHorizontalScrollMode(ScrollPerPixel);
    viewport()->stackUnder(m_frozen);

    connect(horizontalHeader(), &QHeaderView::sectionResized, this, [this](int column, int, int size) {
        if (column == 0) {
            m_frozen->setColumnWidth(0, size);
            placeFrozen();
        }
    });
    connect(verticalHeader(), &QHeaderView::sectionResized, this,
            [this](int row, int, int size) { m_frozen->setRowHeight(row, size); });
    connect(verticalScrollBar(), &QAbstractSlider::valueChanged, m_frozen->verticalScrollBar(), &QAbstractSlider::setValue);
    connect(m_frozen->verticalScrollBar(), &QAbstractSlider::valueChanged, verticalScrollBar(), &QAbstractSlider::setValue);
    // Clicking the frozen header sorts the table as clicking its own would.
    connect(m_frozen->horizontalHeader(), &QHeaderView::sectionClicked, this, [this](int column) {
        const Qt::SortOrder order = horizontalHeader()->sortIndicatorSection() == column
                                            && horizontalHeader()->sortIndicatorOrder() == Qt::DescendingOrder
                                        ? Qt::AscendingOrder
                                        : Qt::DescendingOrder;
        if (isSortingEnabled())
            sortByColumn(column, order);
    });
    connect(horizontalHeader(), &QHeaderView::sortIndicatorChanged, this, [this](int column, Qt::SortOrder order) {
        m_frozen->horizontalHeader()->setSortIndicator(column, order);
    });
}

FrozenColumnTableView::~FrozenColumnTableView() = default;

void FrozenColumnTableView::setModel(QAbstractItemModel* model)
{
    QTableView::setModel(model);
    m_frozen->setModel(model);
    m_frozen->setSelectionModel(selectionModel());
    syncColumns();
    if (model) {
        connect(model, &QAbstractItemModel::modelReset, this, &FrozenColumnTableView::syncColumns);
        connect(model, &QAbstractItemModel::layoutChanged, this, &FrozenColumnTableView::syncColumns);
        connect(model, &QAbstractItemModel::columnsInserted, this, &FrozenColumnTableView::syncColumns);
        connect(model, &QAbstractItemModel::columnsRemoved, this, &FrozenColumnTableView::syncColumns);
    }
}

void FrozenColumnTableView::syncColumns()
{
    // Settings the table may have changed since construction follow it.
    m_frozen->setSelectionBehavior(selectionBehavior());
    m_frozen->setSelectionMode(selectionMode());
    m_frozen->setAlternatingRowColors(alternatingRowColors());
    m_frozen->setWordWrap(wordWrap());
    m_frozen->setTextElideMode(textElideMode());
    m_frozen->verticalHeader()->setDefaultSectionSize(verticalHeader()->defaultSectionSize());
    m_frozen->horizontalHeader()->setHighlightSections(horizontalHeader()->highlightSections());
    m_frozen->horizontalHeader()->setSortIndicatorShown(horizontalHeader()->isSortIndicatorShown());
    m_frozen->horizontalHeader()->setSortIndicator(horizontalHeader()->sortIndicatorSection(),
                                                   horizontalHeader()->sortIndicatorOrder());
    const int columns = model() ? model()->columnCount() : 0;
    for (int column = 1; column < columns; ++column)
        m_frozen->setColumnHidden(column, true);
    if (columns > 0)
        m_frozen->setColumnWidth(0, columnWidth(0));
    placeFrozen();
}

void FrozenColumnTableView::placeFrozen()
{
    const int width = model() && model()->columnCount() > 0 ? columnWidth(0) : 0;
    m_frozen->setVisible(width > 0);
    m_frozen->setGeometry(verticalHeader()->width() + frameWidth(), frameWidth(), width,
                          viewport()->height() + horizontalHeader()->height());
}

void FrozenColumnTableView::resizeEvent(QResizeEvent* event)
{
    QTableView::resizeEvent(event);
    placeFrozen();
}

void FrozenColumnTableView::updateGeometries()
{
    QTableView::updateGeometries();
    placeFrozen();
}

QModelIndex FrozenColumnTableView::moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers modifiers)
{
    // Moving left into cells hidden under the frozen column scrolls them out from under it.
    const QModelIndex current = QTableView::moveCursor(cursorAction, modifiers);
    if (cursorAction == MoveLeft && current.column() > 0
        && visualRect(current).topLeft().x() < m_frozen->columnWidth(0)) {
        const int shift = horizontalScrollBar()->value() + visualRect(current).topLeft().x() - m_frozen->columnWidth(0);
        horizontalScrollBar()->setValue(shift);
    }
    return current;
}

void FrozenColumnTableView::scrollTo(const QModelIndex& index, ScrollHint hint)
{
    if (index.column() > 0)
        QTableView::scrollTo(index, hint);
    else if (index.isValid()) { // column 0 is always in view: only the rows move
        const int sideways = horizontalScrollBar()->value();
        QTableView::scrollTo(index, hint);
        horizontalScrollBar()->setValue(sideways);
    }
}

} // namespace spanscope::views
