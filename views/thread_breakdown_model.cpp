#include "thread_breakdown_model.h"

#include "display_text.h"
#include "region_table_model.h"

namespace spanscope::views {

ThreadBreakdownModel::ThreadBreakdownModel(QObject* parent) : QAbstractTableModel(parent) {}

void ThreadBreakdownModel::setBreakdown(std::vector<model::ThreadBreakdown> breakdown)
{
    beginResetModel();
    m_breakdown = std::move(breakdown);
    endResetModel();
}

int ThreadBreakdownModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_breakdown.size());
}

int ThreadBreakdownModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ThreadBreakdownModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& entry = m_breakdown[size_t(index.row())];
    const auto& s = entry.stats;
    const QString threadLabel =
        entry.threadId < 0 ? tr("unknown")
        : entry.threadName.empty()
            ? tr("#%1").arg(entry.threadId)
            : tr("%1 (#%2)").arg(QString::fromStdString(entry.threadName)).arg(entry.threadId);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case RankColumn:
            return entry.rank;
        case ThreadColumn:
            return threadLabel;
        case CallsColumn:
            return countText(s.calls);
        case TotalColumn:
            return durationText(double(s.total));
        case MeanColumn:
            return durationText(s.mean);
        case ExclusiveColumn:
            return durationText(s.exclusive);
        }
        return {};
    case RegionTableModel::SortRole:
        switch (index.column()) {
        case RankColumn:
            return entry.rank;
        case ThreadColumn:
            return qlonglong(entry.threadId);
        case CallsColumn:
            return qulonglong(s.calls);
        case TotalColumn:
            return qlonglong(s.total);
        case MeanColumn:
            return s.mean;
        case ExclusiveColumn:
            return s.exclusive ? qlonglong(*s.exclusive) : qlonglong(-1);
        }
        return {};
    case Qt::ToolTipRole:
        switch (index.column()) {
        case ThreadColumn:
            return threadLabel;
        case TotalColumn:
            return exactNsText(s.total);
        case MeanColumn:
            return exactNsText(s.mean);
        case ExclusiveColumn:
            return exactNsText(s.exclusive);
        }
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == ThreadColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                              : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant ThreadBreakdownModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case RankColumn:
        return tr("Rank");
    case ThreadColumn:
        return tr("Thread");
    case CallsColumn:
        return tr("Calls");
    case TotalColumn:
        return tr("Total");
    case MeanColumn:
        return tr("Mean");
    case ExclusiveColumn:
        return tr("Exclusive");
    }
    return {};
}

} // namespace spanscope::views
