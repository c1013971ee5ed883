#pragma once
// The comparison table: one line per region (or per region and rank), each run's value of
// the compared metric side by side (header: the run's file name), then for each candidate
// run its change against the baseline, the change in percent, the speedup, the test's
// p-value and effect size, and the verdict, coloured. Reads an immutable model::Comparison
// held by shared_ptr. GUI thread only.

#include "model/compare/run_comparison.h"

#include <QAbstractTableModel>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spanscope::views {

class ComparisonTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum class Column { Region, Rank, Value, Figure, Change, Percent, Speedup, PValue, Effect, Verdict };
    // The figures shown per run when allFigures() is on, beside the compared metric.
    enum class Figure { Calls, Total, Mean, P50, P95, Exclusive, Gpu };

    // What a column shows. `run`: the run of a Value or Figure column, the candidate run
    // (1..n-1) of the change columns, -1 for Region and Rank.
    struct ColumnInfo
    {
        Column kind = Column::Region;
        int run = -1;
        Figure figure = Figure::Calls; // Figure columns only
    };

    enum Role {
        // The raw value to sort by: ns and ratios as double, names as QString, verdicts by
        // severity. Missing figures sort below every real one (lowest double).
        SortRole = Qt::UserRole + 1,
    };

    explicit ComparisonTableModel(QObject* parent = nullptr);
    ~ComparisonTableModel() override;

    // Replaces the comparison (may be null: empty table). Resets the model; columns follow
    // the run count and whether lines are per rank.
    void setComparison(std::shared_ptr<const model::Comparison> comparison);
    const std::shared_ptr<const model::Comparison>& comparison() const { return m_comparison; }

    int runCount() const;
    // Adds, per run, calls, total, mean, p50, p95, exclusive and GPU time. Resets the model.
    void setAllFigures(bool on);
    bool allFigures() const { return m_allFigures; }
    ColumnInfo columnInfo(int column) const { return m_columns[size_t(column)]; }
    // The column showing `kind` for `run` (-1 for Region/Rank), or -1 when not shown.
    int columnOf(Column kind, int run = -1) const;

    const model::RegionComparison& region(int row) const;
    // The line of a region (and rank; -1 when pooled), or -1.
    int findRow(const std::string& name, int32_t rank) const;
    // The name shown for a region: GPU work with its kind, "gemm [kernel]".
    static QString regionLabel(const model::RegionComparison& line);

    // Background of a verdict cell: translucent, so the palette's text stays readable on
    // light and dark palettes; invalid (no colour) for added, removed and unknown.
    static QColor verdictColor(model::Verdict verdict);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant displayData(const model::RegionComparison& region, ColumnInfo column) const;
    QVariant sortData(const model::RegionComparison& region, ColumnInfo column) const;
    QVariant toolTipData(const model::RegionComparison& region, ColumnInfo column) const;
    QString headerText(ColumnInfo column) const;
    QString headerToolTip(ColumnInfo column) const;

    void rebuildColumns();

    std::shared_ptr<const model::Comparison> m_comparison;
    std::vector<ColumnInfo> m_columns;
    bool m_allFigures = false;
};

} // namespace spanscope::views
