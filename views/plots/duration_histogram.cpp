#include "duration_histogram.h"

#include "duration_ticker.h"
#include "model/report/duration_format.h"
#include "model/stats/region_stats.h"
#include "plot_csv.h"
#include "plot_frame.h"
#include "views/timeline/region_colors.h"

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
#include <utility>

namespace spanscope::views {

namespace {

// A vertical marker at a statistic of the distribution.
struct Marker
{
    const char* name;
    double ns;
    QColor color;
    Qt::PenStyle style;
};

// Room left and right of the bins on the log axis, as a share of their log span, so the
// first and last bins do not touch the frame.
constexpr double kRangeMargin = 0.04;
// Share of the axis height the count bars may use at most when marker labels need room.
constexpr double kMinBarShare = 0.45;

QString durationLabel(double ns)
{
    return QString::fromStdString(model::report::formatDuration(ns));
}

// The x range for bins spanning [lowest, highest] ns, with a margin on either side.
QCPRange durationRange(double lowest, double highest)
{
    const double factor = std::exp(kRangeMargin * std::log(highest / lowest));
    return QCPRange(lowest / factor, highest * factor);
}

} // namespace

DurationHistogram::DurationHistogram(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 0);
    m_title = createPlotTitle();
    m_title->setObjectName(QStringLiteral("histogramTitle"));
    m_title->setContentsMargins(0, 0, 0, 0); // the bar has the margins
    m_cumulative = new QCheckBox(tr("Cumulative"));
    m_cumulative->setObjectName(QStringLiteral("cumulativeToggle"));
    m_cumulative->setToolTip(tr("Show the fraction of calls that took at most each duration "
                                "(cumulative distribution) instead of the call counts"));
    m_frame = new PlotFrame;
    auto* exportButton =
        m_frame->createExportButton(tr("Save the plot as an image or its data as CSV"));
    bar->addWidget(m_title, 1);
    bar->addWidget(m_cumulative);
    bar->addWidget(exportButton);
    layout->addLayout(bar);
    layout->addWidget(m_frame, 1);

    QCustomPlot* p = m_frame->plot();
    p->setLocale(QLocale()); // counts with the user's digit grouping
    m_graph = p->addGraph();
    m_graph->setLineStyle(QCPGraph::lsStepLeft);
    p->xAxis->setScaleType(QCPAxis::stLogarithmic);
    p->xAxis->setTicker(QSharedPointer<DurationTicker>::create(true));
    p->xAxis->setLabel(tr("Call duration (log scale)"));
    // Marker labels on their own layer, above every marker line and the bars.
    p->addLayer(QStringLiteral("markerLabels"), p->layer(QStringLiteral("main")),
                QCustomPlot::limAbove);
    p->axisRect()->setupFullAxesBox(false);
    p->xAxis2->setTicks(false);
    p->yAxis2->setTicks(false);
    m_frame->setCsvWriter(
        [this](const QString& path, QString* error) { return saveCsv(path, error); });

    connect(m_cumulative, &QCheckBox::toggled, this, &DurationHistogram::replot);
    connect(m_frame, &PlotFrame::paletteApplied, this, &DurationHistogram::replot);
    // Label rows depend on pixel widths, known once the plot is laid out.
    connect(p, &QCustomPlot::afterLayout, this, &DurationHistogram::placeMarkerLabels);
    clearRegion();
}

DurationHistogram::~DurationHistogram() = default;

QCustomPlot* DurationHistogram::plot() const
{
    return m_frame->plot();
}

QString DurationHistogram::message() const
{
    return m_frame->message();
}

void DurationHistogram::setCapture(std::shared_ptr<const model::Capture> capture, bool update)
{
    m_capture = std::move(capture);
    if (update && m_region && m_distribution) {
        m_updating = true; // the caller shows the selected region again
        return;
    }
    clearRegion();
}

void DurationHistogram::showRegion(uint32_t region, std::span<const uint32_t> rows,
                                   std::optional<int32_t> rank)
{
    m_inPlace = std::exchange(m_updating, false) && m_region == region && m_rank == rank;
    m_region = region;
    m_rows.assign(rows.begin(), rows.end());
    m_rank = rank;
    refresh();
}

void DurationHistogram::clearRegion()
{
    m_updating = m_inPlace = false;
    m_region.reset();
    m_rows.clear();
    m_rank.reset();
    refresh();
}

void DurationHistogram::setCumulative(bool cumulative)
{
    m_cumulative->setChecked(cumulative);
}

bool DurationHistogram::cumulative() const
{
    return m_cumulative->isChecked();
}

void DurationHistogram::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_stale)
        refresh();
}

