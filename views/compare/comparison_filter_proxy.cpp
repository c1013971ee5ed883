#include "comparison_filter_proxy.h"

#include "comparison_table_model.h"

namespace spanscope::views {

ComparisonFilterProxy::ComparisonFilterProxy(QObject* parent) : RegionFilterProxy(parent)
{
    setSortRole(ComparisonTableModel::SortRole);
}

void ComparisonFilterProxy::setVerdictFilter(VerdictFilter filter)
{
    if (filter == m_verdicts)
        return;
    m_verdicts = filter;
    invalidateRowsFilter();
}

bool ComparisonFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    if (!RegionFilterProxy::filterAcceptsRow(sourceRow, sourceParent))
        return false;
    if (m_verdicts == VerdictFilter::All)
        return true;
    const auto* table = qobject_cast<const ComparisonTableModel*>(sourceModel());
    if (!table)
        return true;
    for (const auto& change : table->region(sourceRow).changes) {
        const bool slower = change.verdict == model::Verdict::Slower;
        const bool faster = change.verdict == model::Verdict::Faster;
        if (m_verdicts == VerdictFilter::Insufficient && change.verdict == model::Verdict::Insufficient)
            return true;
        if ((m_verdicts == VerdictFilter::Slower && slower) ||
            (m_verdicts == VerdictFilter::Faster && faster) ||
            (m_verdicts == VerdictFilter::Changed && (slower || faster)))
            return true;
    }
    return false;
}

} // namespace spanscope::views
