#include "comparison_table_model.h"

#include "views/display_text.h"

#include <QColor>
#include <QLocale>
#include <cmath>
#include <limits>

namespace spanscope::views {

using Column = ComparisonTableModel::Column;
using ColumnInfo = ComparisonTableModel::ColumnInfo;
using model::Verdict;

namespace {

constexpr Column kChangeColumns[] = {Column::Change, Column::Percent, Column::Speedup,
                                     Column::PValue, Column::Effect,  Column::Verdict};

constexpr ComparisonTableModel::Figure kFigures[] = {
    ComparisonTableModel::Figure::Calls, ComparisonTableModel::Figure::Total,
    ComparisonTableModel::Figure::Mean,  ComparisonTableModel::Figure::P50,
    ComparisonTableModel::Figure::P95,   ComparisonTableModel::Figure::Exclusive,
    ComparisonTableModel::Figure::Gpu};

// A run's figure as a number (ns, or calls); none where the run lacks it.
std::optional<double> figureValue(const std::optional<model::RegionStats>& stats,
                                  ComparisonTableModel::Figure figure)
{
    using Figure = ComparisonTableModel::Figure;
    if (!stats)
        return std::nullopt;
    switch (figure) {
    case Figure::Calls: return double(stats->calls);
    case Figure::Total: return double(stats->total);
    case Figure::Mean: return stats->mean;
    case Figure::P50: return stats->p50;
    case Figure::P95: return stats->p95;
    case Figure::Exclusive: return stats->exclusive ? std::optional<double>(double(*stats->exclusive)) : std::nullopt;
    case Figure::Gpu: return stats->gpuTotal ? std::optional<double>(double(*stats->gpuTotal)) : std::nullopt;
    }
    return std::nullopt;
}

QString figureName(ComparisonTableModel::Figure figure)
{
    using Figure = ComparisonTableModel::Figure;
    switch (figure) {
    case Figure::Calls: return QStringLiteral("Calls");
    case Figure::Total: return QStringLiteral("Total");
    case Figure::Mean: return QStringLiteral("Mean");
    case Figure::P50: return QStringLiteral("p50");
    case Figure::P95: return QStringLiteral("p95");
    case Figure::Exclusive: return QStringLiteral("Exclusive");
    case Figure::Gpu: return QStringLiteral("GPU");
    }
    return {};
}

// Below every real figure, negative changes included.
const QVariant kMissingSortValue = std::numeric_limits<double>::lowest();

std::optional<double> metricValue(const std::optional<model::RegionStats>& stats,
                                  model::CompareMetric metric)
{
    return stats ? model::metricOf(*stats, metric) : std::nullopt;
}

// A value of the metric as cells show it: "12.3 µs", "2.50" (allocations), "1.5 KiB".
QString metricText(std::optional<double> value, model::CompareMetric metric)
{
    if (!value)
        return kMissingText;
    if (metric == model::CompareMetric::Allocs)
        return QLocale().toString(*value, 'f', 2);
    if (metric == model::CompareMetric::Bytes)
        return bytesText(*value);
    return durationText(*value);
}

// The exact value for tooltips: "1,234,567 ns", "2.5 allocations", "1,536 bytes".
QString exactMetricText(std::optional<double> value, model::CompareMetric metric)
{
    if (!value)
        return kMissingText;
    if (model::isAllocationMetric(metric))
        return QStringLiteral("%1 %2").arg(QLocale().toString(*value, 'f', 2),
                                           QString::fromLatin1(model::metricUnit(metric)));
    return exactNsText(*value);
}

// Whether the change's figures (absolute, relative, speedup) mean anything: both runs have
// the metric. Added, removed and percentile-less aggregate runs leave them at zero.
bool hasValues(const model::RegionComparison& region, int candidate, model::CompareMetric metric)
{
    return metricValue(region.runs[0], metric) &&
           metricValue(region.runs[size_t(candidate)], metric);
}

QString signedText(double value, const QString& magnitude)
{
    if (value > 0)
        return QStringLiteral("+") + magnitude;
    if (value < 0)
        return QStringLiteral("\u2212") + magnitude;
    return magnitude;
}

// Sorting verdicts descending puts what needs attention first.
int severity(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Slower:
        return 5;
    case Verdict::Faster:
        return 4;
    case Verdict::Added:
        return 3;
    case Verdict::Removed:
        return 2;
    case Verdict::Unknown:
        return 1;
    case Verdict::Insufficient:
    case Verdict::Noise:
        return 0;
    }
    return 0;
}

QString verdictToolTip(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Slower:
        return ComparisonTableModel::tr("Slower: beyond the threshold and significant");
    case Verdict::Faster:
        return ComparisonTableModel::tr("Faster: beyond the threshold and significant");
    case Verdict::Noise:
        return ComparisonTableModel::tr("Noise: below the threshold or not significant");
    case Verdict::Insufficient:
        return ComparisonTableModel::tr("Insufficient: too few calls for any test to show a "
                                        "change at this significance level");
    case Verdict::Added:
        return ComparisonTableModel::tr("Only in the candidate run");
    case Verdict::Removed:
        return ComparisonTableModel::tr("Only in the baseline run");
    case Verdict::Unknown:
        return ComparisonTableModel::tr("Significance unknown: no per-call data to test");
    }
    return {};
}

} // namespace