void DurationHistogram::refresh()
{
    m_job.cancel(); // whatever a worker is still computing is now outdated
    m_stale = false;
    const bool inPlace = std::exchange(m_inPlace, false) && m_distribution;
    if (!inPlace) {
        m_distribution.reset();
        replot();
        m_title->setText(scopeText());
        m_title->setToolTip(m_title->text());
    }
    if (!m_capture || !m_region) {
        m_frame->showMessage(tr("Select a region in the table to see how long its calls take."));
        return;
    }
    if (m_capture->layout == model::StorageLayout::Aggregate || !m_capture->eventDataAvailable) {
        m_frame->showMessage(tr("No per-call data in this file (aggregate layout)"));
        return;
    }
    if (!isVisible()) {
        m_stale = true; // computed when shown: nobody looks at a hidden tab
        return;
    }
    uint64_t calls = 0;
    for (const uint32_t r : m_rows)
        calls += m_capture->rows[r].count;
    auto compute = [capture = m_capture, rows = m_rows] {
        return std::make_shared<const DurationDistribution>(
            describeDurations(model::closedDurations(*capture, rows)));
    };
    if (calls <= m_asyncThreshold) {
        apply(compute());
        return;
    }
    if (!inPlace)
        m_frame->showMessage(tr("Binning %1 calls…").arg(QLocale().toString(qulonglong(calls))));
    m_job.run(std::move(compute), [this](std::shared_ptr<const DurationDistribution> result) {
        apply(std::move(result));
    });
}

void DurationHistogram::apply(std::shared_ptr<const DurationDistribution> distribution)
{
    if (!distribution || distribution->calls == 0) {
        m_frame->showMessage(tr("%1 has no closed calls to plot.")
                                 .arg(QString::fromStdString(m_capture->regionName(*m_region))));
        return;
    }
    m_distribution = std::move(distribution);
    m_title->setText(scopeText());
    m_title->setToolTip(m_title->text());
    m_frame->setExportName(QStringLiteral("histogram-") +
                           QString::fromStdString(m_capture->regionName(*m_region)));
    m_frame->showPlot();
    replot();
    emit distributionShown();
}

QString DurationHistogram::scopeText() const
{
    if (!m_capture || !m_region)
        return {};
    QStringList parts{QString::fromStdString(m_capture->regionName(*m_region))};
    if (m_rank)
        parts << tr("rank %1").arg(*m_rank);
    else if (m_capture->ranks.size() > 1)
        parts << tr("pooled over %1 ranks").arg(m_capture->ranks.size());
    if (m_distribution) {
        const QLocale locale;
        parts << (m_distribution->calls == 1
                      ? tr("1 closed call")
                      : tr("%1 closed calls")
                            .arg(locale.toString(qulonglong(m_distribution->calls))));
        if (const uint64_t zeros = m_distribution->bins.belowLowest)
            parts << tr("%1 of 0 ns counted in the first bin")
                         .arg(locale.toString(qulonglong(zeros)));
    }
    return parts.join(QStringLiteral("  \u00b7  "));
}

void DurationHistogram::replot()
{
    QCustomPlot* p = plot();
    p->clearItems();
    m_markerLabels.clear();
    m_graph->data()->clear();
    if (!m_distribution) {
        p->replot();
        return;
    }
    const QColor color = m_frame->regionColor(m_capture->regionName(*m_region));
    if (cumulative())
        plotCumulative(color);
    else
        plotHistogram(color);
    addMarkers();
    p->replot();
}

void DurationHistogram::plotHistogram(const QColor& color)
{
    const HistogramBins& bins = m_distribution->bins;
    // Steps from each edge to the next at the bin's count; the last count repeats so the
    // last bin closes at the largest edge.
    QVector<double> keys(bins.edges.begin(), bins.edges.end());
    QVector<double> values;
    values.reserve(keys.size());
    for (const uint64_t count : bins.counts)
        values.append(double(count));
    values.append(values.isEmpty() ? 0.0 : values.back());
    m_graph->setData(keys, values, true);
    m_graph->setPen(QPen(color.darker(150), 1.2));
    QColor fill = color;
    fill.setAlpha(200);
    m_graph->setBrush(fill);

    QCustomPlot* p = plot();
    p->xAxis->setRange(durationRange(bins.edges.front(), bins.edges.back()));
    p->yAxis->setLabel(tr("Calls"));
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1.0); // whole calls: never 0.5
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    p->yAxis->setTicker(ticker);
    p->yAxis->setNumberFormat(QStringLiteral("f"));
    p->yAxis->setNumberPrecision(0);
    const uint64_t highest = *std::max_element(bins.counts.begin(), bins.counts.end());
    p->yAxis->setRange(0.0, std::max(1.0, double(highest)) * 1.08);
}

void DurationHistogram::plotCumulative(const QColor& color)
{
    const HistogramBins& bins = m_distribution->bins;
    const QCPRange range = durationRange(bins.edges.front(), bins.edges.back());
    const double lower = range.lower, upper = range.upper;
    // 0 before the shortest call, 1 after the longest: the steps span the whole axis.
    QVector<double> keys{lower}, values{0.0};
    for (const CdfPoint& point : m_distribution->cdf) {
        keys.append(std::max(point.ns, lower));
        values.append(point.fraction);
    }
    keys.append(upper);
    values.append(1.0);
    m_graph->setData(keys, values, true);
    m_graph->setPen(QPen(color.darker(150), 2.0));
    QColor fill = color;
    fill.setAlpha(70);
    m_graph->setBrush(fill);

    QCustomPlot* p = plot();
    p->xAxis->setRange(lower, upper);
    p->yAxis->setLabel(tr("Fraction of calls \u2264 duration"));
    p->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    p->yAxis->setNumberFormat(QStringLiteral("g"));
    p->yAxis->setNumberPrecision(2);
    p->yAxis->setRange(0.0, 1.04);
}

