#include "gpu_call_scatter.h"

#include "duration_ticker.h"
#include "model/report/duration_format.h"
#include "plot_csv.h"
#include "plot_frame.h"
#include "views/timeline/region_colors.h"

#include <QLabel>
#include <QLocale>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace spanscope::views {

namespace {

// The axes extend this factor beyond the data on both ends (log axes).
constexpr double kMargin = 1.6;
// 0 ns values are drawn this factor above the axes' lower end, just inside the frame.
constexpr double kEdgeInset = 1.15;
// How close (pixels) a click must come to a point to pick it.
constexpr double kPickRadius = 8.0;

QString duration(double ns)
{
    return QString::fromStdString(model::report::formatDuration(ns));
}

} // namespace

GpuCallScatter::GpuCallScatter(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_title = createPlotTitle();
    m_frame = new PlotFrame;
    layout->addWidget(m_title);
    layout->addWidget(m_frame, 1);

    QCustomPlot* p = m_frame->plot();
    for (QCPAxis* axis : {p->xAxis, p->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(QSharedPointer<DurationTicker>::create(true));
    }
    p->xAxis->setLabel(tr("Wall duration"));
    p->yAxis->setLabel(tr("GPU duration"));
    m_calls = p->addGraph();
    m_calls->setLineStyle(QCPGraph::lsNone);
    m_selection = p->addGraph();
    m_selection->setLineStyle(QCPGraph::lsNone);
    p->setToolTip(tr("Click a call to show it in the timeline"));
    m_frame->setCsvWriter(
        [this](const QString& path, QString* error) { return saveCsv(path, error); });
    connect(p, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        if (event->button() == Qt::LeftButton)
            pickCall(event->position());
    });
    connect(m_frame, &PlotFrame::paletteApplied, this, &GpuCallScatter::plot);
    clearRegion();
}

GpuCallScatter::~GpuCallScatter() = default;

void GpuCallScatter::setCapture(std::shared_ptr<const model::Capture> capture)
{
    m_capture = std::move(capture);
    clearRegion();
}

void GpuCallScatter::showRegion(uint32_t region, std::span<const uint32_t> rows,
                                std::optional<int32_t> rank)
{
    m_region = region;
    m_rows.assign(rows.begin(), rows.end());
    m_rank = rank;
    refresh();
}

void GpuCallScatter::clearRegion()
{
    m_region.reset();
    m_rows.clear();
    m_rank.reset();
    refresh();
}

void GpuCallScatter::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_stale)
        refresh();
}

void GpuCallScatter::refresh()
{
    m_job.cancel(); // whatever a worker is still collecting is now outdated
    m_stale = false;
    m_points.reset();
    m_selectedEvent.reset();
    plot();
    if (!m_capture || !m_region) {
        m_title->setText(tr("Calls of the selected region"));
        m_title->setToolTip(QString());
        m_frame->showMessage(
            tr("Select a region in the table to compare its calls' wall and GPU durations."));
        return;
    }
    const QString name = QString::fromStdString(m_capture->regionName(*m_region));
    m_title->setText(m_rank ? tr("Calls of %1, rank %2").arg(name).arg(*m_rank)
                            : tr("Calls of %1").arg(name));
    m_title->setToolTip(m_title->text());
    m_frame->setExportName(QStringLiteral("gpu-wall-calls-") + name);
    if (!isVisible()) {
        m_stale = true; // collected when shown: nobody looks at a hidden tab
        return;
    }
    uint64_t calls = 0;
    for (const uint32_t r : m_rows)
        calls += m_capture->rows[r].count;
    auto collect = [capture = m_capture, rows = m_rows] {
        return std::make_shared<const GpuWallPoints>(gpuWallPoints(*capture, rows));
    };
    if (calls <= m_asyncThreshold) {
        apply(collect());
        return;
    }
    m_frame->showMessage(tr("Collecting %1 calls…").arg(QLocale().toString(qulonglong(calls))));
    m_job.run(std::move(collect),
              [this](std::shared_ptr<const GpuWallPoints> points) { apply(std::move(points)); });
}

