#include "capture_view.h"

#include "call_details_widget.h"
#include "display_text.h"
#include "gpu/gpu_view.h"
#include "metadata_model.h"
#include "plots/allocations_view.h"
#include "plots/duration_histogram.h"
#include "plots/gpu_call_scatter.h"
#include "plots/gpu_totals_chart.h"
#include "plots/gpu_wall_plot.h"
#include "plots/plot_frame.h"
#include "region_details_widget.h"
#include "region_filter_proxy.h"
#include "span_tree_widget.h"
#include "timeline/timeline_view.h"
#include "warnings_widget.h"

#include <QComboBox>
#include <QDataStream>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIODevice>
#include <QLabel>
#include <QLineEdit>
#include <QShortcut>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace spanscope::views {

namespace {

// Item data of the rank selector: a rank number, or one of these.
constexpr int kPooledItem = -1;
constexpr int kPerRankItem = -2;
// Bumped whenever saveLayoutState() changes shape.
constexpr quint32 kLayoutStateVersion = 4;

} // namespace

CaptureView::CaptureView(QWidget* parent) : QWidget(parent)
{
    m_model = new RegionTableModel(this);
    m_proxy = new RegionFilterProxy(this);
    m_proxy->setSourceModel(m_model);
    m_metadataModel = new MetadataModel(this);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);

    // Left: rank selector, filter and the region table.
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    auto* tools = new QHBoxLayout;
    m_rankSelector = new QComboBox;
    m_rankSelector->setObjectName(QStringLiteral("rankSelector"));
    m_rankSelector->setToolTip(tr("Pool the statistics over every rank, or show the ranks apart"));
    m_rankSelector->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_filter = new QLineEdit;
    m_filter->setObjectName(QStringLiteral("regionFilter"));
    m_filter->setPlaceholderText(tr("Filter regions (text or regular expression)  Ctrl+F"));
    m_filter->setClearButtonEnabled(true);
    m_matchCount = new QLabel;
    m_matchCount->setEnabled(false);
    m_previousCall = new QToolButton;
    m_previousCall->setArrowType(Qt::LeftArrow);
    m_previousCall->setAutoRaise(true);
    m_previousCall->setToolTip(tr("Previous call of a matching region in the timeline (Shift+F3)"));
    m_nextCall = new QToolButton;
    m_nextCall->setArrowType(Qt::RightArrow);
    m_nextCall->setAutoRaise(true);
    m_nextCall->setToolTip(tr("Next call of a matching region in the timeline (F3)"));
    tools->addWidget(m_rankSelector);
    tools->addWidget(m_filter, 1);
    tools->addWidget(m_previousCall);
    tools->addWidget(m_nextCall);
    tools->addWidget(m_matchCount);
    leftLayout->addLayout(tools);

    m_table = new QTableView;
    m_table->setObjectName(QStringLiteral("regionTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle); // region names differ at both ends
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    m_table->horizontalHeader()->setHighlightSections(false);
    m_table->horizontalHeader()->setSortIndicatorShown(true);
    leftLayout->addWidget(m_table, 1);

    // Below the table: metadata and warnings as tabs. Right: the selected region's details.
    m_details = new RegionDetailsWidget;
    m_sideTabs = new QTabWidget;
    m_sideTabs->setDocumentMode(true);
    m_metadataTable = new QTableView;
    m_metadataTable->setObjectName(QStringLiteral("metadataTable"));
    m_metadataTable->setModel(m_metadataModel);
    m_metadataTable->verticalHeader()->hide();
    m_metadataTable->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    m_metadataTable->setAlternatingRowColors(true);
    m_metadataTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_metadataTable->setWordWrap(false);
    m_metadataTable->horizontalHeader()->setStretchLastSection(true);
    m_noMetadata = new QLabel(tr("The file stores no run metadata."));
    m_noMetadata->setAlignment(Qt::AlignCenter);
    m_noMetadata->setEnabled(false);
    m_metadataStack = new QStackedWidget;
    m_metadataStack->addWidget(m_metadataTable);
    m_metadataStack->addWidget(m_noMetadata);
    m_sideTabs->addTab(m_metadataStack, tr("Metadata"));
    m_warnings = new WarningsWidget;
    m_warningsTab = m_sideTabs->addTab(m_warnings, tr("Warnings"));
    // The plots compute only while their tab is shown (see DurationHistogram).
    m_histogram = new DurationHistogram;
    m_histogram->setObjectName(QStringLiteral("durationHistogram"));
    m_sideTabs->addTab(m_histogram, tr("Histogram"));
    m_gpuWall = new GpuWallPlot;
    m_gpuWall->setObjectName(QStringLiteral("gpuWallPlot"));
    m_sideTabs->addTab(m_gpuWall, tr("GPU vs wall"));
    m_allocations = new AllocationsView;
    m_allocations->setObjectName(QStringLiteral("allocations"));
    m_sideTabs->addTab(m_allocations, tr("Allocations"));
    m_spanTree = new SpanTreeWidget;
    m_spanTree->setObjectName(QStringLiteral("spanTree"));
    m_sideTabs->addTab(m_spanTree, tr("Span tree"));
    // Every plot's Save image / Save data reaches app/ through this view.
    for (PlotFrame* frame : m_sideTabs->findChildren<PlotFrame*>())
        connect(frame, &PlotFrame::saveRequested, this, &CaptureView::saveRequested);

    m_leftSplitter = new QSplitter(Qt::Vertical);
    m_leftSplitter->setObjectName(QStringLiteral("tableSplitter"));
    m_leftSplitter->addWidget(left);
    m_leftSplitter->addWidget(m_sideTabs);
    m_leftSplitter->setStretchFactor(0, 1);
    m_leftSplitter->setStretchFactor(1, 1);
    m_leftSplitter->setChildrenCollapsible(false);
    m_sideTabs->setMinimumHeight(kMinPlotHeight / 2); // a plot squeezed below this is unreadable

    m_callDetails = new CallDetailsWidget;
    m_callDetails->setObjectName(QStringLiteral("callDetailsPanel"));
    m_detailsSplitter = new QSplitter(Qt::Vertical);
    m_detailsSplitter->setObjectName(QStringLiteral("detailsSplitter"));
    m_detailsSplitter->addWidget(m_details);
    m_detailsSplitter->addWidget(m_callDetails);
    m_detailsSplitter->setChildrenCollapsible(false);
    m_detailsSplitter->setStretchFactor(0, 1);
    m_detailsSplitter->setStretchFactor(1, 1);

    m_mainSplitter = new QSplitter(Qt::Horizontal);
    m_mainSplitter->setObjectName(QStringLiteral("mainSplitter"));
    m_mainSplitter->addWidget(m_leftSplitter);
    m_mainSplitter->addWidget(m_detailsSplitter);
    m_mainSplitter->setStretchFactor(0, 3);
    m_mainSplitter->setStretchFactor(1, 2);
    m_mainSplitter->setChildrenCollapsible(false);
    m_mainSplitter->setSizes({800, 560});

    // Top: what the file is, and a badge when it has warnings.
    auto* header = new QHBoxLayout;
    m_summaryLabel = new QLabel;
    m_summaryLabel->setObjectName(QStringLiteral("captureSummary"));
    m_summaryLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warningsBadge = new QToolButton;
    m_warningsBadge->setObjectName(QStringLiteral("warningsBadge"));
    m_warningsBadge->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
    m_warningsBadge->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_warningsBadge->setAutoRaise(true);
    m_warningsBadge->setToolTip(tr("Show the file's warnings"));
    m_warningsBadge->hide();
    header->addWidget(m_summaryLabel, 1);
    header->addWidget(m_warningsBadge);
    m_timeline = new TimelineView;
    m_timeline->setObjectName(QStringLiteral("timeline"));
    m_timeline->setDarkPalette(palette().color(QPalette::Window).lightness() < 128);
    m_verticalSplitter = new QSplitter(Qt::Vertical);
    m_verticalSplitter->setObjectName(QStringLiteral("timelineSplitter"));
    // Under the timeline, the regions (table, plots, details) and, for captures with GPU work,
    // the GPU page first: where the GPU time went and why it waited, as wide as the window.
    m_gpuView = new GpuView(this); // owned here while no page shows it (a capture without GPU work)
    m_gpuView->setObjectName(QStringLiteral("gpuView"));
    m_gpuView->hide();
    m_pages = new QTabWidget;
    m_pages->setObjectName(QStringLiteral("capturePages"));
    m_pages->setDocumentMode(true);
    m_pages->setTabBarAutoHide(true); // a capture without GPU work shows its regions alone
    m_pages->addTab(m_mainSplitter, tr("Regions"));
    m_pages->setTabToolTip(0, tr("Regions, their statistics and plots, and the selected call"));
    m_verticalSplitter->addWidget(m_timeline);
    m_verticalSplitter->addWidget(m_pages);
    m_verticalSplitter->setStretchFactor(0, 3);
    m_verticalSplitter->setStretchFactor(1, 2);
    m_verticalSplitter->setChildrenCollapsible(false);
    m_timeline->setMinimumHeight(kMinTimelineHeight / 2);

    layout->addLayout(header);
    layout->addWidget(m_verticalSplitter, 1);

    connect(m_rankSelector, &QComboBox::currentIndexChanged, this,
            &CaptureView::applyRankSelection);
    connect(m_filter, &QLineEdit::textChanged, this, &CaptureView::applyFilter);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &CaptureView::showCurrentRegion);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &CaptureView::updateMatchCount);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &CaptureView::updateMatchCount);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &CaptureView::updateMatchCount);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &CaptureView::updateMatchCount);
    connect(m_warningsBadge, &QToolButton::clicked, this, &CaptureView::showWarnings);
    connect(m_timeline, &TimelineView::callSelected, this, [this](quint32 event) {
        showRegionsPage(); // the call's details are there
        showCall(event, false);
    });
    connect(m_callDetails, &CallDetailsWidget::callClicked, this, [this](quint32 event) { showCall(event, true); });

    // splitterMoved comes from the user's drags only: from then on the layout is theirs.
    for (QSplitter* splitter : {m_mainSplitter, m_verticalSplitter, m_detailsSplitter, m_leftSplitter})
        connect(splitter, &QSplitter::splitterMoved, this, [this] {
            m_userSized = true;
            emit layoutStateChanged();
        });
    connect(m_previousCall, &QToolButton::clicked, this, [this] { findCall(false); });
    auto* next = new QShortcut(QKeySequence(Qt::Key_F3), this);
    next->setContext(Qt::WidgetWithChildrenShortcut);
    connect(next, &QShortcut::activated, this, [this] { findCall(true); });
    auto* previous = new QShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F3), this);
    previous->setContext(Qt::WidgetWithChildrenShortcut);
    connect(previous, &QShortcut::activated, this, [this] { findCall(false); });
    connect(m_nextCall, &QToolButton::clicked, this, [this] { findCall(true); });
    connect(m_gpuWall, &GpuWallPlot::callClicked, this, [this](quint32 event) { showCall(event, true); });
    connect(m_allocations, &AllocationsView::allocationClicked, this,
            [this](qint64 call, qint64 time, quint32) {
                if (call >= 0)
                    showCall(quint32(call), true);
                else
                    m_timeline->zoom()->setRange(time - m_timeline->zoom()->span() / 2,
                                                 time - m_timeline->zoom()->span() / 2 + m_timeline->zoom()->span());
            });
    connect(m_gpuView, &GpuView::gapActivated, this, [this](qint64 start, qint64 end) {
        // The gap with a tenth of its length either side, so what ran before and after shows.
        const qint64 margin = std::max<qint64>((end - start) / 10, 1000);
        m_timeline->zoom()->setRange(start - margin, end + margin);
    });
    connect(m_gpuView, &GpuView::criticalPathChanged, m_timeline, &TimelineView::setCriticalPath);
    connect(m_spanTree, &SpanTreeWidget::regionSelected, this, [this](int region) {
        restoreSelection(uint32_t(region), std::nullopt);
        m_timeline->setHighlightRegion(region);
    });
}

