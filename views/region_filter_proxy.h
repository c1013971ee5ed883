#pragma once
// Sorting and filtering for the region table. Sorts on RegionTableModel::SortRole (raw ns
// and counts, never the formatted text) and keeps lines whose region name matches the
// filter, case-insensitively. GUI thread only.

#include <QSortFilterProxyModel>

namespace spanscope::views {

class RegionFilterProxy : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    explicit RegionFilterProxy(QObject* parent = nullptr);

    // A regular expression when `text` is one ("step|solve", "^io\\."), otherwise a plain
    // substring (so "foo(" still finds "foo(x)"). Empty shows every line.
    void setFilterText(const QString& text);
    QString filterText() const { return m_text; }
    // False when the current text is not a valid regular expression and is matched as a
    // plain substring instead.
    bool filterIsRegularExpression() const { return m_isRegex; }

private:
    QString m_text;
    bool m_isRegex = true;
};

} // namespace spanscope::views
