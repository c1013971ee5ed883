#include "gpu_totals_chart.h"

#include "duration_ticker.h"
#include "plot_csv.h"
#include "plot_frame.h"
#include "views/timeline/region_colors.h"

#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace spanscope::views {

namespace {

// Bars of one region sit this far (in rows) above and below its row, this thick.
constexpr double kBarOffset = 0.2;
constexpr double kBarWidth = 0.38;
// Region names on the axis are cut (in the middle: names differ at both ends) to this.
constexpr int kNameWidth = 180;
// A ratio from which the region counts as device-bound and its ratio is bold.
constexpr double kDeviceBound = 0.8;

} // namespace

GpuTotalsChart::GpuTotalsChart(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_title = createPlotTitle();
    m_title->setToolTip(tr("Light bar: wall time of the calls; solid bar: their GPU time. The "
                           "number is GPU / wall: near 1 the region waits on the device, near "
                           "0 on the host."));
    m_frame = new PlotFrame;
    m_frame->setExportName(QStringLiteral("gpu-wall-totals"));
    layout->addWidget(m_title);
    layout->addWidget(m_frame, 1);

    QCustomPlot* p = m_frame->plot();
    p->yAxis->setRangeReversed(true); // largest region on top
    p->yAxis->setSubTicks(false);
    p->yAxis->grid()->setVisible(false);
    p->yAxis->setTickLength(0, 0);
    p->xAxis->setTicker(QSharedPointer<DurationTicker>::create(false));
    p->xAxis->setLabel(tr("Total time"));
    p->setInteractions(QCP::iRangeDrag);
    p->axisRect()->setRangeDrag(Qt::Vertical);
    // Under the bars, always: which bar is wall and which is GPU must never be a guess.
    m_frame->placeLegendBelow(2);
    m_frame->setCsvWriter(
        [this](const QString& path, QString* error) { return saveCsv(path, error); });
    connect(p, &QCustomPlot::afterLayout, this, &GpuTotalsChart::fitLayout);
    connect(p->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            &GpuTotalsChart::clampRows);
    connect(p, &QCustomPlot::mouseWheel, this, [p](QWheelEvent* event) {
        p->yAxis->moveRange(event->angleDelta().y() / -120.0); // a region per notch
        p->replot(QCustomPlot::rpQueuedReplot);
    });
    connect(m_frame, &PlotFrame::paletteApplied, this, &GpuTotalsChart::plot);
    setData(nullptr, nullptr, std::nullopt);
}

GpuTotalsChart::~GpuTotalsChart() = default;

void GpuTotalsChart::setData(std::shared_ptr<const model::Capture> capture,
                             std::shared_ptr<const model::CaptureSummary> summary,
                             std::optional<int32_t> rank)
{
    m_capture = std::move(capture);
    m_rank = rank;
    m_totals = m_capture && summary && m_capture->events.hasGpu()
                   ? regionGpuTotals(*m_capture, *summary, rank)
                   : std::vector<RegionGpuTotals>{};
    QString title = rank ? tr("Wall and GPU time per region, rank %1").arg(*rank)
                         : tr("Wall and GPU time per region");
    if (m_totals.size() > kMaxRegions)
        title += tr(" (largest %1 of %2)").arg(kMaxRegions).arg(m_totals.size());
    m_title->setText(title);
    m_visibleRows = 0; // fit the rows again
    plot();
}

size_t GpuTotalsChart::shownRegions() const
{
    return std::min(m_totals.size(), kMaxRegions);
}

