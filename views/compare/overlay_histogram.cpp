#include "overlay_histogram.h"

#include "model/stats/region_stats.h"
#include "run_colors.h"
#include "views/plots/duration_ticker.h"
#include "views/plots/plot_frame.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace spanscope::views {

namespace {

// Room left and right of the bins on the log axis, as a share of their log span.
constexpr double kRangeMargin = 0.04;
// Alpha of a run's fill under its outline: enough to see where runs overlap.
constexpr int kFillAlpha = 45;

struct Percentile
{
    const char* name;
    double OverlaySeries::*value;
    Qt::PenStyle style;
};
constexpr Percentile kPercentiles[] = {{"p50", &OverlaySeries::p50, Qt::SolidLine},
                                       {"p95", &OverlaySeries::p95, Qt::DashLine},
                                       {"p99", &OverlaySeries::p99, Qt::DotLine}};

// The capture rows of a region (by name) on one rank, or on all ranks for rank -1.
std::vector<uint32_t> rowsOf(const model::Capture& capture, const std::string& name, model::RegionKind kind,
                             int32_t rank)
{
    std::vector<uint32_t> rows;
    for (uint32_t r = 0; r < capture.rows.size(); ++r)
        if ((rank < 0 || capture.rows[r].rank == rank) && capture.regionKind(capture.rows[r].region) == kind
            && capture.regionName(capture.rows[r].region) == name)
            rows.push_back(r);
    return rows;
}

bool hasPerCallData(const model::Capture& capture)
{
    return capture.eventDataAvailable && capture.layout != model::StorageLayout::Aggregate;
}

} // namespace

OverlayHistogram::OverlayHistogram(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 0);
    m_title = new QLabel;
    m_title->setObjectName(QStringLiteral("overlayTitle"));
    m_title->setTextFormat(Qt::PlainText);
    m_title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_normalized = new QCheckBox(tr("Normalized"));
    m_normalized->setObjectName(QStringLiteral("normalizedToggle"));
    m_normalized->setToolTip(tr("Plot each run's share of its calls instead of call counts, so "
                                "runs with different numbers of calls compare"));
    m_frame = new PlotFrame;
    auto* exportButton = m_frame->createExportButton(tr("Save the plot as an image"));
    bar->addWidget(m_title, 1);
    bar->addWidget(m_normalized);
    bar->addWidget(exportButton);
    layout->addLayout(bar);
    layout->addWidget(m_frame, 1);

    QCustomPlot* p = m_frame->plot();
    p->setLocale(QLocale());
    p->xAxis->setScaleType(QCPAxis::stLogarithmic);
    p->xAxis->setTicker(QSharedPointer<DurationTicker>::create(true));
    p->xAxis->setLabel(tr("Call duration (log scale)"));
    p->axisRect()->setupFullAxesBox(false);
    p->xAxis2->setTicks(false);
    p->yAxis2->setTicks(false);
    // Beneath the plot: in the corner it covered the tallest bins of a narrow plot.
    m_frame->placeLegendBelow(3);

    connect(m_normalized, &QCheckBox::toggled, this, &OverlayHistogram::replot);
    connect(m_frame, &PlotFrame::paletteApplied, this, &OverlayHistogram::replot);
    clearRegion();
}

OverlayHistogram::~OverlayHistogram() = default;

QCustomPlot* OverlayHistogram::plot() const
{
    return m_frame->plot();
}

void OverlayHistogram::setRuns(std::vector<HistogramRun> runs)
{
    m_runs = std::move(runs);
    clearRegion();
}

void OverlayHistogram::setNormalized(bool normalized)
{
    m_normalized->setChecked(normalized);
}

bool OverlayHistogram::normalized() const
{
    return m_normalized->isChecked();
}

void OverlayHistogram::clearRegion()
{
    m_job.cancel();
    m_region.clear();
    m_bins.reset();
    m_title->clear();
    replot();
    m_frame->showMessage(tr("Select a region in the table to compare how long its calls take."));
}

void OverlayHistogram::showRegion(const std::string& name, model::RegionKind kind, int32_t rank)
{
    m_job.cancel();
    m_region = name;
    m_rank = rank;
    m_bins.reset();
    QString title = QString::fromStdString(name);
    if (kind != model::RegionKind::Cpu)
        title += QStringLiteral(" [") + QString::fromLatin1(model::regionKindName(kind)) + QLatin1Char(']');
    if (rank >= 0)
        title += tr("  \u00b7  rank %1").arg(rank);
    m_title->setText(title);
    m_title->setToolTip(title);

    // Rows are found here (cheap); durations are gathered where the binning runs.
    std::vector<std::pair<std::shared_ptr<const model::Capture>, std::vector<uint32_t>>> inputs;
    uint64_t calls = 0;
    for (const auto& run : m_runs) {
        auto rows = rowsOf(*run.capture, name, kind, rank);
        for (const uint32_t r : rows)
            calls += run.capture->rows[r].count;
        inputs.emplace_back(run.capture, std::move(rows));
    }
    auto compute = [inputs = std::move(inputs)] {
        std::vector<std::optional<std::vector<int64_t>>> durations;
        for (const auto& [capture, rows] : inputs) {
            if (hasPerCallData(*capture))
                durations.emplace_back(model::closedDurations(*capture, rows));
            else
                durations.emplace_back(std::nullopt);
        }
        return std::make_shared<const OverlayBins>(overlayBins(std::move(durations), kBinCount));
    };
    if (calls <= kAsyncThreshold) {
        apply(compute());
        return;
    }
    m_job.run(std::move(compute),
              [this](std::shared_ptr<const OverlayBins> bins) { apply(std::move(bins)); });
    replot();
    m_frame->showMessage(tr("Binning %1 calls\u2026").arg(QLocale().toString(qulonglong(calls))));
}

