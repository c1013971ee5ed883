#include "gpu_view.h"

#include "gpu_colors.h"
#include "gpu_gap_model.h"
#include "gpu_stream_model.h"
#include "latency_histogram.h"
#include "share_bar.h"
#include "views/display_text.h"
#include "views/latest_job.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace spanscope::views {

using model::analysis::CriticalPath;
using model::analysis::DeviceFigures;
using model::analysis::GpuAnalysis;
using model::analysis::PathShare;

namespace {

QTableView* createTable(QAbstractItemModel* model, int sortRole, const QString& name)
{
    auto* proxy = new QSortFilterProxyModel(model);
    proxy->setSourceModel(model);
    proxy->setSortRole(sortRole);
    auto* table = new QTableView;
    table->setObjectName(name);
    table->setModel(proxy);
    table->setSortingEnabled(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    table->setTextElideMode(Qt::ElideMiddle);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setHighlightSections(false);
    table->horizontalHeader()->setStretchLastSection(true);
    table->sortByColumn(-1, Qt::AscendingOrder); // the analysis's own order until a header is clicked
    return table;
}

// A table under a one-line title.
QWidget* titled(const QString& title, QWidget* table)
{
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(new QLabel(title));
    layout->addWidget(table, 1);
    return box;
}

QString deviceTitle(const GpuAnalysis& analysis, const DeviceFigures& d)
{
    QString title = analysis.multiRank ? QObject::tr("rank %1 · GPU %2").arg(d.rank).arg(d.device)
                                       : QObject::tr("GPU %1").arg(d.device);
    if (!d.name.empty())
        title += QLatin1Char(' ') + QString::fromStdString(d.name);
    return title;
}

QString shareText(int64_t part, int64_t whole)
{
    return whole > 0 ? QString::number(100.0 * double(part) / double(whole), 'f', 1) + QStringLiteral(" %")
                     : QStringLiteral("–");
}

} // namespace

GpuView::GpuView(QWidget* parent) : QWidget(parent), m_job(new LatestJob(this))
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget;
    outer->addWidget(m_stack);
    m_message = new QLabel;
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setWordWrap(true);
    m_message->setEnabled(false);
    m_stack->addWidget(m_message);

    auto* page = new QWidget;
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->setSpacing(4);
    auto* header = new QHBoxLayout;
    m_devices = new QComboBox;
    m_devices->setObjectName(QStringLiteral("gpuDevice"));
    m_devices->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_devices->setToolTip(tr("The GPU (of a rank) whose figures are shown"));
    m_deviceLine = new QLabel;
    m_deviceLine->setTextInteractionFlags(Qt::TextSelectableByMouse);
    header->addWidget(m_devices);
    header->addWidget(m_deviceLine, 1);
    layout->addLayout(header);

    auto* figures = new QWidget;
    auto* figuresLayout = new QVBoxLayout(figures);
    figuresLayout->setContentsMargins(0, 0, 0, 0);
    figuresLayout->setSpacing(4);
    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(8);
    grid->setVerticalSpacing(2);
    auto* utilizationTitle = new QLabel(tr("<b>Utilization</b>"));
    utilizationTitle->setToolTip(tr("How the device's span splits: time compute kernels ran, communication "
                                    "(NCCL, RCCL) not under compute, copies and memsets under neither, and idle"));
    m_utilization = new ShareBar;
    m_utilization->setObjectName(QStringLiteral("gpuUtilization"));
    grid->addWidget(utilizationTitle, 0, 0, Qt::AlignTop);
    grid->addWidget(m_utilization, 0, 1);
    m_pathTitle = new QLabel;
    m_pathTitle->setToolTip(tr("The chain of work that bounded the rank: back from its last event, at each step "
                               "what it waited for last (docs/gpu-analyses.md)"));
    m_path = new ShareBar;
    m_path->setObjectName(QStringLiteral("criticalPathSplit"));
    m_showPath = new QToolButton;
    m_showPath->setObjectName(QStringLiteral("showCriticalPath"));
    m_showPath->setText(tr("Show on timeline"));
    m_showPath->setCheckable(true);
    m_showPath->setToolTip(tr("Draw the critical path over the timeline, each step in the colour of what bounds it"));
    grid->addWidget(m_pathTitle, 1, 0, Qt::AlignTop);
    grid->addWidget(m_path, 1, 1);
    grid->addWidget(m_showPath, 1, 2, Qt::AlignTop);
    grid->setColumnStretch(1, 1);
    figuresLayout->addLayout(grid);
    m_latencyLine = new QLabel;
    m_latencyLine->setObjectName(QStringLiteral("latencyLine"));
    m_latencyLine->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_latencyLine->setWordWrap(true);
    figuresLayout->addWidget(m_latencyLine);
    m_classNote = new QLabel;
    m_classNote->setWordWrap(true);
    m_classNote->hide();
    figuresLayout->addWidget(m_classNote);
    figuresLayout->addStretch(1);

