#pragma once
// The launch latencies of one GPU device: how long after its launch call returned each
// launch's first work started, as a histogram on a log axis; latencies ≥ 0 in one colour and
// the negative ones (the GPU started before the call returned) by their magnitude in
// another, so both show. Its plot frame saves the image and the bins as CSV. GUI thread only.

#include "latency_bins.h"

#include <QWidget>
#include <memory>

class QCPBars;
class QLabel;

namespace spanscope::views {

class PlotFrame;

class LatencyHistogram : public QWidget
{
    Q_OBJECT

public:
    explicit LatencyHistogram(QWidget* parent = nullptr);

    // Bins the latencies (ns); empty: a sentence instead.
    void setLatencies(std::span<const int64_t> latencies);
    const LatencyBins& bins() const { return m_bins; }
    PlotFrame* frame() const { return m_frame; }
    bool saveCsv(const QString& path, QString* error) const;

private:
    void replot();

    LatencyBins m_bins;
    QLabel* m_title = nullptr;
    PlotFrame* m_frame = nullptr;
    QCPBars* m_positive = nullptr;
    QCPBars* m_negative = nullptr;
};

} // namespace spanscope::views
