#include "allocations_view.h"

#include "model/report/duration_format.h"
#include "plot_csv.h"
#include "plot_frame.h"
#include "views/display_text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace spanscope::views {

namespace {

constexpr size_t kLargest = 50;

// "512 B", "1 KiB", "64 MiB": the bin starting at 2^k bytes, in whole units.
QString binLabel(size_t bin)
{
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    return QStringLiteral("%1 %2")
        .arg(uint64_t(1) << (bin % 10))
        .arg(QLatin1String(units[std::min<size_t>(bin / 10, 6)]));
}

} // namespace

AllocationsView::AllocationsView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    auto* top = new QHBoxLayout;
    m_title = new QLabel;
    m_title->setTextFormat(Qt::PlainText);
    m_title->setWordWrap(true);
    m_wholeRun = new QCheckBox(tr("Whole run"));
    m_wholeRun->setToolTip(
        tr("Every allocation of the run instead of those inside the selected region's calls"));
    m_device = new QComboBox;
    m_device->setToolTip(tr("Host memory, one GPU's, or all together"));
    m_measure = new QComboBox;
    m_measure->addItem(tr("by count"));
    m_measure->addItem(tr("by bytes"));
    m_measure->setToolTip(
        tr("Bars show how many allocations fell in each size bin, or how many bytes"));
    top->addWidget(m_title, 1);
    top->addWidget(m_wholeRun);
    top->addWidget(m_device);
    top->addWidget(m_measure);
    layout->addLayout(top);
    m_figures = new QLabel;
    m_figures->setObjectName(QStringLiteral("allocationFigures"));
    m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_figures);

    m_frame = new PlotFrame;
    m_frame->setExportName(QStringLiteral("allocations"));
    QCustomPlot* p = m_frame->plot();
    p->yAxis->setLabel(tr("allocations"));
    p->xAxis->setLabel(tr("size (log2 bins)"));
    layout->addWidget(m_frame, 3);

    m_table = new QTableWidget(0, 5);
    m_table->setObjectName(QStringLiteral("largestAllocations"));
    m_table->setHorizontalHeaderLabels(
        {tr("Size"), tr("Device"), tr("At"), tr("Address"), tr("Ranges open then")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setToolTip(tr("The largest allocations; click one to see it in the timeline"));
    layout->addWidget(m_table, 2);

    connect(m_wholeRun, &QCheckBox::toggled, this, [this] { refresh(); });
    connect(m_device, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    connect(m_measure, &QComboBox::currentIndexChanged, this, [this] { replot(); });
    connect(m_frame, &PlotFrame::paletteApplied, this, [this] { replot(); });
    connect(m_table, &QTableWidget::cellClicked, this, [this](int row, int) {
        if (!m_result || row < 0 || size_t(row) >= m_result->largest.size() || !m_capture)
            return;
        const LargeAllocation& large = m_result->largest[size_t(row)];
        const auto& a = m_capture->allocations;
        const qint64 call = large.stack.empty() ? -1 : qint64(large.stack.back());
        emit allocationClicked(call, a.time(large.row), a.track(large.row).value);
    });
    m_frame->setCsvWriter([this](const QString& path, QString* error) {
        return m_result && writeAllocationBinsCsv(path, m_result->breakdown, error);
    });
    refresh();
}

AllocationsView::~AllocationsView() = default;

void AllocationsView::setCapture(std::shared_ptr<const model::Capture> capture,
                                 std::shared_ptr<const model::TimelineIndex> index)
{
    m_capture = std::move(capture);
    m_index = std::move(index);
    fillDevices();
    refresh();
}

void AllocationsView::fillDevices()
{
    const QVariant previous = m_device->currentData();
    const QSignalBlocker block(m_device);
    m_device->clear();
    m_device->addItem(tr("All memory"), QVariant());
    if (m_capture)
        for (const int32_t device : m_capture->allocations.devices())
            m_device->addItem(QString::fromStdString(model::memoryDeviceName(device)), device);
    const int index = previous.isValid() ? m_device->findData(previous) : -1;
    // One GPU and the host together mix two memories: show the GPU's when there is one.
    m_device->setCurrentIndex(index >= 0              ? index
                              : m_device->count() > 1 ? m_device->count() - 1
                                                      : 0);
}

void AllocationsView::showRegion(uint32_t region, std::span<const uint32_t> rows)
{
    m_region = region;
    m_rows.assign(rows.begin(), rows.end());
    refresh();
}

void AllocationsView::clearRegion()
{
    m_region.reset();
    m_rows.clear();
    refresh();
}

void AllocationsView::setWholeRun(bool whole)
{
    m_wholeRun->setChecked(whole);
}

void AllocationsView::setByBytes(bool bytes)
{
    m_measure->setCurrentIndex(bytes ? 1 : 0);
}

void AllocationsView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_stale)
        refresh();
}