CaptureView::~CaptureView() = default;

const std::shared_ptr<const model::Capture>& CaptureView::capture() const
{
    return m_model->capture();
}

void CaptureView::setCapture(std::shared_ptr<const model::Capture> capture,
                             std::shared_ptr<const model::CaptureSummary> summary,
                             std::shared_ptr<const model::TimelineIndex> timeline)
{
    apply(std::move(capture), std::move(summary), std::move(timeline), false);
}

void CaptureView::updateCapture(std::shared_ptr<const model::Capture> capture,
                                std::shared_ptr<const model::CaptureSummary> summary,
                                std::shared_ptr<const model::TimelineIndex> timeline)
{
    apply(std::move(capture), std::move(summary), std::move(timeline), true);
}

void CaptureView::apply(std::shared_ptr<const model::Capture> capture,
                        std::shared_ptr<const model::CaptureSummary> summary,
                        std::shared_ptr<const model::TimelineIndex> timeline, bool update)
{
    m_timeline->setVisible(timeline != nullptr);
    if (update)
        m_timeline->updateCapture(timeline ? capture : nullptr, timeline);
    else
        m_timeline->setCapture(timeline ? capture : nullptr, timeline);
    // Remember what was selected by name: region ids may change when a file is reloaded.
    const QModelIndex current = m_proxy->mapToSource(m_table->currentIndex());
    std::optional<QString> selectedName;
    if (current.isValid())
        selectedName = m_model->regionName(current.row());
    const bool first = !m_model->capture();

    // The timeline index knows the run's earliest start: no pass over the calls here.
    m_details->setCapture(capture, timeline ? std::optional<int64_t>(timeline->begin())
                                            : std::nullopt);
    m_callDetails->setCapture(timeline ? capture : nullptr, timeline);
    m_allocations->setCapture(timeline ? capture : nullptr, timeline);
    m_metadataModel->setCapture(capture);
    // One set of region colours for the timeline and the plots (the timeline's, which a
    // live update extends without recolouring what is drawn).
    std::shared_ptr<const RegionPalette> palette = m_timeline->regionPalette();
    if (!timeline && capture)
        palette = RegionPalette::of(*capture);
    for (PlotFrame* frame : {m_histogram->frame(), m_gpuWall->totalsChart()->frame(), m_gpuWall->callScatter()->frame()})
        frame->setRegionPalette(palette);
    m_histogram->setCapture(capture, update);
    m_gpuWall->setCapture(capture, summary);
    m_spanTree->setCapture(capture, update);
    const bool gpuWork = capture && GpuView::hasGpuWork(*capture);
    m_gpuView->setCapture(capture, update);
    // The GPU page comes first where there is GPU work: a file opens on it, and a live
    // capture whose GPU work arrives after its first snapshot turns to it then, once.
    const bool gpuPage = m_pages->indexOf(m_gpuView) >= 0;
    if (gpuWork && !gpuPage) {
        m_pages->insertTab(0, m_gpuView, tr("GPU"));
        m_pages->setTabToolTip(0, tr("Utilization, launch latency, gaps and the critical path of each GPU"));
        m_pages->setCurrentIndex(0);
    } else if (!gpuWork && gpuPage) {
        m_pages->removeTab(m_pages->indexOf(m_gpuView));
        m_gpuView->setParent(this); // still owned, and hidden
        m_gpuView->hide();
    }
    m_model->setCapture(std::move(capture), std::move(summary));
    m_warnings->setWarnings(m_model->capture() ? m_model->capture()->warnings
                                               : std::vector<model::Warning>{});
    const int warningCount = m_warnings->count();
    m_sideTabs->setTabText(m_warningsTab,
                           warningCount ? tr("Warnings (%1)").arg(warningCount) : tr("Warnings"));
    m_sideTabs->setTabIcon(m_warningsTab, warningCount
                                              ? style()->standardIcon(QStyle::SP_MessageBoxWarning)
                                              : QIcon());
    m_warningsBadge->setText(countedText(uint64_t(warningCount), tr("warning"), tr("warnings")));
    m_warningsBadge->setVisible(warningCount > 0);
    m_summaryLabel->setText(summaryLine());
    m_metadataTable->resizeColumnToContents(MetadataModel::KeyColumn);
    m_metadataStack->setCurrentWidget(
        m_metadataModel->rowCount() > 0 ? static_cast<QWidget*>(m_metadataTable) : m_noMetadata);

    fillRankSelector(); // resets the table through applyRankSelection()
    fitLayout();        // lanes and rows came or went
    if (first) {
        m_table->sortByColumn(m_model->columnOf(RegionTableModel::Column::Total),
                              Qt::DescendingOrder);
        // A live capture's warnings change as it grows (ranges still open): no jumping there.
        if (warningCount > 0 && !update)
            showWarnings();
    }
    if (selectedName) {
        for (int row = 0; row < m_model->rowCount(); ++row)
            if (m_model->regionName(row) == *selectedName) {
                m_table->setCurrentIndex(m_proxy->mapFromSource(m_model->index(row, 0)));
                return;
            }
    }
    if (m_proxy->rowCount() > 0)
        m_table->setCurrentIndex(m_proxy->index(0, 0));
}

