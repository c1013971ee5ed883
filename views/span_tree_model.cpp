#include "span_tree_model.h"

#include "display_text.h"

namespace spanscope::views {

SpanTreeModel::SpanTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

SpanTreeModel::~SpanTreeModel() = default;

void SpanTreeModel::setTree(std::shared_ptr<const model::Capture> capture,
                            std::shared_ptr<const model::SpanTree> tree)
{
    beginResetModel();
    m_capture = capture && tree ? std::move(capture) : nullptr;
    m_tree = m_capture ? std::move(tree) : nullptr;
    endResetModel();
}

const model::SpanTreeNode* SpanTreeModel::node(const QModelIndex& index) const
{
    if (!m_tree || !index.isValid() || index.internalId() >= m_tree->nodes.size())
        return nullptr;
    return &m_tree->nodes[size_t(index.internalId())];
}

const std::vector<uint32_t>* SpanTreeModel::childList(const QModelIndex& parent) const
{
    if (!m_tree)
        return nullptr;
    if (!parent.isValid())
        return &m_tree->roots;
    if (parent.column() != 0)
        return nullptr;
    const model::SpanTreeNode* n = node(parent);
    return n ? &n->children : nullptr;
}

QModelIndex SpanTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    const auto* children = childList(parent);
    if (!children || row < 0 || size_t(row) >= children->size() || column < 0 ||
        column >= ColumnCount)
        return {};
    return createIndex(row, column, quintptr((*children)[size_t(row)]));
}

QModelIndex SpanTreeModel::parent(const QModelIndex& child) const
{
    const model::SpanTreeNode* n = node(child);
    if (!n || n->parent == model::SpanTreeNode::kNoParent)
        return {};
    return createIndex(int(m_tree->nodes[n->parent].row), 0, quintptr(n->parent));
}

int SpanTreeModel::rowCount(const QModelIndex& parent) const
{
    const auto* children = childList(parent);
    return children ? int(children->size()) : 0;
}

int SpanTreeModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QVariant SpanTreeModel::data(const QModelIndex& index, int role) const
{
    const model::SpanTreeNode* n = node(index);
    if (!n)
        return {};
    const QString name = n->region < 0
                             ? QString::fromStdString(n->title)
                             : QString::fromStdString(m_capture->regionName(uint32_t(n->region)));
    const bool root = n->region < 0;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return name;
        case CallsColumn:
            return root ? QString() : countText(n->calls);
        case InclusiveColumn:
            return durationText(double(n->inclusive));
        case ExclusiveColumn:
            return root ? QString() : durationText(double(n->exclusive));
        case ShareColumn:
            return root ? QString() : percentText(n->shareOfParent * 100.0);
        }
        break;
    case SortRole:
        switch (index.column()) {
        case NameColumn:
            return name;
        case CallsColumn:
            return qulonglong(n->calls);
        case InclusiveColumn:
            return qlonglong(n->inclusive);
        case ExclusiveColumn:
            return qlonglong(n->exclusive);
        case ShareColumn:
            return n->shareOfParent;
        }
        break;
    case RegionRole:
        return n->region;
    case Qt::ToolTipRole:
        if (root)
            return tr("%1\nInclusive: %2").arg(name, exactNsText(n->inclusive));
        return tr("%1\nCalls: %2\nInclusive: %3\nExclusive: %4\nShortest: %5\nLongest: %6")
            .arg(name, countText(n->calls), exactNsText(n->inclusive), exactNsText(n->exclusive),
                 exactNsText(n->minimum), exactNsText(n->maximum));
    case Qt::TextAlignmentRole:
        if (index.column() != NameColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    }
    return {};
}

QVariant SpanTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Name");
    case CallsColumn:
        return tr("Calls");
    case InclusiveColumn:
        return tr("Inclusive");
    case ExclusiveColumn:
        return tr("Exclusive");
    case ShareColumn:
        return tr("% of parent");
    }
    return {};
}

} // namespace spanscope::views
