// ComparisonView's construction, layout and remembered splitter state. What the controls
// do (recomputing, filtering, following the selection) is in comparison_view_controls.cpp.

#include "comparison_view.h"

#include "gpu_comparison_panel.h"

#include "comparison_job.h"
#include "comparison_table_model.h"
#include "overlay_histogram.h"
#include "scaling_plot.h"
#include "synced_timelines.h"
#include "views/elided_label.h"
#include "views/frozen_column_table.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDataStream>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIODevice>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace spanscope::views {

namespace {

// Bumped whenever saveLayoutState() changes shape.
constexpr quint32 kLayoutStateVersion = 2; // 2: saved only once the user dragged
constexpr double kMaxThresholdPercent = 1000.0;

} // namespace

ComparisonView::ComparisonView(QWidget* parent) : QWidget(parent)
{
    m_job = new ComparisonJob(this);
    m_model = new ComparisonTableModel(this);
    m_proxy = new ComparisonFilterProxy(this);
    m_proxy->setSourceModel(m_model);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    m_status = new ElidedLabel; // never widens the window, however many runs it names
    m_status->setObjectName(QStringLiteral("comparisonStatus"));
    layout->addWidget(m_status);

    m_plotTabs = new QTabWidget;
    m_plotTabs->setDocumentMode(true);
    m_histogram = new OverlayHistogram;
    m_histogram->setObjectName(QStringLiteral("overlayHistogram"));
    m_plotTabs->addTab(m_histogram, tr("Histogram"));
    m_scaling = new ScalingPlot;
    m_scaling->setObjectName(QStringLiteral("scalingPlot"));
    m_plotTabs->addTab(m_scaling, tr("Scaling"));
    m_gpu = new GpuComparisonPanel;
    m_gpu->setObjectName(QStringLiteral("gpuComparison"));
    m_gpuTab = m_plotTabs->addTab(m_gpu, tr("GPU"));
    m_plotTabs->setTabToolTip(m_gpuTab, tr("Each run's GPU utilization, idle, launch latency and critical path"));
    m_plotTabs->setTabVisible(m_gpuTab, false);

    m_topSplitter = new QSplitter(Qt::Horizontal);
    m_topSplitter->addWidget(createTablePanel());
    m_topSplitter->addWidget(m_plotTabs);
    m_topSplitter->setStretchFactor(0, 3);
    m_topSplitter->setStretchFactor(1, 2);
    m_topSplitter->setChildrenCollapsible(false);
    m_topSplitter->setSizes({820, 540}); // the table has many columns; the plot a legend under it

    m_timelines = new SyncedTimelines;
    m_timelines->setObjectName(QStringLiteral("syncedTimelines"));
    m_verticalSplitter = new QSplitter(Qt::Vertical);
    m_verticalSplitter->addWidget(m_topSplitter);
    m_verticalSplitter->addWidget(m_timelines);
    m_verticalSplitter->setStretchFactor(0, 1);
    m_verticalSplitter->setStretchFactor(1, 1);
    m_verticalSplitter->setChildrenCollapsible(false);
    layout->addWidget(m_verticalSplitter, 1);

    connect(m_job, &ComparisonJob::finished, this, &ComparisonView::showComparison);
    connect(m_metric, &QComboBox::currentIndexChanged, this, &ComparisonView::recompute);
    connect(m_threshold, &QDoubleSpinBox::valueChanged, this, &ComparisonView::recompute);
    connect(m_perRank, &QCheckBox::toggled, this, &ComparisonView::recompute);
    connect(m_allFigures, &QCheckBox::toggled, this, [this](bool on) { m_model->setAllFigures(on); });
    connect(m_filter, &QLineEdit::textChanged, this, &ComparisonView::applyFilter);
    connect(m_verdictFilter, &QComboBox::currentIndexChanged, this, [this] {
        m_proxy->setVerdictFilter(VerdictFilter(m_verdictFilter->currentData().toInt()));
        updateStatus();
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ComparisonView::showCurrentRegion);
    // splitterMoved comes from the user's drags only: from then on the layout is theirs.
    for (QSplitter* splitter : {m_topSplitter, m_verticalSplitter})
        connect(splitter, &QSplitter::splitterMoved, this, [this] {
            m_userSized = true;
            emit layoutStateChanged();
        });
}

ComparisonView::~ComparisonView() = default;

QWidget* ComparisonView::createTablePanel()
{
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* options = new QHBoxLayout;
    m_metric = new QComboBox;
    m_metric->setObjectName(QStringLiteral("compareMetric"));
    for (const auto metric : model::kCompareMetrics)
        m_metric->addItem(QString::fromLatin1(model::metricName(metric)), int(metric));
    m_metric->setToolTip(tr("The figure compared: mean duration, median, 95th percentile or "
                            "total time of a region's calls, or allocations or bytes per call "
                            "(captures recorded with Count allocations)"));
    m_threshold = new QDoubleSpinBox;
    m_threshold->setObjectName(QStringLiteral("compareThreshold"));
    m_threshold->setRange(0.0, kMaxThresholdPercent);
    m_threshold->setDecimals(1);
    m_threshold->setSingleStep(1.0);
    m_threshold->setValue(model::CompareOptions{}.thresholdPercent);
    m_threshold->setSuffix(QStringLiteral(" %"));
    m_threshold->setKeyboardTracking(false); // one recomputation per typed value, not per key
    m_threshold->setToolTip(tr("Smaller relative changes count as noise, whatever the test says"));
    m_perRank = new QCheckBox(tr("Per rank"));
    m_perRank->setObjectName(QStringLiteral("comparePerRank"));
    m_perRank->setToolTip(tr("Match each region on each rank instead of pooling the ranks"));
    options->addWidget(new QLabel(tr("Metric")));
    options->addWidget(m_metric);
    options->addSpacing(8);
    options->addWidget(new QLabel(tr("Threshold")));
    options->addWidget(m_threshold);
    options->addSpacing(8);
    options->addWidget(m_perRank);
    m_allFigures = new QCheckBox(tr("All figures"));
    m_allFigures->setObjectName(QStringLiteral("compareAllFigures"));
    m_allFigures->setToolTip(tr("Also show each run's calls, total, mean, p50, p95, exclusive and GPU time"));
    options->addSpacing(8);
    options->addWidget(m_allFigures);
    options->addStretch(1);
    layout->addLayout(options);

    auto* filters = new QHBoxLayout;
    m_filter = new QLineEdit;
    m_filter->setObjectName(QStringLiteral("compareFilter"));
    m_filter->setPlaceholderText(tr("Filter regions (text or regular expression)  Ctrl+F"));
    m_filter->setClearButtonEnabled(true);
    m_verdictFilter = new QComboBox;
    m_verdictFilter->setObjectName(QStringLiteral("verdictFilter"));
    m_verdictFilter->addItem(tr("All regions"), int(VerdictFilter::All));
    m_verdictFilter->addItem(tr("Changed only"), int(VerdictFilter::Changed));
    m_verdictFilter->addItem(tr("Slower"), int(VerdictFilter::Slower));
    m_verdictFilter->addItem(tr("Faster"), int(VerdictFilter::Faster));
    m_verdictFilter->addItem(tr("Too few calls"), int(VerdictFilter::Insufficient));
    m_verdictFilter->setToolTip(tr("Show only regions that got slower or faster (beyond the "
                                   "threshold and significant) in some candidate run"));
    filters->addWidget(m_filter, 1);
    filters->addWidget(m_verdictFilter);
    layout->addLayout(filters);

    // The Region column stays put while the runs' columns scroll sideways.
    m_table = new FrozenColumnTableView;
    m_table->setObjectName(QStringLiteral("comparisonTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    m_table->horizontalHeader()->setHighlightSections(false);
    m_table->horizontalHeader()->setSortIndicatorShown(true);
    m_table->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_table, 1);
    return panel;
}

void ComparisonView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitLayout();
}

void ComparisonView::fitLayout()
{
    if (m_userSized || height() <= 0)
        return;
    const int total = m_verticalSplitter->height() - m_verticalSplitter->handleWidth();
    // The table's rows (six at least), and never less than a readable plot with its legend.
    const int rowHeight = m_table->verticalHeader()->defaultSectionSize();
    const int chrome = m_topSplitter->widget(0)->sizeHint().height() - m_table->sizeHint().height()
                       + m_table->horizontalHeader()->sizeHint().height() + 2 * m_table->frameWidth()
                       + m_table->horizontalScrollBar()->sizeHint().height();
    const int wanted = std::max(chrome + rowHeight * std::max(6, m_proxy->rowCount()), 300);
    const int top = std::min(wanted, total * 45 / 100);
    m_verticalSplitter->setSizes({top, total - top});
}

QByteArray ComparisonView::saveLayoutState() const
{
    if (!m_userSized)
        return {};
    QByteArray state;
    QDataStream stream(&state, QIODevice::WriteOnly);
    stream << kLayoutStateVersion << m_topSplitter->saveState() << m_verticalSplitter->saveState();
    return state;
}

bool ComparisonView::restoreLayoutState(const QByteArray& state)
{
    QDataStream stream(state);
    quint32 version = 0;
    QByteArray top, vertical;
    stream >> version >> top >> vertical;
    if (stream.status() != QDataStream::Ok || version != kLayoutStateVersion)
        return false;
    m_userSized = m_topSplitter->restoreState(top) && m_verticalSplitter->restoreState(vertical);
    return m_userSized;
}

} // namespace spanscope::views