QString CaptureView::summaryLine() const
{
    const auto& capture = m_model->capture();
    if (!capture)
        return {};
    QStringList parts;
    const model::MetadataValue* source = model::findMetadata(capture->metadata, "source");
    const model::MetadataValue* format = model::findMetadata(capture->metadata, "format");
    if (source && source->text == "spanscope-collector")
        parts << (capture->gpuActivities.empty() ? tr("NVTX capture") : tr("NVTX and CUDA capture"));
    else if (capture->schema == 0 && format)
        parts << QString::fromStdString(format->text); // an imported trace
    else
        parts << tr("Schema %1").arg(capture->schema)
              << tr("%1 layout").arg(QString::fromLatin1(model::storageLayoutName(capture->layout)));
    parts << countedText(capture->ranks.size(), tr("rank"), tr("ranks"))
          << countedText(capture->regionNames.size(), tr("region"), tr("regions"));
    if (capture->eventDataAvailable)
        parts << countedText(capture->callCount(), tr("call"), tr("calls"));
    else
        parts << tr("totals only, no per-call data");
    if (capture->events.hasGpu())
        parts << tr("GPU times");
    if (capture->events.hasThreads() || (capture->schema == 0 && !capture->threads.empty()))
        parts << countedText(capture->threads.size(), tr("thread"), tr("threads"));
    uint64_t kernels = 0;
    for (const auto& row : capture->rows)
        if (capture->regionKind(row.region) == model::RegionKind::Kernel)
            kernels += row.count;
    if (kernels)
        parts << countedText(kernels, tr("kernel"), tr("kernels"));
    if (!capture->allocations.empty())
        parts << countedText(capture->allocations.size(), tr("allocation event"), tr("allocation events"));
    return parts.join(QStringLiteral("  \u00b7  "));
}

