#include "region_filter_proxy.h"

#include "region_table_model.h"

#include <QRegularExpression>

namespace spanscope::views {

RegionFilterProxy::RegionFilterProxy(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(RegionTableModel::SortRole);
    setFilterKeyColumn(0); // the Region column is always first
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    setDynamicSortFilter(true);
}

void RegionFilterProxy::setFilterText(const QString& text)
{
    m_text = text;
    QRegularExpression pattern(text, QRegularExpression::CaseInsensitiveOption);
    m_isRegex = pattern.isValid();
    if (!m_isRegex)
        pattern = QRegularExpression(QRegularExpression::escape(text),
                                     QRegularExpression::CaseInsensitiveOption);
    setFilterRegularExpression(pattern);
}

} // namespace spanscope::views
