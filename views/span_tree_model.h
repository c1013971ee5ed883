#pragma once
// The span tree as an item model: lanes at the top, nested ranges merged by call path
// below (model/stats/span_tree.h). Reads an immutable tree held by shared_ptr.
// GUI thread only.

#include "model/capture.h"
#include "model/stats/span_tree.h"

#include <QAbstractItemModel>
#include <memory>

namespace spanscope::views {

class SpanTreeModel : public QAbstractItemModel
{
    Q_OBJECT

public:
    enum Column {
        NameColumn,
        CallsColumn,
        InclusiveColumn,
        ExclusiveColumn,
        ShareColumn,
        ColumnCount
    };

    enum Role {
        // The raw value to sort by: ns (qlonglong), counts (qulonglong), share (double),
        // names (QString).
        SortRole = Qt::UserRole + 1,
        // The node's region id (int), -1 for lane roots.
        RegionRole,
    };

    explicit SpanTreeModel(QObject* parent = nullptr);
    ~SpanTreeModel() override;

    // Replaces the tree; either may be null (empty model). Resets the model.
    void setTree(std::shared_ptr<const model::Capture> capture,
                 std::shared_ptr<const model::SpanTree> tree);
    const std::shared_ptr<const model::SpanTree>& tree() const { return m_tree; }
    // The node an index shows, or nullptr.
    const model::SpanTreeNode* node(const QModelIndex& index) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    const std::vector<uint32_t>* childList(const QModelIndex& parent) const;

    std::shared_ptr<const model::Capture> m_capture;
    std::shared_ptr<const model::SpanTree> m_tree;
};

} // namespace spanscope::views
