#pragma once
// The "GPU vs wall" tab: where the time of GPU regions goes. Left, the wall and GPU totals
// of every region (GpuTotalsChart); right, each call of the selected region as a (wall,
// GPU) point (GpuCallScatter), whose clicks select the call in the timeline. A file
// without GPU durations gets one sentence instead. GUI thread only.

#include "model/capture.h"
#include "model/stats/capture_summary.h"

#include <QWidget>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

class QLabel;
class QSplitter;
class QStackedLayout;

namespace spanscope::views {

class GpuCallScatter;
class GpuTotalsChart;

class GpuWallPlot : public QWidget
{
    Q_OBJECT

public:
    explicit GpuWallPlot(QWidget* parent = nullptr);
    ~GpuWallPlot() override;

    // Both may be null. Redraws the totals; clears the selected region.
    void setCapture(std::shared_ptr<const model::Capture> capture,
                    std::shared_ptr<const model::CaptureSummary> summary);
    // Totals over one rank's rows, or every rank's when empty (the table's rank choice).
    void setTotalsRank(std::optional<int32_t> rank);
    // The calls of `region` over capture rows `rows` (`rank`: of a single row, else empty).
    void showRegion(uint32_t region, std::span<const uint32_t> rows, std::optional<int32_t> rank);
    void clearRegion();

    GpuTotalsChart* totalsChart() const { return m_totals; }
    GpuCallScatter* callScatter() const { return m_calls; }
    // The sentence shown instead of both plots (no GPU data), else empty.
    QString message() const;

signals:
    // The user clicked the point of this call (index into Capture::events).
    void callClicked(quint32 event);

private:
    bool hasGpu() const;

    std::shared_ptr<const model::Capture> m_capture;
    std::shared_ptr<const model::CaptureSummary> m_summary;
    std::optional<int32_t> m_totalsRank;

    QStackedLayout* m_stack = nullptr;
    QLabel* m_noGpu = nullptr;
    QSplitter* m_splitter = nullptr;
    GpuTotalsChart* m_totals = nullptr;
    GpuCallScatter* m_calls = nullptr;
};

} // namespace spanscope::views
