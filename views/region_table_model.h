#pragma once
// The region table: one line per region (pooled over ranks) or per (region, rank) row of a
// capture, with the headline statistics. Reads an immutable snapshot held by shared_ptr,
// so building and sorting never copy events. GUI thread only.

#include "model/capture.h"
#include "model/stats/capture_summary.h"

#include <QAbstractTableModel>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace spanscope::views {

// Which ranks the table shows.
struct RankSelection
{
    enum class Mode {
        Pooled,     // one line per region, statistics pooled over every rank
        PerRank,    // one line per (region, rank)
        SingleRank, // the lines of `rank` only
    };
    Mode mode = Mode::Pooled;
    int32_t rank = 0; // SingleRank only

    static RankSelection pooled() { return {}; }
    static RankSelection perRank() { return {Mode::PerRank, 0}; }
    static RankSelection single(int32_t rank) { return {Mode::SingleRank, rank}; }
    friend bool operator==(const RankSelection&, const RankSelection&) = default;
};

class RegionTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum class Column { Region, Kind, Rank, Calls, Total, Mean, P95, Exclusive, GpuTotal,
                        AllocsPerCall, BytesPerCall };

    enum Role {
        // The raw value to sort by: ns (qlonglong or double), counts (qulonglong), names
        // (QString). Unavailable figures sort as -1, below every real value.
        SortRole = Qt::UserRole + 1,
        // The line's index into entries (stable across sorting and filtering proxies).
        EntryRole,
    };

    // One line: a region, pooled over `captureRows`, or a single (region, rank) row.
    struct Entry
    {
        uint32_t region = 0;
        std::optional<uint32_t> row; // index into Capture::rows; empty when pooled
    };

    explicit RegionTableModel(QObject* parent = nullptr);
    ~RegionTableModel() override;

    // Replaces the snapshot; both may be null (empty table). Resets the model.
    void setCapture(std::shared_ptr<const model::Capture> capture,
                    std::shared_ptr<const model::CaptureSummary> summary);
    const std::shared_ptr<const model::Capture>& capture() const { return m_capture; }
    const std::shared_ptr<const model::CaptureSummary>& summary() const { return m_summary; }

    // Resets the model when the selection changes; a rank not in the capture shows nothing.
    void setRankSelection(RankSelection selection);
    RankSelection rankSelection() const { return m_selection; }

    // Columns shown for the current capture and selection: Kind only when the capture has
    // GPU work, Rank only when lines are per rank, GPU total only when the capture recorded
    // GPU time, allocations per call only when it recorded allocations (spanscope-run --alloc).
    Column columnKind(int column) const { return m_columns[size_t(column)]; }
    int columnOf(Column kind) const; // -1 when not shown

    const Entry& entry(int row) const { return m_entries[size_t(row)]; }
    const model::RegionStats& stats(int row) const;
    // The capture rows a line covers: every rank's row of the region when pooled.
    std::span<const uint32_t> captureRows(int row) const;
    QString regionName(int row) const;
    // The model row showing `region` (and capture row `row` when per rank), or -1.
    int findEntry(uint32_t region, std::optional<uint32_t> row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    void rebuild();
    QVariant displayData(const Entry& entry, const model::RegionStats& stats, Column column) const;
    QVariant sortData(const Entry& entry, const model::RegionStats& stats, Column column) const;
    QVariant toolTipData(const Entry& entry, const model::RegionStats& stats, Column column) const;

    std::shared_ptr<const model::Capture> m_capture;
    std::shared_ptr<const model::CaptureSummary> m_summary;
    RankSelection m_selection;
    std::vector<Entry> m_entries;
    std::vector<Column> m_columns;
};

} // namespace spanscope::views