    m_streams = new GpuStreamModel(this);
    m_streamTable = createTable(m_streams, GpuStreamModel::SortRole, QStringLiteral("gpuStreams"));
    m_latency = new LatencyHistogram;
    m_gaps = new GpuGapModel(this);
    m_gapTable = createTable(m_gaps, GpuGapModel::SortRole, QStringLiteral("gpuGaps"));
    m_gapTable->setToolTip(tr("The device's 20 largest gaps: click one to show it in the timeline"));
    QWidget* gapsBox = titled(tr("Largest gaps (click to show in the timeline)"), m_gapTable);
    QWidget* streamsBox = titled(tr("Streams"), m_streamTable);
    // Above: the figures and the latency histogram; below: the streams and the largest gaps.
    auto* top = new QSplitter(Qt::Horizontal);
    top->addWidget(figures);
    top->addWidget(m_latency);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    top->setChildrenCollapsible(false);
    m_tables = new QSplitter(Qt::Horizontal);
    m_tables->setObjectName(QStringLiteral("gpuTables"));
    m_tables->addWidget(streamsBox);
    m_tables->addWidget(gapsBox);
    m_tables->setStretchFactor(0, 1);
    m_tables->setStretchFactor(1, 1);
    m_tables->setChildrenCollapsible(false);
    auto* parts = new QSplitter(Qt::Vertical);
    parts->setObjectName(QStringLiteral("gpuParts"));
    parts->addWidget(top);
    parts->addWidget(m_tables);
    parts->setStretchFactor(0, 0); // the figures keep their height; the tables take the rest
    parts->setStretchFactor(1, 1);
    parts->setChildrenCollapsible(false);
    layout->addWidget(parts, 1);
    // In a short window the page scrolls rather than hold the timeline above it to less
    // than its GPU-first lanes need (CaptureView::fitLayout).
    auto* scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("gpuPageScroll"));
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    scroll->setWidget(page);
    m_stack->addWidget(scroll);

    connect(m_devices, &QComboBox::currentIndexChanged, this, [this] {
        showDevice();
        emitPath();
    });
    connect(m_showPath, &QToolButton::toggled, this, &GpuView::emitPath);
    auto activateGap = [this](const QModelIndex& index) {
        const auto* proxy = static_cast<const QSortFilterProxyModel*>(m_gapTable->model());
        if (const auto* gap = m_gaps->gap(proxy->mapToSource(index).row()))
            emit gapActivated(gap->startNs, gap->endNs);
    };
    connect(m_gapTable, &QTableView::clicked, this, activateGap);
    connect(m_gapTable, &QTableView::activated, this, activateGap);
    setCapture(nullptr);
}

GpuView::~GpuView() = default;

bool GpuView::hasGpuWork(const model::Capture& capture)
{
    for (const auto& row : capture.rows)
        if (row.count > 0 && model::isGpuActivity(capture.regionKind(row.region)))
            return true;
    return false;
}

bool GpuView::analysing() const
{
    return m_job->isRunning();
}

void GpuView::setCapture(std::shared_ptr<const model::Capture> capture, bool update)
{
    m_capture = std::move(capture);
    m_stale = false;
    if (!update) {
        m_job->cancel(); // another capture: what is being analysed is of no use
        m_pending = false;
        m_analysis.reset();
        m_showPath->setChecked(false);
        m_tablesFitted = false;
    }
    if (!m_capture || !hasGpuWork(*m_capture)) {
        m_job->cancel();
        m_pending = false;
        m_analysis.reset();
        m_message->setText(m_capture ? tr("This capture has no GPU work: no kernel, copy or memset.")
                                     : QString());
        m_stack->setCurrentWidget(m_message);
        emit criticalPathChanged(nullptr);
        return;
    }
    if (!m_analysis) {
        m_message->setText(tr("Analysing the GPU work…"));
        m_stack->setCurrentWidget(m_message);
    }
    // A live capture's update: analysed (seconds for a large job, on a core the job and the
    // viewer's own updates need) only where someone looks at it; the first analysis always,
    // so that the tab is ready when shown.
    if (update && m_analysis && !followsUpdates()) {
        m_stale = true;
        return;
    }
    analyse();
}

