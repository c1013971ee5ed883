#pragma once
// The Allocations tab: what the selected region allocated inside its calls (on the
// threads that ran them), or the whole run, on one device or all: counts, bytes, the peak,
// a log2 size histogram by count or by bytes, and the largest allocations with the range
// stack open at the time; clicking one shows it in the timeline. Computed on a worker
// (latest wins), and only while the tab is shown. GUI thread only.

#include "model/capture.h"
#include "model/stats/allocation_stats.h"
#include "model/timeline/timeline_index.h"
#include "views/latest_job.h"

#include <QWidget>
#include <memory>
#include <optional>
#include <span>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QTableWidget;

namespace spanscope::views {

class PlotFrame;

// One of the largest allocations, with what was open on its thread when it was made.
struct LargeAllocation
{
    uint32_t row = 0;            // AllocationTable row
    std::vector<uint32_t> stack; // calls open at the time, outermost first
};

struct AllocationResult
{
    model::AllocationBreakdown breakdown;
    std::vector<LargeAllocation> largest;
};

class AllocationsView : public QWidget
{
    Q_OBJECT

public:
    explicit AllocationsView(QWidget* parent = nullptr);
    ~AllocationsView() override;

    void setCapture(std::shared_ptr<const model::Capture> capture,
                    std::shared_ptr<const model::TimelineIndex> index);
    // The region whose calls scope the allocations (unless "whole run" is ticked).
    void showRegion(uint32_t region, std::span<const uint32_t> rows);
    void clearRegion();
    void setWholeRun(bool whole);
    void setByBytes(bool bytes);

    // What is shown, for tests: null while computing or when there is nothing.
    const AllocationResult* result() const { return m_result.get(); }
    QString figuresText() const;
    QTableWidget* largestTable() const { return m_table; }
    PlotFrame* frame() const { return m_frame; }
    bool isComputing() const { return m_job.isRunning(); }

signals:
    // A row of the largest allocations was clicked: the innermost call open then (-1 for
    // none) and the allocation's time (ns) and track.
    void allocationClicked(qint64 call, qint64 timeNs, quint32 track);
    void resultShown();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void refresh();
    void apply(std::shared_ptr<const AllocationResult> result);
    void replot();
    void fillDevices();

    std::shared_ptr<const model::Capture> m_capture;
    std::shared_ptr<const model::TimelineIndex> m_index;
    std::optional<uint32_t> m_region;
    std::vector<uint32_t> m_rows;
    std::shared_ptr<const AllocationResult> m_result;
    LatestJob m_job;
    bool m_stale = false;

    QLabel* m_title = nullptr;
    QCheckBox* m_wholeRun = nullptr;
    QComboBox* m_device = nullptr;
    QComboBox* m_measure = nullptr;
    QLabel* m_figures = nullptr;
    PlotFrame* m_frame = nullptr;
    QTableWidget* m_table = nullptr;
};

} // namespace spanscope::views
