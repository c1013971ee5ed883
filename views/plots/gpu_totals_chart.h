#pragma once
// Wall and GPU time per region: for every region with GPU data a pair of horizontal bars
// (light: wall total, solid: GPU total) in the region's timeline colour, largest wall
// total on top, with the GPU/wall ratio beside them so device-bound and host-bound regions
// stand apart. Shows as many regions as fit and scrolls (drag, wheel) through the rest.
// GUI thread only.

#include "gpu_wall_data.h"
#include "model/capture.h"
#include "model/stats/capture_summary.h"

#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

class QLabel;

namespace spanscope::views {

class PlotFrame;

class GpuTotalsChart : public QWidget
{
    Q_OBJECT

public:
    // Pixel height of one region (two bars and the gap between regions).
    static constexpr int kRegionRowHeight = 30;
    // Regions drawn at most (the largest by wall time); the CSV has all.
    static constexpr size_t kMaxRegions = 200;

    explicit GpuTotalsChart(QWidget* parent = nullptr);
    ~GpuTotalsChart() override;

    // Plots the regions of `capture` with GPU data, summed over `rank`'s rows (every
    // rank's when empty). Null pointers or no GPU column: nothing. O(rows log rows).
    void setData(std::shared_ptr<const model::Capture> capture,
                 std::shared_ptr<const model::CaptureSummary> summary, std::optional<int32_t> rank);

    const std::vector<RegionGpuTotals>& totals() const { return m_totals; }
    PlotFrame* frame() const { return m_frame; }
    // region,calls,gpu_calls,wall_total_ns,gpu_total_ns,gpu_wall_ratio for every region.
    bool saveCsv(const QString& path, QString* error = nullptr) const;

private:
    void plot();
    void fitLayout();
    void clampRows();
    size_t shownRegions() const;

    std::shared_ptr<const model::Capture> m_capture;
    std::optional<int32_t> m_rank;
    std::vector<RegionGpuTotals> m_totals;
    int m_visibleRows = 0; // regions that fit the plot's height, 0 until laid out

    QLabel* m_title = nullptr;
    PlotFrame* m_frame = nullptr;
};

} // namespace spanscope::views