bool GpuView::followsUpdates() const
{
    return isVisible() || m_showPath->isChecked();
}

void GpuView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    // After the layout has given the tables their widths.
    QMetaObject::invokeMethod(this, [this] { fitStreamColumns(); }, Qt::QueuedConnection);
    if (m_stale)
        analyse();
}

void GpuView::setKernelClasses(const model::analysis::KernelClasses& classes)
{
    m_classes = classes;
    m_job->cancel(); // analysed with the old classes: dropped
    m_pending = false;
    if (m_capture && hasGpuWork(*m_capture))
        analyse();
}

void GpuView::analyse()
{
    if (m_job->isRunning()) {
        m_pending = true;
        return;
    }
    m_pending = false;
    m_stale = false; // the newest snapshot is analysed now
    m_job->run(
        [capture = m_capture, classes = m_classes] {
            return std::make_shared<const GpuAnalysis>(model::analysis::analyzeGpu(*capture, classes));
        },
        [this](std::shared_ptr<const GpuAnalysis> analysis) {
            showAnalysis(std::move(analysis));
            if (m_pending && !followsUpdates()) { // the tab was hidden meanwhile
                m_pending = false;
                m_stale = true;
            }
            if (m_pending)
                analyse(); // the newest snapshot or classes
        });
}

void GpuView::showAnalysis(std::shared_ptr<const GpuAnalysis> analysis)
{
    // Keep the chosen device across updates, by (rank, device).
    std::optional<std::pair<int32_t, int32_t>> chosen;
    if (const DeviceFigures* d = currentDevice())
        chosen = std::pair{d->rank, d->device};
    m_analysis = std::move(analysis);
    {
        const QSignalBlocker blocker(m_devices);
        m_devices->clear();
        int index = 0;
        for (size_t i = 0; i < m_analysis->devices.size(); ++i) {
            const DeviceFigures& d = m_analysis->devices[i];
            m_devices->addItem(deviceTitle(*m_analysis, d), int(i));
            if (chosen && chosen->first == d.rank && chosen->second == d.device)
                index = int(i);
        }
        m_devices->setCurrentIndex(index);
        m_devices->setVisible(m_analysis->devices.size() > 1);
    }
    QStringList unmatched;
    for (const auto& label : m_analysis->labels)
        if (label.kernels == 0)
            unmatched << QStringLiteral("%1 (%2)").arg(QString::fromStdString(label.name),
                                                        QString::fromStdString(label.pattern));
    m_classNote->setText(unmatched.isEmpty() ? QString()
                                             : tr("These kernel classes matched no kernel: %1")
                                                   .arg(unmatched.join(QStringLiteral(", "))));
    m_classNote->setVisible(!unmatched.isEmpty());
    m_stack->setCurrentIndex(1);
    showDevice();
    emitPath();
    emit analysisFinished();
}

const DeviceFigures* GpuView::currentDevice() const
{
    if (!m_analysis || m_analysis->devices.empty())
        return nullptr;
    const int i = m_devices->currentIndex();
    return i >= 0 && size_t(i) < m_analysis->devices.size() ? &m_analysis->devices[size_t(i)]
                                                            : &m_analysis->devices.front();
}

const CriticalPath* GpuView::currentPath() const
{
    const DeviceFigures* d = currentDevice();
    if (!d)
        return nullptr;
    for (const CriticalPath& path : m_analysis->criticalPaths)
        if (path.rank == d->rank)
            return &path;
    return nullptr;
}

