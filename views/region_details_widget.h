#pragma once
// Every statistic of the region selected in the table: calls, durations, percentiles (and
// one of the user's choosing), time span, GPU and await time, rank imbalance, where the
// region is in the source, its tags and, when the file records threads, a per-thread
// breakdown. GUI thread only.

#include "model/capture.h"
#include "model/stats/capture_summary.h"
#include "model/stats/region_stats.h"
#include "views/latest_job.h"

#include <QWidget>
#include <array>
#include <memory>
#include <optional>
#include <span>
#include <vector>

class QDoubleSpinBox;
class QGridLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QStackedLayout;
class QTableView;

namespace spanscope::views {

struct SelectionDetail
{
    std::vector<int64_t> sortedDurations;
    std::vector<model::ThreadBreakdown> threads;
};

class ThreadBreakdownModel;

class RegionDetailsWidget : public QWidget
{
    Q_OBJECT

public:
    // The figures shown as "label: value" pairs.
    enum class Field {
        Calls,
        Unclosed,
        Total,
        Mean,
        Minimum,
        Maximum,
        First,
        Last,
        StdDev,
        Exclusive,
        Imbalance,
        P50,
        P95,
        P99,
        CustomPercentile,
        StartMin,
        EndMax,
        GpuCalls,
        GpuTotal,
        GpuMean,
        AwaitTotal,
        SourceLine,
        Tags,
    };
    static constexpr size_t kFieldCount = size_t(Field::Tags) + 1;

    explicit RegionDetailsWidget(QWidget* parent = nullptr);
    ~RegionDetailsWidget() override;

    // The capture whose regions will be shown; clears the panel. May be null. Start and end
    // are shown after `origin` (ns), the run's earliest start; without it that is found by
    // a pass over every call (give it when known: live updates come ten times a second).
    void setCapture(std::shared_ptr<const model::Capture> capture,
                    std::optional<int64_t> origin = std::nullopt);

    // Shows `stats` of `region` over capture rows `rows`; `rank` is empty when the figures
    // are pooled over every rank in `rows`. Cheap: per-call data is only read when the
    // per-thread table or the custom percentile need it.
    void showRegion(uint32_t region, std::span<const uint32_t> rows,
                    const model::RegionStats& stats, std::optional<int32_t> rank);
    // Back to the "select a region" hint.
    void clearRegion();

    // The region shown, empty when none (for tests and the window title).
    QString regionTitle() const;
    // What the pane says while no region is selected.
    QString noRegionText() const;
    // The text a field shows (for tests).
    QString fieldText(Field field) const;
    // The percentile the spin box asks for, in [0, 100].
    void setCustomPercentile(double p);

private:
    QLabel* addField(QGridLayout* grid, int row, int column, Field field, const QString& label,
                     const QString& toolTip = {});
    void setField(Field field, const QString& text, const QString& toolTip = {});
    void showSource();
    // Sorted durations and the per-thread breakdown of the selection: computed right away
    // for small regions, on a worker for large ones (latest selection wins), so selecting a
    // 10 M-call region never stalls the GUI thread.
    void requestSelectionDetail();
    void showSelectionDetail(SelectionDetail detail);
    void updateCustomPercentile();

    std::shared_ptr<const model::Capture> m_capture;
    int64_t m_origin = 0; // ns: earliest closed call of the capture; start/end are shown from it

    // The current selection.
    bool m_hasRegion = false;
    std::vector<uint32_t> m_rows;
    model::RegionStats m_stats;
    // Closed-call durations of the selection, sorted ascending, kept until the selection
    // changes (the spin box asks again on every step); ready once the detail arrived.
    std::vector<int64_t> m_sortedDurations;
    bool m_durationsReady = false;
    LatestJob m_detailJob; // the latest requested detail wins

    QStackedLayout* m_stack = nullptr;
    QLabel* m_noRegion = nullptr; // shown while no region is selected
    QLabel* m_title = nullptr;
    QLabel* m_scope = nullptr;
    QLabel* m_summaryOnlyBanner = nullptr;
    std::array<QLabel*, kFieldCount> m_values{};
    QDoubleSpinBox* m_percentileSpin = nullptr;
    QLineEdit* m_sourceFile = nullptr;
    QPlainTextEdit* m_sourceText = nullptr;
    QGroupBox* m_threadsGroup = nullptr;
    QTableView* m_threadsTable = nullptr;
    ThreadBreakdownModel* m_threadsModel = nullptr;
};

} // namespace spanscope::views
