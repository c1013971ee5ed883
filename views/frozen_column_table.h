#pragma once
// A table whose first column stays in place while the others scroll sideways (the region
// names of a comparison with many runs): a second view over the same model and selection
// shows column 0 on top of the table's left edge, and follows its rows, sorting, column
// width and vertical scrolling. GUI thread only.

#include <QTableView>

namespace spanscope::views {

class FrozenColumnTableView : public QTableView
{
    Q_OBJECT

public:
    explicit FrozenColumnTableView(QWidget* parent = nullptr);
    ~FrozenColumnTableView() override;

    void setModel(QAbstractItemModel* model) override;
    // The view drawn over column 0 (for tests).
    QTableView* frozenView() const { return m_frozen; }

protected:
    void resizeEvent(QResizeEvent* event) override;
    QModelIndex moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers modifiers) override;
    void scrollTo(const QModelIndex& index, ScrollHint hint = EnsureVisible) override;
    void updateGeometries() override;

private:
    void placeFrozen();
    void syncColumns();

    QTableView* m_frozen = nullptr;
};

} // namespace spanscope::views