ComparisonTableModel::ComparisonTableModel(QObject* parent) : QAbstractTableModel(parent) {}

ComparisonTableModel::~ComparisonTableModel() = default;

void ComparisonTableModel::setComparison(std::shared_ptr<const model::Comparison> comparison)
{
    beginResetModel();
    m_comparison = std::move(comparison);
    rebuildColumns();
    endResetModel();
}

void ComparisonTableModel::setAllFigures(bool on)
{
    if (on == m_allFigures)
        return;
    beginResetModel();
    m_allFigures = on;
    rebuildColumns();
    endResetModel();
}

void ComparisonTableModel::rebuildColumns()
{
    m_columns.clear();
    if (!m_comparison)
        return;
    m_columns.push_back({Column::Region, -1});
    if (m_comparison->options.perRank)
        m_columns.push_back({Column::Rank, -1});
    for (int run = 0; run < runCount(); ++run)
        m_columns.push_back({Column::Value, run});
    for (int run = 1; run < runCount(); ++run)
        for (const Column kind : kChangeColumns)
            m_columns.push_back({kind, run});
    if (m_allFigures)
        for (int run = 0; run < runCount(); ++run)
            for (const Figure figure : kFigures)
                m_columns.push_back({Column::Figure, run, figure});
}

int ComparisonTableModel::runCount() const
{
    return m_comparison ? int(m_comparison->labels.size()) : 0;
}

int ComparisonTableModel::columnOf(Column kind, int run) const
{
    for (size_t column = 0; column < m_columns.size(); ++column)
        if (m_columns[column].kind == kind && m_columns[column].run == run)
            return int(column);
    return -1;
}

const model::RegionComparison& ComparisonTableModel::region(int row) const
{
    return m_comparison->regions[size_t(row)];
}

QString ComparisonTableModel::regionLabel(const model::RegionComparison& line)
{
    const QString name = QString::fromStdString(line.name);
    return line.kind == model::RegionKind::Cpu
               ? name
               : name + QStringLiteral(" [") + QString::fromLatin1(model::regionKindName(line.kind)) + QLatin1Char(']');
}

int ComparisonTableModel::findRow(const std::string& name, int32_t rank) const
{
    for (int row = 0; row < rowCount(); ++row)
        if (region(row).name == name && region(row).rank == rank)
            return row;
    return -1;
}

QColor ComparisonTableModel::verdictColor(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Slower:
        return QColor(230, 70, 60, 90);
    case Verdict::Faster:
        return QColor(40, 170, 80, 90);
    case Verdict::Noise:
        return QColor(128, 128, 128, 45);
    case Verdict::Insufficient: // amber: look again with more calls
        return QColor(230, 170, 40, 70);
    case Verdict::Added:
    case Verdict::Removed:
    case Verdict::Unknown:
        return {};
    }
    return {};
}

int ComparisonTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_comparison ? 0 : int(m_comparison->regions.size());
}

int ComparisonTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