void GpuCallScatter::apply(std::shared_ptr<const GpuWallPoints> points)
{
    if (!points || points->points.empty()) {
        m_frame->showMessage(tr("%1 has no closed calls with a GPU duration.")
                                 .arg(QString::fromStdString(m_capture->regionName(*m_region))));
        return;
    }
    m_points = std::move(points);
    const QLocale locale;
    QString title = m_title->text() + QStringLiteral("  \u00b7  ") +
                    tr("%1 with GPU time").arg(locale.toString(qulonglong(m_points->calls)));
    if (m_points->points.size() < m_points->calls)
        title += tr(", %1 distinct points shown")
                     .arg(locale.toString(qulonglong(m_points->points.size())));
    m_title->setText(title);
    m_title->setToolTip(title);
    m_frame->showPlot();
    plot();
    emit pointsShown();
}

double GpuCallScatter::plotted(int64_t ns) const
{
    return std::max(double(ns), m_frame->plot()->xAxis->range().lower * kEdgeInset);
}

void GpuCallScatter::plot()
{
    QCustomPlot* p = m_frame->plot();
    p->clearItems();
    m_calls->data()->clear();
    m_selection->data()->clear();
    if (!m_points) {
        p->replot();
        return;
    }
    const double lower = double(m_points->lowest) / kMargin;
    const double upper = double(m_points->highest) * kMargin;
    for (QCPAxis* axis : {p->xAxis, p->yAxis})
        axis->setRange(lower, upper); // equal ranges: the diagonal is y = x
    QVector<double> wall, gpu;
    wall.reserve(qsizetype(m_points->points.size()));
    gpu.reserve(qsizetype(m_points->points.size()));
    for (const GpuWallPoint& point : m_points->points) {
        wall.append(plotted(point.wallNs));
        gpu.append(plotted(point.gpuNs));
    }
    const QColor color = m_frame->regionColor(m_capture->regionName(*m_region));
    QColor fill = color;
    fill.setAlpha(150);
    m_calls->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, QPen(color.darker(160), 0.8), fill, 6));
    m_calls->setData(wall, gpu);

    const QColor text = palette().color(QPalette::Text);
    auto* diagonal = new QCPItemStraightLine(p);
    diagonal->point1->setCoords(lower, lower);
    diagonal->point2->setCoords(upper, upper);
    diagonal->setPen(QPen(text, 1, Qt::DashLine));
    auto* label = new QCPItemText(p);
    const double at = std::pow(10.0, std::log10(lower) + 0.8 * std::log10(upper / lower));
    label->position->setCoords(at, at);
    label->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
    label->setPadding(QMargins(0, 0, 6, 2));
    label->setColor(text);
    label->setText(tr("GPU = wall"));
    markSelected();
    p->replot();
}

void GpuCallScatter::markSelected()
{
    m_selection->data()->clear();
    if (!m_points || !m_selectedEvent)
        return;
    for (const GpuWallPoint& point : m_points->points)
        if (point.event == *m_selectedEvent) {
            m_selection->addData(plotted(point.wallNs), plotted(point.gpuNs));
            break;
        }
    m_selection->setScatterStyle(QCPScatterStyle(
        QCPScatterStyle::ssCircle, QPen(palette().color(QPalette::Text), 2.0), Qt::NoBrush, 14));
}

std::optional<uint32_t> GpuCallScatter::pickCall(const QPointF& position)
{
    if (!m_points || !m_frame->plotShown())
        return std::nullopt;
    QCustomPlot* p = m_frame->plot();
    double best = kPickRadius * kPickRadius;
    const GpuWallPoint* found = nullptr;
    for (const GpuWallPoint& point : m_points->points) {
        const double dx = p->xAxis->coordToPixel(plotted(point.wallNs)) - position.x();
        const double dy = p->yAxis->coordToPixel(plotted(point.gpuNs)) - position.y();
        if (dx * dx + dy * dy <= best) {
            best = dx * dx + dy * dy;
            found = &point;
        }
    }
    if (!found)
        return std::nullopt;
    m_selectedEvent = found->event;
    markSelected();
    p->replot();
    QToolTip::showText(
        p->mapToGlobal(position.toPoint()),
        tr("Wall %1, GPU %2").arg(duration(double(found->wallNs)), duration(double(found->gpuNs))),
        p);
    emit callClicked(found->event);
    return found->event;
}

bool GpuCallScatter::saveCsv(const QString& path, QString* error) const
{
    if (!m_capture || !m_region) {
        if (error)
            *error = tr("There is no plotted data to save.");
        return false;
    }
    return writeGpuCallsCsv(path, *m_capture, m_rows, error);
}

} // namespace spanscope::views
