#pragma once
// Everything one open file shows: a sortable, filterable region table with a rank
// selector, and below it the run metadata, the file's warnings and plots of the selected
// region (duration histogram, GPU vs wall) as tabs; on the right the selected region's
// details and, below them, the call selected in the timeline. Reads one immutable snapshot; never loads anything itself.
// GUI thread only.

#include "model/analysis/kernel_classes.h"
#include "model/capture.h"
#include "model/stats/capture_summary.h"
#include "model/timeline/timeline_index.h"
#include "region_table_model.h"
#include "views/save_request.h"

#include <QWidget>
#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QTableView;
class QToolButton;

namespace spanscope::views {

class AllocationsView;
class CallDetailsWidget;
class DurationHistogram;
class GpuView;
class GpuWallPlot;
class MetadataModel;
class RegionDetailsWidget;
class RegionFilterProxy;
class SpanTreeWidget;
class TimelineView;
class WarningsWidget;

class CaptureView : public QWidget
{
    Q_OBJECT

public:
    explicit CaptureView(QWidget* parent = nullptr);
    ~CaptureView() override;

    // Shows a new snapshot (after a load or reload). Keeps the rank choice, filter and
    // selected region when the new capture still has them.
    // `timeline` may be null (no timeline is shown then).
    void setCapture(std::shared_ptr<const model::Capture> capture,
                    std::shared_ptr<const model::CaptureSummary> summary,
                    std::shared_ptr<const model::TimelineIndex> timeline = nullptr);
    // A newer snapshot of the same capture while it grows (live): like setCapture, but the
    // timeline keeps its view (and follows the end of the run) and the span tree its
    // expanded nodes.
    void updateCapture(std::shared_ptr<const model::Capture> capture,
                       std::shared_ptr<const model::CaptureSummary> summary,
                       std::shared_ptr<const model::TimelineIndex> timeline);
    const std::shared_ptr<const model::Capture>& capture() const;

    // The kernel classes the GPU page's analyses use (View › Kernel Classes).
    void setKernelClasses(const model::analysis::KernelClasses& classes);

    // Puts the keyboard focus in the filter box and selects its text (Ctrl+F).
    void focusFilter();
    void showWarnings();
    // The page of regions, plots and the selected call (a GPU capture opens on the GPU page).
    void showRegionsPage();

    // Splitter positions the user chose, so every tab and the next session open the same
    // way. Until the user drags a splitter (or a state is restored) the view sizes its parts
    // to their content and the window (fitLayout()) and saveLayoutState() returns nothing.
    QByteArray saveLayoutState() const;
    bool restoreLayoutState(const QByteArray& state);
    bool layoutChosenByUser() const { return m_userSized; }
    // Gives the timeline the height its lanes need (up to about half), the region table its
    // rows (plots keep at least kMinPlotHeight) and the selected call room once there is one.
    void fitLayout();

    static constexpr int kMinPlotHeight = 240; // px the tabs below the table keep for a plot
    static constexpr int kMinTimelineHeight = 170;

    // The parts, for the main window's actions and for tests.
    QTableView* regionTable() const { return m_table; }
    RegionTableModel* regionModel() const { return m_model; }
    RegionFilterProxy* regionProxy() const { return m_proxy; }
    QComboBox* rankSelector() const { return m_rankSelector; }
    QLineEdit* filterEdit() const { return m_filter; }
    RegionDetailsWidget* details() const { return m_details; }
    CallDetailsWidget* callDetails() const { return m_callDetails; }
    WarningsWidget* warnings() const { return m_warnings; }
    TimelineView* timeline() const { return m_timeline; }
    DurationHistogram* histogram() const { return m_histogram; }
    GpuWallPlot* gpuWallPlot() const { return m_gpuWall; }
    GpuView* gpuView() const { return m_gpuView; }
    // Under the timeline: the GPU page (captures with GPU work, first) and the regions page.
    QTabWidget* pages() const { return m_pages; }
    SpanTreeWidget* spanTree() const { return m_spanTree; }
    AllocationsView* allocations() const { return m_allocations; }
    // The tabs below the table (Metadata, Warnings, Histogram, GPU vs wall, Allocations,
    // Span tree).
    QTabWidget* sideTabs() const { return m_sideTabs; }

    // The next/previous call (in time) of a region matching the filter, in the timeline.
    void findCall(bool forward);

protected:
    void resizeEvent(QResizeEvent* event) override;

signals:
    // The layout the user gave the splitters changed (to remember it).
    void layoutStateChanged();
    // A plot's Save image or Save data was chosen; app/ asks for the path (save_request.h).
    void saveRequested(const spanscope::views::SaveRequest& request);

private:
    void apply(std::shared_ptr<const model::Capture> capture,
               std::shared_ptr<const model::CaptureSummary> summary,
               std::shared_ptr<const model::TimelineIndex> timeline, bool update);
    void fillRankSelector();
    void applyRankSelection();
    void applyFilter(const QString& text);
    void showCurrentRegion();
    void clearRegion();
    void restoreSelection(uint32_t region, std::optional<uint32_t> row);
    void updateMatchCount();
    void selectRegionOfCall(quint32 event);
    void showCall(quint32 event, bool reveal);
    QString summaryLine() const;

    RegionTableModel* m_model = nullptr;
    RegionFilterProxy* m_proxy = nullptr;
    MetadataModel* m_metadataModel = nullptr;

    QLabel* m_summaryLabel = nullptr;
    QToolButton* m_warningsBadge = nullptr;
    QComboBox* m_rankSelector = nullptr;
    QLineEdit* m_filter = nullptr;
    QLabel* m_matchCount = nullptr;
    QTableView* m_table = nullptr;
    QSplitter* m_verticalSplitter = nullptr; // timeline above, tables below
    QSplitter* m_mainSplitter = nullptr;
    TimelineView* m_timeline = nullptr;
    QToolButton* m_previousCall = nullptr;
    QToolButton* m_nextCall = nullptr;
    QSplitter* m_leftSplitter = nullptr;
    RegionDetailsWidget* m_details = nullptr;
    CallDetailsWidget* m_callDetails = nullptr;
    QSplitter* m_detailsSplitter = nullptr; // the region's figures above, the selected call below
    QTabWidget* m_sideTabs = nullptr;
    QStackedWidget* m_metadataStack = nullptr; // the table, or a note when there is none
    QTableView* m_metadataTable = nullptr;
    QLabel* m_noMetadata = nullptr;
    WarningsWidget* m_warnings = nullptr;
    int m_warningsTab = -1;
    DurationHistogram* m_histogram = nullptr;
    GpuWallPlot* m_gpuWall = nullptr;
    GpuView* m_gpuView = nullptr;
    QTabWidget* m_pages = nullptr; // under the timeline: GPU (with GPU work), Regions
    SpanTreeWidget* m_spanTree = nullptr;
    AllocationsView* m_allocations = nullptr;
    bool m_userSized = false;
};

} // namespace spanscope::views
