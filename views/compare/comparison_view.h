#pragma once
// Everything a comparison of runs shows: top left the comparison table with its controls
// (metric, threshold, per rank, name filter, verdict filter); top right the overlaid
// duration histograms and the scaling plot as tabs, both for the selected region; below,
// the runs' timelines stacked and synchronized. Changing the metric, threshold or per-rank
// choice recomputes the comparison on a worker (latest wins); the table keeps its sort and
// selected region. Reads immutable snapshots; never loads anything. GUI thread only.

#include "comparison_filter_proxy.h"
#include "model/analysis/kernel_classes.h"
#include "model/compare/run_comparison.h"
#include "model/timeline/timeline_index.h"

#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSplitter;
class QTabWidget;
class QTableView;

namespace spanscope::views {

class ComparisonJob;
class ElidedLabel;
class ComparisonTableModel;
class OverlayHistogram;
class GpuComparisonPanel;
class ScalingPlot;
class SyncedTimelines;

// One loaded run of a comparison.
struct ComparedRun
{
    QString label; // file name: column header, legend entry, timeline label
    std::shared_ptr<const model::Capture> capture;
    std::shared_ptr<const model::CaptureSummary> summary;
    std::shared_ptr<const model::TimelineIndex> timeline; // null: no timeline for this run
};

class ComparisonView : public QWidget
{
    Q_OBJECT

public:
    explicit ComparisonView(QWidget* parent = nullptr);
    ~ComparisonView() override;

    // Two runs or more, the first the baseline. Starts the comparison; comparisonShown()
    // follows when it is on screen.
    void setRuns(std::vector<ComparedRun> runs);
    int runCount() const { return int(m_runs.size()); }

    // The options the controls hold; setting them recomputes.
    model::CompareOptions options() const;
    void setOptions(const model::CompareOptions& options);
    // The kernel classes of the GPU tab's analyses (View › Kernel Classes); analyses again.
    void setKernelClasses(const model::analysis::KernelClasses& classes);
    // A comparison is being computed for the latest options.
    bool isComputing() const;
    // The comparison on screen (null before the first one finished).
    const std::shared_ptr<const model::Comparison>& comparison() const;

    // Puts the keyboard focus in the filter box and selects its text (Ctrl+F).
    void focusFilter();
    // Selects a region's line (rank -1: pooled); false when the table has none.
    bool selectRegion(const std::string& name, int32_t rank = -1);

    // Splitter positions, so the next comparison and session open the same way.
    // The split the user chose by dragging (empty until then: the view fits its parts to
    // the window, fitLayout()), to remember across tabs and sessions.
    QByteArray saveLayoutState() const;
    bool restoreLayoutState(const QByteArray& state);
    bool layoutChosenByUser() const { return m_userSized; }
    // The table and plots at most about 45 % of the height (their rows, a plot's room),
    // the stacked timelines the rest.
    void fitLayout();

    // The parts, for the main window and tests.
    QTableView* table() const { return m_table; }
    ComparisonTableModel* tableModel() const { return m_model; }
    ComparisonFilterProxy* proxy() const { return m_proxy; }
    QLineEdit* filterEdit() const { return m_filter; }
    QComboBox* verdictFilterBox() const { return m_verdictFilter; }
    QComboBox* metricBox() const { return m_metric; }
    QDoubleSpinBox* thresholdBox() const { return m_threshold; }
    QCheckBox* perRankBox() const { return m_perRank; }
    QCheckBox* allFiguresBox() const { return m_allFigures; }
    OverlayHistogram* histogram() const { return m_histogram; }
    ScalingPlot* scaling() const { return m_scaling; }
    GpuComparisonPanel* gpu() const { return m_gpu; }
    SyncedTimelines* timelines() const { return m_timelines; }
    QTabWidget* plotTabs() const { return m_plotTabs; }

signals:
    // A (re)computed comparison is in the table.
    void comparisonShown();
    void layoutStateChanged();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    QWidget* createTablePanel();
    void recompute();
    void showComparison(std::shared_ptr<const model::Comparison> comparison);
    void applyFilter(const QString& text);
    void showCurrentRegion();
    void updateStatus();

    std::vector<ComparedRun> m_runs;
    ComparisonJob* m_job = nullptr;
    ComparisonTableModel* m_model = nullptr;
    ComparisonFilterProxy* m_proxy = nullptr;
    bool m_sorted = false; // the first comparison picks the initial sort

    ElidedLabel* m_status = nullptr;
    QComboBox* m_metric = nullptr;
    QDoubleSpinBox* m_threshold = nullptr;
    QCheckBox* m_perRank = nullptr;
    QCheckBox* m_allFigures = nullptr;
    QLineEdit* m_filter = nullptr;
    QComboBox* m_verdictFilter = nullptr;
    QTableView* m_table = nullptr;
    QTabWidget* m_plotTabs = nullptr;
    OverlayHistogram* m_histogram = nullptr;
    ScalingPlot* m_scaling = nullptr;
    GpuComparisonPanel* m_gpu = nullptr; // a tab while some run has GPU work
    int m_gpuTab = -1;
    SyncedTimelines* m_timelines = nullptr;
    QSplitter* m_topSplitter = nullptr;
    QSplitter* m_verticalSplitter = nullptr;
    bool m_userSized = false;
};

} // namespace spanscope::views
