#pragma once
// The GPU tab of a capture: where each device's time went and why it waited, from the GPU
// analyses (model/analysis, computed here off the GUI thread, latest wins): a bar of
// compute / communication / memory / idle with their figures, the launch latency and its
// histogram, the streams with their gaps and queues, the largest gaps (activate one to zoom
// the timeline to it), and the critical path's split with a button that draws it on the
// timeline. A live capture's every update is analysed again while the tab shows or its
// path is drawn (else once the tab is shown: a hidden tab costs the job's machine nothing).
// GUI thread only.

#include "model/analysis/gpu_analysis.h"
#include "model/capture.h"

#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QSplitter;
class QStackedWidget;
class QTableView;
class QToolButton;

namespace spanscope::views {

class GpuGapModel;
class GpuStreamModel;
class LatencyHistogram;
class LatestJob;
class ShareBar;

class GpuView : public QWidget
{
    Q_OBJECT

public:
    explicit GpuView(QWidget* parent = nullptr);
    ~GpuView() override;

    // Analyses `capture` (null: nothing) in the background; `update`: a newer snapshot of
    // the same capture (keeps the chosen device and the drawn path), analysed when the tab
    // shows or its path is drawn, else when it is shown next (stale()).
    void setCapture(std::shared_ptr<const model::Capture> capture, bool update = false);
    // The kernel classes the analyses use (Settings › Kernel classes); analyses again.
    void setKernelClasses(const model::analysis::KernelClasses& classes);
    // Whether a capture has GPU work for this tab to show: O(regions).
    static bool hasGpuWork(const model::Capture& capture);

    // The last finished analysis (null before the first, or without a capture).
    const std::shared_ptr<const model::analysis::GpuAnalysis>& analysis() const { return m_analysis; }
    bool analysing() const;
    // A newer snapshot than the one analysed waits for the tab to be shown.
    bool stale() const { return m_stale; }
    const model::analysis::DeviceFigures* currentDevice() const;
    const model::analysis::CriticalPath* currentPath() const;

    // The parts, for tests and screenshots.
    QComboBox* deviceSelector() const { return m_devices; }
    ShareBar* utilizationBar() const { return m_utilization; }
    ShareBar* pathBar() const { return m_path; }
    QTableView* streamTable() const { return m_streamTable; }
    QTableView* gapTable() const { return m_gapTable; }
    LatencyHistogram* latencyHistogram() const { return m_latency; }
    QToolButton* showPathButton() const { return m_showPath; }
    QLabel* latencyLine() const { return m_latencyLine; }
    QLabel* message() const { return m_message; }

signals:
    // The user activated a gap: show [startNs, endNs) in the timeline.
    void gapActivated(qint64 startNs, qint64 endNs);
    // The critical path to draw on the timeline, or null to draw none.
    void criticalPathChanged(std::shared_ptr<const model::analysis::CriticalPath> path);
    void analysisFinished();

protected:
    void showEvent(QShowEvent* event) override;

private:
    // Whether updates are analysed as they come: the tab shows, or its path is drawn.
    bool followsUpdates() const;
    void analyse();
    void showAnalysis(std::shared_ptr<const model::analysis::GpuAnalysis> analysis);
    void showDevice();
    void emitPath();
    void fitStreamColumns();

    std::shared_ptr<const model::Capture> m_capture;
    std::shared_ptr<const model::analysis::GpuAnalysis> m_analysis;
    model::analysis::KernelClasses m_classes;
    LatestJob* m_job = nullptr;
    // A newer snapshot arrived while one was analysed: analysed once that one is done (one
    // analysis at a time, so a live capture's updates never pile up work).
    bool m_pending = false;
    bool m_stale = false; // the newest snapshot waits for the tab to be shown
    bool m_tablesFitted = false; // the stream table was given its columns' width (once per capture)

    QStackedWidget* m_stack = nullptr;
    QLabel* m_message = nullptr;
    QComboBox* m_devices = nullptr;
    QLabel* m_deviceLine = nullptr;
    QLabel* m_latencyLine = nullptr;
    QLabel* m_classNote = nullptr;
    ShareBar* m_utilization = nullptr;
    QLabel* m_pathTitle = nullptr;
    ShareBar* m_path = nullptr;
    QToolButton* m_showPath = nullptr;
    QSplitter* m_tables = nullptr;
    QTableView* m_streamTable = nullptr;
    GpuStreamModel* m_streams = nullptr;
    LatencyHistogram* m_latency = nullptr;
    QTableView* m_gapTable = nullptr;
    GpuGapModel* m_gaps = nullptr;
};

} // namespace spanscope::views