void CaptureView::fillRankSelector()
{
    const QVariant previous = m_rankSelector->currentData();
    const QSignalBlocker blocker(m_rankSelector);
    m_rankSelector->clear();
    m_rankSelector->addItem(tr("All ranks (pooled)"), kPooledItem);
    if (const auto& capture = m_model->capture(); capture && capture->ranks.size() > 1)
        m_rankSelector->addItem(tr("All ranks (per rank)"), kPerRankItem);
    if (const auto& capture = m_model->capture())
        for (const int32_t rank : capture->ranks)
            m_rankSelector->addItem(tr("Rank %1").arg(rank), rank);
    const int index = previous.isValid() ? m_rankSelector->findData(previous) : -1;
    m_rankSelector->setCurrentIndex(index >= 0 ? index : 0);
    applyRankSelection();
}

void CaptureView::applyRankSelection()
{
    const QModelIndex current = m_proxy->mapToSource(m_table->currentIndex());
    std::optional<uint32_t> region, row;
    if (current.isValid()) {
        region = m_model->entry(current.row()).region;
        row = m_model->entry(current.row()).row;
    }
    // Sort by the same figure afterwards, although its column number may change.
    QHeaderView* header = m_table->horizontalHeader();
    const int sortSection = header->sortIndicatorSection();
    const Qt::SortOrder sortOrder = header->sortIndicatorOrder();
    std::optional<RegionTableModel::Column> sortKind;
    if (sortSection >= 0 && sortSection < m_model->columnCount())
        sortKind = m_model->columnKind(sortSection);

    const int data = m_rankSelector->currentData().toInt();
    m_model->setRankSelection(data == kPooledItem    ? RankSelection::pooled()
                              : data == kPerRankItem ? RankSelection::perRank()
                                                     : RankSelection::single(data));
    m_gpuWall->setTotalsRank(data >= 0 ? std::optional<int32_t>(data) : std::nullopt);
    if (sortKind && m_model->columnOf(*sortKind) >= 0)
        m_table->sortByColumn(m_model->columnOf(*sortKind), sortOrder);
    // Columns come and go with the selection: fit them again, the name taking what is left.
    header->setSectionResizeMode(QHeaderView::Interactive);
    m_table->resizeColumnsToContents();
    for (int column = 1; column < m_model->columnCount(); ++column)
        header->resizeSection(column, std::max(header->sectionSize(column) + 16, 72));
    header->setSectionResizeMode(0, QHeaderView::Stretch);
    if (region)
        restoreSelection(*region, row);
    else
        clearRegion();
}