void GpuView::showDevice()
{
    const DeviceFigures* d = currentDevice();
    m_streams->setDevice(d);
    m_gaps->setDevice(m_capture, d);
    m_latency->setLatencies(d ? std::span<const int64_t>(d->launchLatency.values) : std::span<const int64_t>());
    if (!d)
        return;
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    const auto& u = d->utilization;
    m_utilization->setParts({
        {tr("compute"), u.computeNs, computeColor(), tr("compute kernels ran (their union)")},
        {tr("communication"), u.communicationNs, communicationColor(),
         tr("communication kernels ran while no compute kernel did")},
        {tr("memory"), u.memoryNs, memoryColor(), tr("copies or memsets ran while no kernel did")},
        {tr("idle"), u.idleNs, idleColor(dark), tr("nothing ran on the device")},
    });
    QString line = tr("%1: span %2, %3 of work").arg(m_devices->isVisible() ? QString() : deviceTitle(*m_analysis, *d),
                                                     durationText(double(u.spanNs)),
                                                     countedText(d->streams.empty() ? 0 : [&] {
                                                         uint64_t n = 0;
                                                         for (const auto& s : d->streams)
                                                             n += s.activities;
                                                         return n;
                                                     }(), tr("activity"), tr("activities")));
    if (line.startsWith(QStringLiteral(": ")))
        line.remove(0, 2);
    if (u.communicationTotalNs > 0)
        line += tr(" · communication %1, %2 of it hidden under compute")
                    .arg(durationText(double(u.communicationTotalNs)),
                         shareText(u.communicationOverlappedNs, u.communicationTotalNs));
    m_deviceLine->setText(line);
    const auto& l = d->launchLatency;
    m_latencyLine->setText(
        l.count == 0 ? tr("Launch latency: no launch call is linked to this device's work.")
                     : tr("Launch latency over %1: min %2, median %3, max %4; %5 started before the call returned.")
                           .arg(countedText(l.count, tr("launch"), tr("launches")), durationText(double(l.minNs)),
                                durationText(double(l.medianNs)), durationText(double(l.maxNs)),
                                countedText(l.negative, tr("launch"), tr("launches"))));
    const CriticalPath* path = currentPath();
    m_pathTitle->setText(path ? tr("<b>Critical path</b><br>rank %1, %2").arg(path->rank).arg(durationText(double(path->lengthNs)))
                              : tr("<b>Critical path</b>"));
    std::vector<ShareBar::Part> parts;
    static const char* const kDescriptions[] = {
        QT_TR_NOOP("along a CPU thread: inside calls and between them"),
        QT_TR_NOOP("compute kernels running"),
        QT_TR_NOOP("communication kernels running"),
        QT_TR_NOOP("copies, memsets and memory kernels running"),
        QT_TR_NOOP("from a launch call's start to its work's start on an idle stream"),
        QT_TR_NOOP("from one activity's end to the next one's start on a busy stream"),
        QT_TR_NOOP("from the end of awaited work to the end of the wait"),
    };
    for (int s = 0; s < model::analysis::kPathShares; ++s)
        parts.push_back({QString::fromLatin1(model::analysis::pathShareName(PathShare(s))).replace('_', ' '),
                         path ? path->boundBy[s] : 0, pathShareColor(PathShare(s)), tr(kDescriptions[s])});
    m_path->setParts(std::move(parts));
    m_showPath->setEnabled(path != nullptr);
    for (QTableView* table : {m_streamTable, m_gapTable})
        table->resizeColumnsToContents();
    fitStreamColumns();
}

void GpuView::fitStreamColumns()
{
    // Once per capture, where the page shows: the stream table gets the width its columns
    // take (every figure in view, max queue last), the gaps (whose names elide) the rest, if
    // that leaves them a third; a splitter the user moved then stays where they put it.
    if (m_tablesFitted || !m_tables->isVisible() || m_streams->rowCount() == 0)
        return;
    const QHeaderView* header = m_streamTable->horizontalHeader();
    const int last = header->count() - 1;
    int needed = 2 * m_streamTable->frameWidth() + m_streamTable->verticalScrollBar()->sizeHint().width();
    for (int c = 0; c < last; ++c)
        needed += header->sectionSize(c);
    const QAbstractItemView* view = m_streamTable; // sizeHintForColumn is public there
    needed += std::max(view->sizeHintForColumn(last), header->sectionSizeHint(last));
    const int total = m_tables->width() - m_tables->handleWidth();
    if (needed <= total * 2 / 3 && needed > m_tables->sizes().value(0))
        m_tables->setSizes({needed, total - needed});
    m_tablesFitted = true;
}

void GpuView::emitPath()
{
    const CriticalPath* path = m_showPath->isChecked() ? currentPath() : nullptr;
    if (!path) {
        emit criticalPathChanged(nullptr);
        return;
    }
    // Shares the analysis: the path lives as long as whoever draws it holds it.
    emit criticalPathChanged(std::shared_ptr<const CriticalPath>(m_analysis, path));
}

} // namespace spanscope::views