void GpuTotalsChart::plot()
{
    QCustomPlot* p = m_frame->plot();
    p->clearPlottables();
    p->clearItems();
    if (m_totals.empty()) {
        m_frame->showMessage(m_capture && m_capture->events.hasGpu()
                                 ? tr("No region has GPU durations on this rank.")
                                 : QString());
        return;
    }
    const bool dark = m_frame->darkPalette();
    const QColor text = palette().color(QPalette::Text);
    const QFontMetrics metrics(p->yAxis->tickLabelFont());
    auto names = QSharedPointer<QCPAxisTickerText>::create();
    auto addBar = [p](double key, double value, const QBrush& brush, const QPen& pen) {
        auto* bars = new QCPBars(p->yAxis, p->xAxis);
        bars->setWidth(kBarWidth);
        bars->setBrush(brush);
        bars->setPen(pen);
        bars->addData(key, value);
        bars->removeFromLegend();
    };
    double longest = 1.0;
    for (size_t i = 0; i < shownRegions(); ++i) {
        const RegionGpuTotals& entry = m_totals[i];
        const std::string& name = m_capture->regionName(entry.region);
        const QColor color = m_frame->regionColor(name);
        QColor light = color;
        light.setAlpha(90);
        addBar(double(i) - kBarOffset, double(entry.wallNs), light, QPen(color.darker(130), 1));
        addBar(double(i) + kBarOffset, double(entry.gpuNs), color, QPen(color.darker(150), 1));
        names->addTick(double(i), metrics.elidedText(QString::fromStdString(name), Qt::ElideMiddle,
                                                     kNameWidth));
        const double end = double(std::max(entry.wallNs, entry.gpuNs));
        longest = std::max(longest, end);
        auto* ratio = new QCPItemText(p);
        ratio->position->setCoords(end, double(i));
        ratio->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        ratio->setPadding(QMargins(5, 0, 0, 0));
        ratio->setColor(text);
        QFont font = p->font();
        font.setBold(entry.ratio() >= kDeviceBound);
        ratio->setFont(font);
        ratio->setText(tr("%1 GPU/wall").arg(entry.ratio(), 0, 'f', 2));
    }
    // Legend samples in neutral grey: the bars themselves carry each region's colour.
    const QColor grey = dark ? QColor(170, 170, 170) : QColor(110, 110, 110);
    QColor lightGrey = grey;
    lightGrey.setAlpha(90);
    auto* wallSample = new QCPBars(p->yAxis, p->xAxis);
    wallSample->setName(tr("Wall total"));
    wallSample->setBrush(lightGrey);
    wallSample->setPen(QPen(grey, 1));
    auto* gpuSample = new QCPBars(p->yAxis, p->xAxis);
    gpuSample->setName(tr("GPU total"));
    gpuSample->setBrush(grey);
    gpuSample->setPen(QPen(grey.darker(130), 1));
    p->yAxis->setTicker(names);
    p->xAxis->setRange(0.0, longest * 1.4); // refined to the ratio texts once laid out
    const double rows = m_visibleRows > 0 ? m_visibleRows : double(shownRegions());
    p->yAxis->setRange(-0.5, rows - 0.5);
    m_frame->showPlot();
    p->replot();
}

void GpuTotalsChart::clampRows()
{
    // Scrolling shows whole regions and stops at the first and the last.
    QCustomPlot* p = m_frame->plot();
    const QCPRange range = p->yAxis->range();
    const int shown = int(shownRegions());
    if (shown == 0 || m_visibleRows == 0)
        return;
    const double rows = m_visibleRows;
    const double top = std::clamp(range.lower, -0.5, std::max(-0.5, shown - rows - 0.5));
    if (std::abs(top - range.lower) > 1e-9 || std::abs(range.size() - rows) > 1e-9)
        p->yAxis->setRange(top, top + rows);
}

void GpuTotalsChart::fitLayout()
{
    QCustomPlot* p = m_frame->plot();
    const int shown = int(shownRegions());
    const QRect area = p->axisRect()->rect();
    if (shown == 0 || area.height() <= 0 || area.width() <= 0)
        return;
    // The ticks of this frame were made for the old ranges: if they change, draw again.
    bool changed = false;
    const int rows = std::clamp(area.height() / kRegionRowHeight, 1, shown);
    if (rows != m_visibleRows) {
        m_visibleRows = rows;
        const double top =
            std::clamp(std::round(p->yAxis->range().lower + 0.5), 0.0, double(shown - rows));
        p->yAxis->setRange(top - 0.5, top - 0.5 + rows);
        changed = true;
    }
    // Room right of the longest bar for the widest ratio text.
    int textWidth = 0;
    double longest = 1.0;
    for (int i = 0; i < p->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(p->item(i))) {
            const QFontMetrics metrics(text->font());
            textWidth = std::max(textWidth, metrics.horizontalAdvance(text->text()) + 12);
            longest = std::max(longest, text->position->key());
        }
    const double room = std::min(0.8, double(textWidth) / area.width());
    const double upper = longest / (1.0 - room);
    if (std::abs(upper - p->xAxis->range().upper) > 1e-6 * upper) {
        p->xAxis->setRange(0.0, upper);
        changed = true;
    }
    if (changed)
        p->replot(QCustomPlot::rpQueuedReplot);
}

bool GpuTotalsChart::saveCsv(const QString& path, QString* error) const
{
    if (!m_capture) {
        if (error)
            *error = tr("There is no plotted data to save.");
        return false;
    }
    return writeGpuTotalsCsv(path, *m_capture, m_totals, error);
}

} // namespace spanscope::views