void OverlayHistogram::apply(std::shared_ptr<const OverlayBins> bins)
{
    if (!bins || bins->edges.empty()) {
        m_bins.reset();
        replot();
        const bool anyPerCall = bins && std::any_of(bins->runs.begin(), bins->runs.end(),
                                                    [](const auto& s) { return s.perCall; });
        m_frame->showMessage(
            anyPerCall
                ? tr("%1 has no closed calls in any run.").arg(QString::fromStdString(m_region))
                : tr("No run has per-call data for %1.").arg(QString::fromStdString(m_region)));
        return;
    }
    m_bins = std::move(bins);
    m_frame->setExportName(QStringLiteral("compare-histogram-") + QString::fromStdString(m_region));
    m_frame->showPlot();
    replot();
    emit binsShown();
}

void OverlayHistogram::replot()
{
    QCustomPlot* p = plot();
    p->clearGraphs();
    p->clearItems();
    if (!m_bins) {
        p->replot();
        return;
    }
    const bool dark = m_frame->darkPalette();
    const bool share = normalized();
    const QLocale locale;
    double highest = 0.0;
    for (size_t run = 0; run < m_bins->runs.size() && run < m_runs.size(); ++run) {
        const OverlaySeries& series = m_bins->runs[run];
        QCPGraph* graph = p->addGraph();
        const QColor color = runColor(run, dark);
        if (!series.perCall) {
            graph->setPen(Qt::NoPen);
            graph->setName(tr("%1: no per-call data").arg(m_runs[run].label));
            continue;
        }
        graph->setName(tr("%1 (%2)").arg(
            m_runs[run].label,
            series.calls == 1 ? tr("1 call")
                              : tr("%1 calls").arg(locale.toString(qulonglong(series.calls)))));
        graph->setLineStyle(QCPGraph::lsStepLeft);
        graph->setPen(QPen(color, 2.0));
        QColor fill = color;
        fill.setAlpha(kFillAlpha);
        graph->setBrush(fill);
        if (series.calls == 0)
            continue;
        // Steps from each edge to the next; the last value repeats to close the last bin.
        const double scale = share ? 1.0 / double(series.calls) : 1.0;
        QVector<double> keys(m_bins->edges.begin(), m_bins->edges.end());
        QVector<double> values;
        for (const uint64_t count : series.counts)
            values.append(double(count) * scale);
        values.append(values.back());
        highest = std::max(highest, *std::max_element(values.begin(), values.end()));
        graph->setData(keys, values, true);
    }
    // Legend keys for the marker styles, drawn in the text colour.
    const QColor text = palette().color(QPalette::Text);
    for (const Percentile& percentile : kPercentiles) {
        QCPGraph* key = p->addGraph();
        key->setPen(QPen(text, 1.2, percentile.style));
        key->setName(QString::fromLatin1(percentile.name));
    }
    addMarkers();

    const double lowest = m_bins->edges.front(), top = m_bins->edges.back();
    const double factor = std::exp(kRangeMargin * std::log(top / lowest));
    p->xAxis->setRange(lowest / factor, top * factor);
    p->yAxis->setLabel(share ? tr("Share of the run's calls") : tr("Calls"));
    if (share) {
        p->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    } else {
        auto whole = QSharedPointer<QCPAxisTickerFixed>::create();
        whole->setTickStep(1.0); // whole calls: never 2.5
        whole->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        p->yAxis->setTicker(whole);
    }
    p->yAxis->setNumberFormat(share ? QStringLiteral("g") : QStringLiteral("f"));
    p->yAxis->setNumberPrecision(share ? 2 : 0);
    p->yAxis->setRange(0.0, std::max(share ? 0.01 : 1.0, highest) * 1.08);
    p->replot();
}

void OverlayHistogram::addMarkers()
{
    QCustomPlot* p = plot();
    const bool dark = m_frame->darkPalette();
    for (size_t run = 0; run < m_bins->runs.size(); ++run) {
        const OverlaySeries& series = m_bins->runs[run];
        if (!series.perCall || series.calls == 0)
            continue;
        for (const Percentile& percentile : kPercentiles) {
            auto* line = new QCPItemStraightLine(p);
            const double x = std::max(series.*percentile.value, m_bins->edges.front());
            line->point1->setCoords(x, 0.0);
            line->point2->setCoords(x, 1.0);
            line->setPen(QPen(runColor(run, dark), 1.3, percentile.style));
        }
    }
}

} // namespace spanscope::views