QString AllocationsView::figuresText() const
{
    return m_figures->text();
}

void AllocationsView::refresh()
{
    m_job.cancel();
    m_result.reset();
    m_table->setRowCount(0);
    m_figures->clear();
    const bool whole = m_wholeRun->isChecked();
    const bool counted = m_capture && !m_capture->countedAllocations.empty();
    if (!m_capture || !m_index || (m_capture->allocations.empty() && !counted)) {
        m_title->setText(tr("Allocations"));
        m_frame->showMessage(
            tr("This capture has no allocation events. The PyTorch profiler records them "
               "with profile_memory=True; spanscope-run --alloc counts them per range."));
        return;
    }
    if (!whole && !m_region) {
        m_title->setText(tr("Allocations"));
        m_frame->showMessage(
            tr("Select a region to see what its calls allocated, or tick \u201cWhole run\u201d."));
        return;
    }
    const QString region = m_region ? QString::fromStdString(m_capture->regionName(*m_region)) : QString();
    // Counted live, a region's allocations are those made while it was innermost.
    m_title->setText(whole     ? tr("Allocations of the whole run")
                     : counted ? tr("Allocations made directly in %1 (while one of its calls was "
                                    "the innermost range of its thread)")
                                     .arg(region)
                               : tr("Allocations inside the calls of %1 (on their threads)").arg(region));
    if (!isVisible()) {
        m_stale = true; // computed when the tab is first shown
        return;
    }
    m_stale = false;
    m_frame->showMessage(tr("Computing\u2026"));
    model::AllocationScope scope;
    if (!whole)
        scope.rows = m_rows;
    if (m_device->currentData().isValid())
        scope.device = m_device->currentData().toInt();
    m_job.run(
        [capture = m_capture, index = m_index, scope] {
            auto result = std::make_shared<AllocationResult>();
            result->breakdown = model::allocationBreakdown(*capture, scope, kLargest);
            for (const uint32_t row : result->breakdown.largest)
                result->largest.push_back(
                    {row, index->callsAt(*capture, capture->allocations.track(row),
                                         capture->allocations.time(row))});
            return std::shared_ptr<const AllocationResult>(std::move(result));
        },
        [this](std::shared_ptr<const AllocationResult> result) { apply(std::move(result)); });
}

