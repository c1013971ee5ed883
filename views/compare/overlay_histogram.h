#pragma once
// How long the calls of one region take in each run of a comparison, overlaid: shared
// log-spaced bins over every run's closed calls, one translucent step outline per run in
// the run's colour, a legend of file names, and markers at each run's p50 (solid), p95
// (dashed) and p99 (dotted). "Normalized" plots the fraction of each run's calls instead
// of counts, so runs of different lengths compare. Runs without per-call data get a note
// in the legend. Regions with many calls are binned on a worker (latest wins). GUI thread
// only.

#include "model/capture.h"
#include "overlay_bins.h"
#include "views/latest_job.h"

#include <QWidget>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

class QCheckBox;
class QCustomPlot;
class QLabel;

namespace spanscope::views {

class PlotFrame;

struct HistogramRun
{
    QString label; // file name, shown in the legend
    std::shared_ptr<const model::Capture> capture;
};

class OverlayHistogram : public QWidget
{
    Q_OBJECT

public:
    // Regions with more calls than this (all runs together) are binned on a worker.
    static constexpr uint64_t kAsyncThreshold = 200'000;
    static constexpr int kBinCount = 60;

    explicit OverlayHistogram(QWidget* parent = nullptr);
    ~OverlayHistogram() override;

    void setRuns(std::vector<HistogramRun> runs);
    // Plots the region's calls in every run: pooled over ranks (rank -1) or one rank's.
    void showRegion(const std::string& name, model::RegionKind kind, int32_t rank);
    void clearRegion();

    void setNormalized(bool normalized);
    bool normalized() const;

    // What is plotted; null while nothing is (no region, no calls, still binning).
    const OverlayBins* bins() const { return m_bins.get(); }
    bool isComputing() const { return m_job.isRunning(); }
    PlotFrame* frame() const { return m_frame; }
    QCustomPlot* plot() const;

signals:
    void binsShown(); // new bins were plotted (for tests and screenshots)

private:
    void apply(std::shared_ptr<const OverlayBins> bins);
    void replot();
    void addMarkers();

    std::vector<HistogramRun> m_runs;
    std::string m_region;
    int32_t m_rank = -1;
    LatestJob m_job; // latest request wins; older workers' results are dropped
    std::shared_ptr<const OverlayBins> m_bins;

    QLabel* m_title = nullptr;
    QCheckBox* m_normalized = nullptr;
    PlotFrame* m_frame = nullptr;
};

} // namespace spanscope::views