QVariant ComparisonTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& line = region(index.row());
    const ColumnInfo column = columnInfo(index.column());
    switch (role) {
    case Qt::DisplayRole:
        return displayData(line, column);
    case SortRole:
        return sortData(line, column);
    case Qt::ToolTipRole:
        return toolTipData(line, column);
    case Qt::BackgroundRole:
        if (column.kind == Column::Verdict) {
            const QColor color = verdictColor(line.changes[size_t(column.run - 1)].verdict);
            return color.isValid() ? QVariant(color) : QVariant();
        }
        return {};
    case Qt::TextAlignmentRole:
        return column.kind == Column::Region || column.kind == Column::Verdict
                   ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant ComparisonTableModel::displayData(const model::RegionComparison& line,
                                           ColumnInfo column) const
{
    const auto metric = m_comparison->options.metric;
    if (column.kind == Column::Region)
        return regionLabel(line);
    if (column.kind == Column::Rank)
        return line.rank >= 0 ? QString::number(line.rank) : kMissingText;
    if (column.kind == Column::Value)
        return metricText(metricValue(line.runs[size_t(column.run)], metric), metric);
    if (column.kind == Column::Figure) {
        const auto value = figureValue(line.runs[size_t(column.run)], column.figure);
        if (column.figure == Figure::Calls)
            return value ? QLocale().toString(qulonglong(*value)) : kMissingText;
        return durationText(value);
    }

    const auto& change = line.changes[size_t(column.run - 1)];
    const bool values = hasValues(line, column.run, metric);
    const QLocale locale;
    switch (column.kind) {
    case Column::Change:
        return values ? signedText(change.absolute, metricText(std::abs(change.absolute), metric))
                      : kMissingText;
    case Column::Percent:
        return values && change.relative
                   ? signedText(*change.relative, percentText(std::abs(*change.relative) * 100.0))
                   : kMissingText;
    case Column::Speedup:
        return values && change.speedup
                   ? locale.toString(*change.speedup, 'f', 2) + QStringLiteral("\u00d7")
                   : kMissingText;
    case Column::PValue:
        if (!change.pValue)
            return kMissingText;
        return *change.pValue < 1e-4 ? QStringLiteral("< 0.0001")
                                     : locale.toString(*change.pValue, 'g', 2);
    case Column::Effect:
        return change.effect
                   ? signedText(*change.effect, locale.toString(std::abs(*change.effect), 'f', 2))
                   : kMissingText;
    case Column::Verdict:
        return QString::fromLatin1(model::verdictName(change.verdict, metric));
    default:
        return {};
    }
}

QVariant ComparisonTableModel::sortData(const model::RegionComparison& line,
                                        ColumnInfo column) const
{
    const auto metric = m_comparison->options.metric;
    auto sortable = [](std::optional<double> value) {
        return value ? QVariant(*value) : kMissingSortValue;
    };
    if (column.kind == Column::Region)
        return regionLabel(line);
    if (column.kind == Column::Rank)
        return line.rank;
    if (column.kind == Column::Value)
        return sortable(metricValue(line.runs[size_t(column.run)], metric));
    if (column.kind == Column::Figure)
        return sortable(figureValue(line.runs[size_t(column.run)], column.figure));

    const auto& change = line.changes[size_t(column.run - 1)];
    const bool values = hasValues(line, column.run, metric);
    switch (column.kind) {
    case Column::Change:
        return values ? QVariant(change.absolute) : kMissingSortValue;
    case Column::Percent:
        return values ? sortable(change.relative) : kMissingSortValue;
    case Column::Speedup:
        return values ? sortable(change.speedup) : kMissingSortValue;
    case Column::PValue:
        return sortable(change.pValue);
    case Column::Effect:
        return sortable(change.effect);
    case Column::Verdict:
        return severity(change.verdict);
    default:
        return {};
    }
}

QVariant ComparisonTableModel::toolTipData(const model::RegionComparison& line,
                                           ColumnInfo column) const
{
    const auto metric = m_comparison->options.metric;
    const QString metricName = QString::fromLatin1(model::metricName(metric));
    if (column.kind == Column::Region || column.kind == Column::Rank)
        return regionLabel(line);
    if (column.kind == Column::Figure) {
        const auto value = figureValue(line.runs[size_t(column.run)], column.figure);
        return value && column.figure != Figure::Calls ? exactNsText(value) : QVariant();
    }
    if (column.kind == Column::Value) {
        const auto& stats = line.runs[size_t(column.run)];
        if (!stats)
            return tr("%1 did not record this region")
                .arg(QString::fromStdString(m_comparison->labels[size_t(column.run)]));
        QString text = tr("%1: %2\n%3")
                           .arg(metricName, exactMetricText(metricValue(stats, metric), metric),
                                countedText(stats->calls, tr("call"), tr("calls")));
        if (stats->summaryOnly)
            text += tr("\nfrom stored totals: no per-call data");
        return text;
    }
    const auto& change = line.changes[size_t(column.run - 1)];
    switch (column.kind) {
    case Column::Change:
        return hasValues(line, column.run, metric)
                   ? tr("%1 \u2192 %2")
                         .arg(exactMetricText(change.baseline, metric),
                              exactMetricText(change.candidate, metric))
                   : QVariant();
    case Column::PValue:
        return metric == model::CompareMetric::P50 || metric == model::CompareMetric::P95
                   ? tr("Exceedance test: share of calls above the baseline's %1").arg(metricName)
               : model::isAllocationMetric(metric)
                   ? tr("Mann-Whitney U test on the per-call %1").arg(QString::fromLatin1(model::metricUnit(metric)))
                   : tr("Mann-Whitney U test on the per-call durations");
    case Column::Effect:
        return metric == model::CompareMetric::P50 || metric == model::CompareMetric::P95
                   ? tr("Change of the share of calls above the baseline's %1").arg(metricName)
               : model::isAllocationMetric(metric)
                   ? tr("Cliff's delta: -1 (all fewer) to +1 (all more)")
                   : tr("Cliff's delta: -1 (all faster) to +1 (all slower)");
    case Column::Verdict:
        return verdictToolTip(change.verdict);
    default:
        return {};
    }
}

QString ComparisonTableModel::headerText(ColumnInfo column) const
{
    QString title;
    switch (column.kind) {
    case Column::Region:
        return tr("Region");
    case Column::Rank:
        return tr("Rank");
    case Column::Value:
        return QString::fromStdString(m_comparison->labels[size_t(column.run)]);
    case Column::Figure:
        return figureName(column.figure) + QStringLiteral(" \u00b7 ") +
               QString::fromStdString(m_comparison->labels[size_t(column.run)]);
    case Column::Change:
        title = tr("Change");
        break;
    case Column::Percent:
        title = tr("% change");
        break;
    case Column::Speedup:
        title = tr("Speedup");
        break;
    case Column::PValue:
        title = tr("p");
        break;
    case Column::Effect:
        title = tr("Effect");
        break;
    case Column::Verdict:
        title = tr("Verdict");
        break;
    }
    // With several candidates each group of change columns names its run.
    if (runCount() > 2)
        title += QStringLiteral(" \u00b7 ") +
                 QString::fromStdString(m_comparison->labels[size_t(column.run)]);
    return title;
}

QString ComparisonTableModel::headerToolTip(ColumnInfo column) const
{
    const QString metric = QString::fromLatin1(model::metricName(m_comparison->options.metric));
    const QString run = column.run >= 0
                            ? QString::fromStdString(m_comparison->labels[size_t(column.run)])
                            : QString();
    switch (column.kind) {
    case Column::Region:
        return tr("Region name");
    case Column::Rank:
        return tr("MPI rank");
    case Column::Value:
        return column.run == 0 ? tr("%1 of the baseline, %2").arg(metric, run)
                               : tr("%1 of %2").arg(metric, run);
    case Column::Figure:
        return tr("%1 of %2 (not compared; shown for reference)").arg(figureName(column.figure), run);
    case Column::Change:
        return tr("%1 of %2 minus the baseline's").arg(metric, run);
    case Column::Percent:
        return tr("Change relative to the baseline (%1)").arg(run);
    case Column::Speedup:
        return tr("Baseline %1 divided by %2's").arg(metric, run);
    case Column::PValue:
        return tr("Significance of the difference (smaller: more certain)");
    case Column::Effect:
        return tr("Effect size of the difference");
    case Column::Verdict:
        return tr("slower/faster: beyond %1 % and significant; noise otherwise")
            .arg(m_comparison->options.thresholdPercent);
    }
    return {};
}

QVariant ComparisonTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return {};
    const ColumnInfo column = columnInfo(section);
    if (role == Qt::DisplayRole)
        return headerText(column);
    if (role == Qt::ToolTipRole)
        return headerToolTip(column);
    if (role == Qt::TextAlignmentRole)
        return column.kind == Column::Region ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                             : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

} // namespace spanscope::views