void CaptureView::restoreSelection(uint32_t region, std::optional<uint32_t> row)
{
    int found = m_model->findEntry(region, row);
    if (found < 0)
        found = m_model->findEntry(region, std::nullopt);
    const QModelIndex index =
        found >= 0 ? m_proxy->mapFromSource(m_model->index(found, 0)) : QModelIndex();
    if (index.isValid()) {
        m_table->setCurrentIndex(index);
        m_table->scrollTo(index);
    } else {
        clearRegion();
    }
}

void CaptureView::applyFilter(const QString& text)
{
    m_proxy->setFilterText(text);
    // The timeline dims the calls of regions the filter hides.
    m_timeline->setSearchPattern(text.isEmpty() ? QRegularExpression() : m_proxy->filterRegularExpression());
    m_previousCall->setEnabled(!text.isEmpty());
    m_nextCall->setEnabled(!text.isEmpty());
    m_filter->setToolTip(m_proxy->filterIsRegularExpression()
                             ? tr("Shows regions whose name matches (case-insensitive regular "
                                  "expression; plain text works too)")
                             : tr("Not a valid regular expression: matching it as plain text"));
    if (!m_table->currentIndex().isValid() && m_proxy->rowCount() > 0)
        m_table->setCurrentIndex(m_proxy->index(0, 0));
    else if (m_proxy->rowCount() == 0)
        clearRegion();
}

