#pragma once
// The calls of the selected region as points (wall duration, GPU duration) on log-log
// axes against the y = x diagonal: calls on the diagonal keep the device busy the whole
// time, calls far below it spend their time on the host. Clicking a point emits its event
// so the timeline can show the call. Regions of many calls are thinned (one point per
// grid cell, see gpuWallPoints) on a worker thread, the newest request winning; nothing is
// computed while hidden. GUI thread only.

#include "gpu_wall_data.h"
#include "views/latest_job.h"
#include "model/capture.h"

#include <QWidget>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

class QCPGraph;
class QLabel;

namespace spanscope::views {

class PlotFrame;

class GpuCallScatter : public QWidget
{
    Q_OBJECT

public:
    // Regions with more calls than this are collected on a worker thread.
    static constexpr uint64_t kDefaultAsyncThreshold = 200'000;

    explicit GpuCallScatter(QWidget* parent = nullptr);
    ~GpuCallScatter() override;

    // The capture whose regions will be shown; clears the plot. May be null.
    void setCapture(std::shared_ptr<const model::Capture> capture);
    // The calls of `region` over capture rows `rows` (`rank`: of a single row, else empty).
    void showRegion(uint32_t region, std::span<const uint32_t> rows, std::optional<int32_t> rank);
    void clearRegion();

    void setAsyncThreshold(uint64_t calls) { m_asyncThreshold = calls; }
    bool isComputing() const { return m_job.isRunning(); }

    // The call plotted nearest to `position` (pixels in the plot widget) within a few
    // pixels; marks it and emits callClicked. What a left click on the plot does. O(points).
    std::optional<uint32_t> pickCall(const QPointF& position);

    // The points plotted; null while none are.
    const GpuWallPoints* points() const { return m_points.get(); }
    PlotFrame* frame() const { return m_frame; }
    // event,rank,wall_ns,gpu_ns for every call of the region with a GPU value (unthinned).
    bool saveCsv(const QString& path, QString* error = nullptr) const;

signals:
    // The user picked the point of this call (index into Capture::events).
    void callClicked(quint32 event);
    // Points of the selected region were computed and plotted (for tests).
    void pointsShown();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void refresh();
    void apply(std::shared_ptr<const GpuWallPoints> points);
    void plot();
    void markSelected();
    // Where a duration is drawn: 0 ns cannot be on a log axis, so it sits on the edge.
    double plotted(int64_t ns) const;

    std::shared_ptr<const model::Capture> m_capture;
    std::optional<uint32_t> m_region;
    std::vector<uint32_t> m_rows;
    std::optional<int32_t> m_rank;
    std::shared_ptr<const GpuWallPoints> m_points;
    std::optional<uint32_t> m_selectedEvent;
    uint64_t m_asyncThreshold = kDefaultAsyncThreshold;
    // Each request bumps the generation; a worker's result is used only if it still
    // matches (latest wins). m_stale: a request arrived while hidden.
    LatestJob m_job;
    bool m_stale = false;

    QLabel* m_title = nullptr;
    PlotFrame* m_frame = nullptr;
    QCPGraph* m_calls = nullptr;
    QCPGraph* m_selection = nullptr;
};

} // namespace spanscope::views
