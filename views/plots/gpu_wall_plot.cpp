#include "gpu_wall_plot.h"

#include "gpu_call_scatter.h"
#include "gpu_totals_chart.h"

#include <QLabel>
#include <QSplitter>
#include <QStackedLayout>

namespace spanscope::views {

GpuWallPlot::GpuWallPlot(QWidget* parent) : QWidget(parent)
{
    m_stack = new QStackedLayout(this);
    m_noGpu = new QLabel;
    m_noGpu->setAlignment(Qt::AlignCenter);
    m_noGpu->setEnabled(false);
    m_noGpu->setObjectName(QStringLiteral("noGpuMessage"));
    m_totals = new GpuTotalsChart;
    m_calls = new GpuCallScatter;
    m_splitter = new QSplitter(Qt::Horizontal);
    m_splitter->addWidget(m_totals);
    m_splitter->addWidget(m_calls);
    m_splitter->setChildrenCollapsible(false);
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setSizes({1000, 1000}); // halves, whatever the width turns out to be
    m_stack->addWidget(m_splitter);
    m_stack->addWidget(m_noGpu);
    connect(m_calls, &GpuCallScatter::callClicked, this, &GpuWallPlot::callClicked);
    setCapture(nullptr, nullptr);
}

GpuWallPlot::~GpuWallPlot() = default;

bool GpuWallPlot::hasGpu() const
{
    return m_capture && m_summary && m_capture->events.hasGpu();
}

QString GpuWallPlot::message() const
{
    return m_stack->currentWidget() == m_noGpu ? m_noGpu->text() : QString();
}

void GpuWallPlot::setCapture(std::shared_ptr<const model::Capture> capture,
                             std::shared_ptr<const model::CaptureSummary> summary)
{
    m_capture = std::move(capture);
    m_summary = std::move(summary);
    m_noGpu->setText(m_capture ? tr("This file recorded no GPU durations") : QString());
    m_stack->setCurrentWidget(hasGpu() ? static_cast<QWidget*>(m_splitter) : m_noGpu);
    // Without GPU data neither part is shown: give them nothing to compute.
    m_totals->setData(hasGpu() ? m_capture : nullptr, m_summary, m_totalsRank);
    m_calls->setCapture(hasGpu() ? m_capture : nullptr);
}

void GpuWallPlot::setTotalsRank(std::optional<int32_t> rank)
{
    if (rank == m_totalsRank)
        return;
    m_totalsRank = rank;
    m_totals->setData(hasGpu() ? m_capture : nullptr, m_summary, m_totalsRank);
}

void GpuWallPlot::showRegion(uint32_t region, std::span<const uint32_t> rows,
                             std::optional<int32_t> rank)
{
    if (hasGpu())
        m_calls->showRegion(region, rows, rank);
}

void GpuWallPlot::clearRegion()
{
    m_calls->clearRegion();
}

} // namespace spanscope::views
