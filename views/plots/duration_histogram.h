#pragma once
// How long the calls of the selected region take: a histogram over log-spaced bins (or,
// switched, the cumulative distribution) on a log time axis, coloured like the region in
// the timeline, with markers at p50, p95, p99 and the mean. Large regions are binned on a
// worker thread; the newest request wins and older results are dropped. Nothing is
// computed while the widget is hidden: a request made then runs when it is first shown.
// GUI thread only.

#include "histogram_bins.h"
#include "views/latest_job.h"
#include "model/capture.h"

#include <QWidget>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

class QCheckBox;
class QCPGraph;
class QCPItemText;
class QCustomPlot;
class QLabel;

namespace spanscope::views {

class PlotFrame;

class DurationHistogram : public QWidget
{
    Q_OBJECT

public:
    // Regions with more calls than this are binned on a worker thread.
    static constexpr uint64_t kDefaultAsyncThreshold = 200'000;

    explicit DurationHistogram(QWidget* parent = nullptr);
    ~DurationHistogram() override;

    // The capture whose regions will be shown; clears the plot. May be null. With `update`
    // (a newer snapshot of a growing capture) the plot stays until the caller shows the
    // same region again and its new distribution is ready: no "Binning" flashes at 10 Hz.
    void setCapture(std::shared_ptr<const model::Capture> capture, bool update = false);
    // Plots the closed calls of `region` over capture rows `rows`; `rank` is the rank of a
    // single row, empty when the rows are pooled over ranks.
    void showRegion(uint32_t region, std::span<const uint32_t> rows, std::optional<int32_t> rank);
    // Back to the "select a region" sentence.
    void clearRegion();

    // Histogram (false) or cumulative distribution (true).
    void setCumulative(bool cumulative);
    bool cumulative() const;

    void setAsyncThreshold(uint64_t calls) { m_asyncThreshold = calls; }
    // A worker is binning the current selection.
    bool isComputing() const { return m_job.isRunning(); }

    // What is plotted; null while nothing is (no region, no calls, still computing).
    const DurationDistribution* distribution() const { return m_distribution.get(); }
    PlotFrame* frame() const { return m_frame; }
    QCustomPlot* plot() const;
    // The sentence shown instead of a plot, empty when a plot is shown.
    QString message() const;

    // Writes what is shown: the bins, or the CDF steps when cumulative.
    bool saveCsv(const QString& path, QString* error = nullptr) const;

signals:
    // A distribution was computed and plotted (for tests and screenshots).
    void distributionShown();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void refresh();
    void apply(std::shared_ptr<const DurationDistribution> distribution);
    void replot();
    void plotHistogram(const QColor& color);
    void plotCumulative(const QColor& color);
    void addMarkers();
    void placeMarkerLabels();
    QString scopeText() const;

    std::shared_ptr<const model::Capture> m_capture;
    std::optional<uint32_t> m_region;
    std::vector<uint32_t> m_rows;
    std::optional<int32_t> m_rank;
    uint64_t m_asyncThreshold = kDefaultAsyncThreshold;

    // Each request bumps the generation; a worker's result is used only if it still
    // matches (latest wins). m_stale: a request arrived while hidden.
    LatestJob m_job;
    bool m_stale = false;
    bool m_updating = false; // setCapture(update): the next showRegion may refresh in place
    bool m_inPlace = false;  // the refresh keeps the plot shown until the new one is ready
    std::shared_ptr<const DurationDistribution> m_distribution;

    QLabel* m_title = nullptr;
    QCheckBox* m_cumulative = nullptr;
    PlotFrame* m_frame = nullptr;
    QCPGraph* m_graph = nullptr;
    // Marker labels, ordered by x, each placed one text line below the previous.
    std::vector<QCPItemText*> m_markerLabels;
};

} // namespace spanscope::views
