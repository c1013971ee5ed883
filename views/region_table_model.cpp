#include "region_table_model.h"

#include "display_text.h"

#include <algorithm>

namespace spanscope::views {

using Column = RegionTableModel::Column;

namespace {

QString columnTitle(Column column)
{
    switch (column) {
    case Column::Region:
        return RegionTableModel::tr("Region");
    case Column::Kind:
        return RegionTableModel::tr("Kind");
    case Column::Rank:
        return RegionTableModel::tr("Rank");
    case Column::Calls:
        return RegionTableModel::tr("Calls");
    case Column::Total:
        return RegionTableModel::tr("Total");
    case Column::Mean:
        return RegionTableModel::tr("Mean");
    case Column::P95:
        return RegionTableModel::tr("p95");
    case Column::Exclusive:
        return RegionTableModel::tr("Exclusive");
    case Column::GpuTotal:
        return RegionTableModel::tr("GPU total");
    case Column::AllocsPerCall:
        return RegionTableModel::tr("Allocs/call");
    case Column::BytesPerCall:
        return RegionTableModel::tr("Bytes/call");
    }
    return {};
}

QString columnToolTip(Column column)
{
    switch (column) {
    case Column::Region:
        return RegionTableModel::tr("Region name");
    case Column::Kind:
        return RegionTableModel::tr("CPU range, GPU kernel, copy, memset or GPU annotation");
    case Column::Rank:
        return RegionTableModel::tr("MPI rank");
    case Column::Calls:
        return RegionTableModel::tr("Recorded calls, unclosed ones included");
    case Column::Total:
        return RegionTableModel::tr("Inclusive time: sum of the closed calls' durations");
    case Column::Mean:
        return RegionTableModel::tr("Mean duration of a closed call");
    case Column::P95:
        return RegionTableModel::tr("95th percentile of the call durations");
    case Column::Exclusive:
        return RegionTableModel::tr("Time spent in the region itself, nested regions excluded");
    case Column::GpuTotal:
        return RegionTableModel::tr("Device time of the calls with a GPU value");
    case Column::AllocsPerCall:
        return RegionTableModel::tr("Allocations made while a call was innermost on its thread "
                                    "(exclusive), per call");
    case Column::BytesPerCall:
        return RegionTableModel::tr("Bytes requested by those allocations, per call");
    }
    return {};
}

// -1 sorts unavailable figures below every real (non-negative) one.
// Allocations or bytes per call; empty where not recorded or without calls.
std::optional<double> perCall(std::optional<int64_t> total, uint64_t calls)
{
    if (!total || calls == 0)
        return std::nullopt;
    return double(*total) / double(calls);
}

QVariant sortable(std::optional<int64_t> ns)
{
    return ns ? QVariant(qlonglong(*ns)) : QVariant(qlonglong(-1));
}
QVariant sortable(std::optional<double> ns)
{
    return ns ? QVariant(*ns) : QVariant(-1.0);
}

} // namespace

RegionTableModel::RegionTableModel(QObject* parent) : QAbstractTableModel(parent)
{
    m_columns = {Column::Region, Column::Calls, Column::Total,
                 Column::Mean,   Column::P95,   Column::Exclusive};
}

RegionTableModel::~RegionTableModel() = default;

void RegionTableModel::setCapture(std::shared_ptr<const model::Capture> capture,
                                  std::shared_ptr<const model::CaptureSummary> summary)
{
    beginResetModel();
    m_capture = std::move(capture);
    m_summary = std::move(summary);
    if (!m_capture || !m_summary) {
        m_capture.reset();
        m_summary.reset();
    }
    rebuild();
    endResetModel();
}

void RegionTableModel::setRankSelection(RankSelection selection)
{
    if (selection == m_selection)
        return;
    beginResetModel();
    m_selection = selection;
    rebuild();
    endResetModel();
}

void RegionTableModel::rebuild()
{
    m_entries.clear();
    m_columns = {Column::Region};
    if (m_capture && std::any_of(m_capture->regionKinds.begin(), m_capture->regionKinds.end(),
                                 [](model::RegionKind kind) { return kind != model::RegionKind::Cpu; }))
        m_columns.push_back(Column::Kind);
    if (m_selection.mode != RankSelection::Mode::Pooled)
        m_columns.push_back(Column::Rank);
    for (Column c : {Column::Calls, Column::Total, Column::Mean, Column::P95, Column::Exclusive})
        m_columns.push_back(c);
    if (!m_capture)
        return;
    if (m_capture->events.hasGpu())
        m_columns.push_back(Column::GpuTotal);
    if (m_capture->events.hasAllocations()) {
        m_columns.push_back(Column::AllocsPerCall);
        m_columns.push_back(Column::BytesPerCall);
    }

    switch (m_selection.mode) {
    case RankSelection::Mode::Pooled:
        m_entries.reserve(m_summary->regionOrder.size());
        for (const uint32_t region : m_summary->regionOrder)
            m_entries.push_back({region, std::nullopt});
        break;
    case RankSelection::Mode::PerRank:
    case RankSelection::Mode::SingleRank:
        for (const uint32_t r : m_summary->rowOrder) {
            const auto& row = m_capture->rows[r];
            if (m_selection.mode == RankSelection::Mode::SingleRank && row.rank != m_selection.rank)
                continue;
            m_entries.push_back({row.region, r});
        }
        break;
    }
}

int RegionTableModel::columnOf(Column kind) const
{
    const auto it = std::find(m_columns.begin(), m_columns.end(), kind);
    return it == m_columns.end() ? -1 : int(it - m_columns.begin());
}

const model::RegionStats& RegionTableModel::stats(int row) const
{
    const Entry& e = entry(row);
    return e.row ? m_summary->perRow[*e.row] : m_summary->pooled(e.region);
}

std::span<const uint32_t> RegionTableModel::captureRows(int row) const
{
    const Entry& e = entry(row);
    if (e.row)
        return {&*e.row, 1};
    return m_summary->rowsOfRegion[e.region];
}

QString RegionTableModel::regionName(int row) const
{
    return QString::fromStdString(m_capture->regionName(entry(row).region));
}

int RegionTableModel::findEntry(uint32_t region, std::optional<uint32_t> row) const
{
    for (size_t i = 0; i < m_entries.size(); ++i)
        if (m_entries[i].region == region && (!row || !m_entries[i].row || m_entries[i].row == row))
            return int(i);
    return -1;
}

int RegionTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int RegionTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

QVariant RegionTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry& e = m_entries[size_t(index.row())];
    const auto& s = stats(index.row());
    const Column column = columnKind(index.column());
    switch (role) {
    case Qt::DisplayRole:
        return displayData(e, s, column);
    case SortRole:
        return sortData(e, s, column);
    case Qt::ToolTipRole:
        return toolTipData(e, s, column);
    case EntryRole:
        return index.row();
    case Qt::TextAlignmentRole:
        return column == Column::Region || column == Column::Kind ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                        : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant RegionTableModel::displayData(const Entry& e, const model::RegionStats& s,
                                       Column column) const
{
    switch (column) {
    case Column::Region:
        return QString::fromStdString(m_capture->regionName(e.region));
    case Column::Kind:
        return QString::fromLatin1(model::regionKindName(m_capture->regionKind(e.region)));
    case Column::Rank:
        return e.row ? QString::number(m_capture->rows[*e.row].rank) : kMissingText;
    case Column::Calls:
        return countText(s.calls);
    case Column::Total:
        return durationText(double(s.total));
    case Column::Mean:
        return durationText(s.mean);
    case Column::P95:
        return durationText(s.p95);
    case Column::Exclusive:
        return durationText(s.exclusive);
    case Column::GpuTotal:
        return durationText(s.gpuTotal);
    case Column::AllocsPerCall: {
        const auto v = perCall(s.allocCount, s.calls);
        return v ? QString::number(*v, 'f', *v < 10 ? 2 : 1) : kMissingText;
    }
    case Column::BytesPerCall: {
        const auto v = perCall(s.allocBytes, s.calls);
        return v ? bytesText(*v) : kMissingText;
    }
    }
    return {};
}

QVariant RegionTableModel::sortData(const Entry& e, const model::RegionStats& s,
                                    Column column) const
{
    switch (column) {
    case Column::Region:
        return QString::fromStdString(m_capture->regionName(e.region));
    case Column::Kind:
        return QString::fromLatin1(model::regionKindName(m_capture->regionKind(e.region)));
    case Column::Rank:
        return e.row ? m_capture->rows[*e.row].rank : -1;
    case Column::Calls:
        return qulonglong(s.calls);
    case Column::Total:
        return qlonglong(s.total);
    case Column::Mean:
        return s.mean;
    case Column::P95:
        return sortable(s.p95);
    case Column::Exclusive:
        return sortable(s.exclusive);
    case Column::GpuTotal:
        return sortable(s.gpuTotal);
    case Column::AllocsPerCall:
        return sortable(perCall(s.allocCount, s.calls));
    case Column::BytesPerCall:
        return sortable(perCall(s.allocBytes, s.calls));
    }
    return {};
}

QVariant RegionTableModel::toolTipData(const Entry& e, const model::RegionStats& s,
                                       Column column) const
{
    switch (column) {
    case Column::Region: {
        QString tip = QString::fromStdString(m_capture->regionName(e.region));
        if (s.summaryOnly)
            tip +=
                QLatin1Char('\n') + tr("Summary only: per-call data unavailable (aggregate file)");
        return tip;
    }
    case Column::Kind:
    case Column::Rank:
        return {};
    case Column::Calls:
        return s.unclosed
                   ? tr("%1 calls, %2 never closed").arg(countText(s.calls), countText(s.unclosed))
                   : tr("%1 calls").arg(countText(s.calls));
    case Column::Total:
        return exactNsText(s.total);
    case Column::Mean:
        return exactNsText(s.mean);
    case Column::P95:
        return s.p95 ? exactNsText(*s.p95) : tr("Not available: the file holds no per-call data");
    case Column::Exclusive:
        return s.exclusive ? exactNsText(*s.exclusive) : tr("Not available for this file");
    case Column::GpuTotal:
        return s.gpuTotal ? exactNsText(*s.gpuTotal) : tr("No GPU time recorded for these calls");
    case Column::AllocsPerCall:
    case Column::BytesPerCall:
        return s.allocCount ? tr("%1 allocations, %2 bytes over %3 calls")
                                  .arg(countText(uint64_t(*s.allocCount)),
                                       countText(uint64_t(*s.allocBytes)), countText(s.calls))
                            : tr("No allocations recorded for these calls");
    }
    return {};
}

QVariant RegionTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    const Column column = columnKind(section);
    switch (role) {
    case Qt::DisplayRole:
        return columnTitle(column);
    case Qt::ToolTipRole:
        return columnToolTip(column);
    case Qt::TextAlignmentRole:
        return column == Column::Region || column == Column::Kind ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                                  : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

} // namespace spanscope::views