void CaptureView::updateMatchCount()
{
    const int shown = m_proxy->rowCount(), total = m_model->rowCount();
    const bool pooled = m_model->rankSelection().mode == RankSelection::Mode::Pooled;
    m_matchCount->setText(shown == total
                              ? pooled ? countedText(uint64_t(total), tr("region"), tr("regions"))
                                       : countedText(uint64_t(total), tr("row"), tr("rows"))
                              : tr("%1 of %2").arg(shown).arg(total));
}

void CaptureView::showCurrentRegion()
{
    const QModelIndex current = m_proxy->mapToSource(m_table->currentIndex());
    if (!current.isValid()) {
        clearRegion();
        return;
    }
    const int row = current.row();
    const auto& entry = m_model->entry(row);
    std::optional<int32_t> rank;
    if (entry.row)
        rank = m_model->capture()->rows[*entry.row].rank;
    m_details->showRegion(entry.region, m_model->captureRows(row), m_model->stats(row), rank);
    m_histogram->showRegion(entry.region, m_model->captureRows(row), rank);
    m_gpuWall->showRegion(entry.region, m_model->captureRows(row), rank);
    m_allocations->showRegion(entry.region, m_model->captureRows(row));
    m_timeline->setHighlightRegion(int(entry.region));
}

void CaptureView::clearRegion()
{
    m_details->clearRegion();
    m_histogram->clearRegion();
    m_gpuWall->clearRegion();
    m_allocations->clearRegion();
}

void CaptureView::selectRegionOfCall(quint32 event)
{
    const auto& capture = m_model->capture();
    if (!capture || event >= capture->events.size())
        return;
    // The row holding the call.
    for (uint32_t r = 0; r < capture->rows.size(); ++r) {
        const auto& row = capture->rows[r];
        if (capture->rowEvents(row).contains(event)) {
            restoreSelection(row.region, r);
            return;
        }
    }
}

