#include "latency_histogram.h"

#include "views/plots/duration_ticker.h"
#include "views/plots/plot_csv.h"
#include "views/plots/plot_frame.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace spanscope::views {

namespace {

const QColor kPositive(63, 127, 209);
const QColor kNegative(217, 120, 30);

} // namespace

LatencyHistogram::LatencyHistogram(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 0);
    m_title = createPlotTitle();
    m_title->setText(tr("Launch latency (first work's start − launch call's end)"));
    m_frame = new PlotFrame;
    m_frame->setObjectName(QStringLiteral("latencyHistogram"));
    m_frame->setExportName(QStringLiteral("launch-latency"));
    bar->addWidget(m_title, 1);
    bar->addWidget(m_frame->createExportButton(tr("Save the plot as an image or its bins as CSV")));
    layout->addLayout(bar);
    layout->addWidget(m_frame, 1);

    QCustomPlot* p = m_frame->plot();
    p->setLocale(QLocale());
    m_positive = new QCPBars(p->xAxis, p->yAxis);
    m_positive->setName(tr("after the call returned"));
    m_negative = new QCPBars(p->xAxis, p->yAxis);
    m_negative->setName(tr("before it returned (|latency|)"));
    p->xAxis->setScaleType(QCPAxis::stLogarithmic);
    p->xAxis->setTicker(QSharedPointer<DurationTicker>::create(true));
    p->xAxis->setLabel(tr("Latency (log scale)"));
    p->yAxis->setLabel(tr("Launches"));
    p->legend->setVisible(true);
    m_frame->placeLegendBelow(2);
    m_frame->setCsvWriter([this](const QString& path, QString* error) { return saveCsv(path, error); });
    connect(m_frame, &PlotFrame::paletteApplied, this, &LatencyHistogram::replot);
    setLatencies({});
}

void LatencyHistogram::setLatencies(std::span<const int64_t> latencies)
{
    m_bins = binLatencies(latencies);
    replot();
}

void LatencyHistogram::replot()
{
    if (m_bins.edges.size() < 2) {
        m_frame->showMessage(tr("No launch linked to GPU work on this device."));
        return;
    }
    QVector<double> keys, positive, negative;
    for (size_t i = 0; i + 1 < m_bins.edges.size(); ++i) {
        keys.append(std::sqrt(m_bins.edges[i] * m_bins.edges[i + 1])); // the bin's middle on a log axis
        positive.append(double(m_bins.positive[i]));
        negative.append(double(m_bins.negative[i]));
    }
    m_positive->setData(keys, positive, true);
    m_negative->setData(keys, negative, true);
    // On a log axis every bin is equally wide: a share of the axis rect each, with a margin
    // of half a bin (the ratio of neighbouring edges) either side.
    const double ratio = m_bins.edges.size() > 2 ? m_bins.edges[1] / m_bins.edges[0] : 1.5;
    const double bins = double(keys.size());
    for (QCPBars* bars : {m_positive, m_negative}) {
        bars->setWidthType(QCPBars::wtAxisRectRatio);
        bars->setWidth(0.9 / std::max(1.0, bins + 2));
    }
    m_negative->moveAbove(m_positive); // stacked: both counts in one bar per bin
    QColor fill = kPositive;
    fill.setAlpha(210);
    m_positive->setBrush(fill);
    m_positive->setPen(QPen(kPositive.darker(140)));
    fill = kNegative;
    fill.setAlpha(210);
    m_negative->setBrush(fill);
    m_negative->setPen(QPen(kNegative.darker(140)));
    QCustomPlot* p = m_frame->plot();
    const double margin = std::sqrt(ratio);
    p->xAxis->setRange(m_bins.edges.front() / margin, m_bins.edges.back() * margin);
    uint64_t highest = 1;
    for (size_t i = 0; i < m_bins.positive.size(); ++i)
        highest = std::max(highest, m_bins.positive[i] + m_bins.negative[i]);
    p->yAxis->setRange(0.0, double(highest) * 1.08);
    m_frame->showPlot();
    p->replot();
}

bool LatencyHistogram::saveCsv(const QString& path, QString* error) const
{
    return writeCsvFile(
        path,
        [this](QTextStream& out) {
            out << "bin_low_ns,bin_high_ns,launches_after_return,launches_before_return\n";
            for (size_t i = 0; i + 1 < m_bins.edges.size(); ++i)
                out << m_bins.edges[i] << ',' << m_bins.edges[i + 1] << ',' << m_bins.positive[i] << ','
                    << m_bins.negative[i] << '\n';
        },
        error);
}

} // namespace spanscope::views