void AllocationsView::apply(std::shared_ptr<const AllocationResult> result)
{
    m_result = std::move(result);
    const auto& b = m_result->breakdown;
    QString figures =
        b.counted ? tr("%1 allocations (%2 requested), %3 frees")
                        .arg(countText(b.allocs), bytesText(double(b.allocatedBytes)), countText(b.frees))
                  : tr("%1 allocations (%2), %3 frees (%4); at most %5 of these in use at once")
                        .arg(countText(b.allocs), bytesText(double(b.allocatedBytes)), countText(b.frees),
                             bytesText(double(b.freedBytes)), bytesText(double(b.peakBytes)));
    if (b.counted && b.peakKnown)
        figures += tr("; the heap in use peaked at %1").arg(bytesText(double(b.peakBytes)));
    if (b.counted)
        figures += tr(". The table lists the large allocations, sent one by one (1 MiB or more "
                      "unless SPANSCOPE_ALLOC_THRESHOLD set another size).");
    // The allocator's own total, where the source reports it, counts what was allocated
    // before the recording began too.
    if (!b.counted && m_wholeRun->isChecked() && m_device->currentData().isValid())
        for (const auto& series : m_capture->counters) {
            const auto& track = m_capture->track(series.track);
            const std::string& name = m_capture->strings.text(track.name);
            if (track.device == m_device->currentData().toInt() &&
                (name == "allocated" || name == "host allocated"))
                figures += tr("; the allocator's peak total %1").arg(bytesText(series.maximum()));
        }
    m_figures->setText(figures);
    const auto& a = m_capture->allocations;
    m_table->setRowCount(int(m_result->largest.size()));
    for (size_t i = 0; i < m_result->largest.size(); ++i) {
        const LargeAllocation& large = m_result->largest[i];
        QStringList stack;
        for (const uint32_t call : large.stack)
            stack << QString::fromStdString(
                m_capture->regionName(m_capture->rows[m_index->rowOf(call)].region));
        const QString where =
            stack.isEmpty() ? tr("(no range open)") : stack.join(QStringLiteral(" \u203a "));
        const QStringList cells = {
            bytesText(double(a.bytes(large.row))),
            QString::fromStdString(model::memoryDeviceName(a.device(large.row))),
            durationText(double(a.time(large.row) - m_index->begin())),
            QStringLiteral("0x") + QString::number(a.address(large.row), 16), where};
        for (int column = 0; column < cells.size(); ++column) {
            auto* item = new QTableWidgetItem(cells[column]);
            if (column == 4)
                item->setToolTip(
                    QString::fromStdString(model::trackTitle(*m_capture, a.track(large.row))) +
                    QStringLiteral("\n") + stack.join(QStringLiteral("\n")));
            m_table->setItem(int(i), column, item);
        }
    }
    m_table->resizeColumnsToContents();
    replot();
    emit resultShown();
}

void AllocationsView::replot()
{
    if (!m_result)
        return;
    const auto& b = m_result->breakdown;
    if (b.allocs == 0) {
        m_frame->showMessage(m_wholeRun->isChecked()
                                 ? tr("No allocations on this device.")
                                 : tr("This region's calls allocated nothing on their threads."));
        return;
    }
    const bool bytes = m_measure->currentIndex() == 1;
    QCustomPlot* p = m_frame->plot();
    p->clearPlottables();
    size_t first = model::AllocationBreakdown::kBins, last = 0;
    for (size_t bin = 0; bin < model::AllocationBreakdown::kBins; ++bin)
        if (b.countByLog2[bin]) {
            first = std::min(first, bin);
            last = bin;
        }
    auto* bars = new QCPBars(p->xAxis, p->yAxis);
    const bool dark = m_frame->darkPalette();
    const QColor color = dark ? QColor(110, 170, 240) : QColor(50, 110, 200);
    bars->setBrush(color);
    bars->setPen(QPen(color.darker(130)));
    bars->setWidth(0.8);
    auto labels = QSharedPointer<QCPAxisTickerText>::create();
    // Labels about 70 px apart, so they never overlap.
    const size_t room = size_t(std::max(1, p->axisRect()->width() / 70));
    const size_t every = std::max<size_t>(1, (last - first + 1 + room - 1) / room);
    double top = 0;
    for (size_t bin = first; bin <= last; ++bin) {
        const double value = bytes ? double(b.bytesByLog2[bin]) : double(b.countByLog2[bin]);
        bars->addData(double(bin), value);
        top = std::max(top, value);
        if ((bin - first) % every == 0)
            labels->addTick(double(bin), binLabel(bin));
    }
    p->xAxis->setTicker(labels);
    p->xAxis->setRange(double(first) - 0.7, double(last) + 0.7);
    p->yAxis->setRange(0, top * 1.08);
    p->yAxis->setLabel(bytes ? tr("bytes allocated") : tr("allocations"));
    if (bytes) {
        // The byte axis in KiB/MiB/GiB.
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        for (int k = 0; k <= 5; ++k)
            ticker->addTick(top * k / 5, bytesText(top * k / 5));
        p->yAxis->setTicker(ticker);
    } else {
        p->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
    m_frame->showPlot();
    p->replot();
}

} // namespace spanscope::views