void DurationHistogram::addMarkers()
{
    QCustomPlot* p = plot();
    const bool dark = m_frame->darkPalette();
    const QColor text = palette().color(QPalette::Text);
    std::vector<Marker> markers{
        {"p50", m_distribution->p50, text, Qt::DashLine},
        {"mean", m_distribution->mean, dark ? QColor(120, 170, 255) : QColor(30, 90, 200),
         Qt::DotLine},
        {"p95", m_distribution->p95, dark ? QColor(255, 170, 60) : QColor(200, 110, 0),
         Qt::DashLine},
        {"p99", m_distribution->p99, dark ? QColor(255, 110, 110) : QColor(190, 30, 30),
         Qt::DashLine},
    };
    std::stable_sort(markers.begin(), markers.end(),
                     [](const Marker& a, const Marker& b) { return a.ns < b.ns; });
    QColor labelBackground = palette().color(QPalette::Base);
    labelBackground.setAlpha(215);
    QFont font = p->font();
    font.setPointSizeF(font.pointSizeF() * 0.9);
    for (const Marker& marker : markers) {
        const double x = std::max(marker.ns, p->xAxis->range().lower);
        auto* line = new QCPItemStraightLine(p);
        line->point1->setCoords(x, 0.0);
        line->point2->setCoords(x, 1.0);
        line->setPen(QPen(marker.color, 1.5, marker.style));
        auto* label = new QCPItemText(p);
        label->setLayer(QStringLiteral("markerLabels"));
        label->setText(
            QStringLiteral("%1 %2").arg(QLatin1String(marker.name), durationLabel(marker.ns)));
        label->setFont(font);
        label->setColor(marker.color);
        label->setBrush(labelBackground);
        label->setPadding(QMargins(4, 1, 4, 1));
        label->position->setAxisRect(p->axisRect());
        label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(x, 0.0);
        m_markerLabels.push_back(label);
    }
}

void DurationHistogram::placeMarkerLabels()
{
    QCustomPlot* p = plot();
    const QRect area = p->axisRect()->rect();
    if (m_markerLabels.empty() || area.height() <= 0)
        return;
    // Greedy rows: each label (in x order) takes the first row where it clears the one
    // before it, beside its line, on the side with room.
    std::vector<int> rowEnds;
    std::vector<int> rows;
    const int lineHeight = QFontMetrics(m_markerLabels.front()->font()).height() + 4;
    for (QCPItemText* label : m_markerLabels) {
        const double x = p->xAxis->coordToPixel(label->position->key());
        const int width = QFontMetrics(label->font()).horizontalAdvance(label->text()) + 10;
        const bool leftOfLine = x + width > area.right();
        const int begin = int(leftOfLine ? x - width : x);
        size_t row = 0;
        while (row < rowEnds.size() && rowEnds[row] > begin)
            ++row;
        if (row == rowEnds.size())
            rowEnds.push_back(0);
        rowEnds[row] = begin + width + 2;
        rows.push_back(int(row));
        label->setPositionAlignment((leftOfLine ? Qt::AlignRight : Qt::AlignLeft) |
                                    (cumulative() ? Qt::AlignBottom : Qt::AlignTop));
    }
    // Histogram: labels along the top, bars kept below them. Cumulative: labels along the
    // bottom, where the curve (right of its median) is high.
    const double gap = 3.0 / area.height();
    const double rowShare = double(lineHeight) / area.height();
    for (size_t i = 0; i < m_markerLabels.size(); ++i) {
        const double offset = gap + rows[i] * rowShare;
        m_markerLabels[i]->position->setCoords(m_markerLabels[i]->position->key(),
                                               cumulative() ? 1.0 - offset : offset);
    }
    if (!cumulative() && m_distribution) {
        const double labelShare = gap * 2 + double(rowEnds.size()) * rowShare;
        const uint64_t highest = *std::max_element(m_distribution->bins.counts.begin(),
                                                   m_distribution->bins.counts.end());
        const double barShare = std::max(kMinBarShare, 1.0 - labelShare);
        const double upper = std::max(1.0, double(highest)) * 1.02 / barShare;
        // The ticks of this frame were made for the old range: draw once more with new ones.
        if (std::abs(upper - p->yAxis->range().upper) > 1e-9 * upper) {
            p->yAxis->setRange(0.0, upper);
            p->replot(QCustomPlot::rpQueuedReplot);
        }
    }
}

bool DurationHistogram::saveCsv(const QString& path, QString* error) const
{
    if (!m_distribution) {
        if (error)
            *error = tr("There is no plotted data to save.");
        return false;
    }
    return cumulative() ? writeCdfCsv(path, m_distribution->cdf, error)
                        : writeHistogramCsv(path, m_distribution->bins, error);
}

} // namespace spanscope::views
