#pragma once
// Sorting and filtering for the comparison table: sorts on ComparisonTableModel::SortRole
// (raw ns and ratios, never the formatted text), keeps lines whose region name matches the
// filter text (case-insensitive regular expression, plain text when invalid; the region
// table's rules) and whose verdicts pass the verdict filter. GUI thread only.

#include "views/region_filter_proxy.h"

namespace spanscope::views {

enum class VerdictFilter {
    All,
    Changed, // slower or faster against some candidate
    Slower,  // slower against some candidate
    Faster,  // faster against some candidate
    Insufficient, // too few calls to test against some candidate
};

class ComparisonFilterProxy : public RegionFilterProxy
{
    Q_OBJECT

public:
    explicit ComparisonFilterProxy(QObject* parent = nullptr);

    void setVerdictFilter(VerdictFilter filter);
    VerdictFilter verdictFilter() const { return m_verdicts; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    VerdictFilter m_verdicts = VerdictFilter::All;
};

} // namespace spanscope::views