void CaptureView::showCall(quint32 event, bool reveal)
{
    if (reveal)
        m_timeline->selectEvent(event, true);
    const bool first = !m_callDetails->call();
    m_callDetails->showCall(event);
    selectRegionOfCall(event);
    if (first)
        fitLayout(); // the call's pane had little room while empty
}

void CaptureView::findCall(bool forward)
{
    if (m_filter->text().isEmpty())
        return;
    if (!m_timeline->findNext(forward))
        m_matchCount->setText(forward ? tr("no later call") : tr("no earlier call"));
}

void CaptureView::focusFilter()
{
    showRegionsPage(); // Ctrl+F filters the region table
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
}

void CaptureView::setKernelClasses(const model::analysis::KernelClasses& classes)
{
    m_gpuView->setKernelClasses(classes);
}

void CaptureView::showRegionsPage()
{
    m_pages->setCurrentWidget(m_mainSplitter);
}

void CaptureView::showWarnings()
{
    showRegionsPage();
    m_sideTabs->setCurrentIndex(m_warningsTab);
}

void CaptureView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitLayout();
}

void CaptureView::fitLayout()
{
    if (m_userSized || height() <= 0)
        return;
    // Timeline: every lane if that takes at most about half, at least kMinTimelineHeight.
    const int handle = m_verticalSplitter->handleWidth();
    const int total = m_verticalSplitter->height() - handle;
    int timeline = 0;
    if (!m_timeline->isHidden()) {
        // Half at most; less in a short window, where the table and plots need the room.
        const int most = total * (total < 640 ? 40 : 50) / 100;
        m_timeline->setFitHeight(most); // a GPU-first layout folds lanes to fit it
        timeline = std::clamp(m_timeline->fullHeight(), std::min(kMinTimelineHeight, most), most);
        // GPU first: every device's streams and the busiest thread stay in view, folded,
        // even where that takes more (up to 60 %: the GPU page under it keeps the rest).
        timeline = std::max(timeline, std::min(m_timeline->essentialHeight(), total * 60 / 100));
    }
    const int bottom = total - timeline;
    m_verticalSplitter->setSizes({timeline, bottom});
    // Region table: its rows, while the tabs keep kMinPlotHeight (or half when short).
    const int leftTotal = bottom - m_leftSplitter->handleWidth();
    const int rowHeight = m_table->verticalHeader()->defaultSectionSize();
    const int chrome = m_filter->sizeHint().height() + m_leftSplitter->widget(0)->layout()->spacing()
                       + m_table->horizontalHeader()->sizeHint().height() + 2 * m_table->frameWidth();
    const int tableWanted = chrome + rowHeight * std::max(6, m_proxy->rowCount()) + 4;
    const int plots = std::max(std::min(kMinPlotHeight, leftTotal / 2), leftTotal - tableWanted);
    m_leftSplitter->setSizes({leftTotal - plots, plots});
    // Details: the region's figures, and the selected call as much room once there is one.
    const int detailsTotal = m_detailsSplitter->height() - m_detailsSplitter->handleWidth();
    const int call = m_callDetails->call() ? detailsTotal / 2 : std::min(detailsTotal / 4, 120);
    m_detailsSplitter->setSizes({detailsTotal - call, call});
}

QByteArray CaptureView::saveLayoutState() const
{
    if (!m_userSized)
        return {};
    QByteArray state;
    QDataStream stream(&state, QIODevice::WriteOnly);
    stream << kLayoutStateVersion << m_mainSplitter->saveState() << m_leftSplitter->saveState()
           << m_verticalSplitter->saveState() << m_detailsSplitter->saveState();
    return state;
}

bool CaptureView::restoreLayoutState(const QByteArray& state)
{
    QDataStream stream(state);
    quint32 version = 0;
    QByteArray mainState, sideState, verticalState, detailsState;
    stream >> version >> mainState >> sideState >> verticalState >> detailsState;
    if (stream.status() != QDataStream::Ok || version != kLayoutStateVersion)
        return false;
    m_userSized = m_mainSplitter->restoreState(mainState) && m_leftSplitter->restoreState(sideState)
                  && m_verticalSplitter->restoreState(verticalState) && m_detailsSplitter->restoreState(detailsState);
    return m_userSized;
}

} // namespace spanscope::views
