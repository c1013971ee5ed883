#include "region_details_widget.h"

#include "display_text.h"
#include "model/stats/capture_summary.h"
#include "model/stats/percentile.h"
#include "region_table_model.h"
#include "thread_breakdown_model.h"
#include "wheel_guard.h"

#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QFutureWatcher>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QStackedLayout>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

namespace spanscope::views {

using Field = RegionDetailsWidget::Field;

namespace {

QGridLayout* addGroup(QVBoxLayout* parent, const QString& title, QGroupBox** box = nullptr)
{
    auto* group = new QGroupBox(title);
    auto* grid = new QGridLayout(group);
    grid->setHorizontalSpacing(12);
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);
    parent->addWidget(group);
    if (box)
        *box = group;
    return grid;
}

// "+1.23 ms" after the capture's first call; the raw clock value goes in the tooltip.
QString offsetText(int64_t ns, int64_t origin)
{
    return QStringLiteral("+") + durationText(double(ns - origin));
}

QString selectRegionText()
{
    return RegionDetailsWidget::tr("Select a region in the table to see all of its statistics.");
}

} // namespace

RegionDetailsWidget::RegionDetailsWidget(QWidget* parent) : QWidget(parent)
{
    m_stack = new QStackedLayout(this);

    auto* noRegion = new QLabel(selectRegionText());
    noRegion->setObjectName(QStringLiteral("detailsNoRegion"));
    m_noRegion = noRegion;
    noRegion->setAlignment(Qt::AlignCenter);
    noRegion->setWordWrap(true);
    noRegion->setEnabled(false);
    m_stack->addWidget(noRegion);

    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    scroll->setWidget(content);
    m_stack->addWidget(scroll);

    m_title = new QLabel;
    m_title->setObjectName(QStringLiteral("regionTitle"));
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.3);
    m_title->setFont(titleFont);
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_title);
    m_scope = new QLabel;
    m_scope->setEnabled(false);
    layout->addWidget(m_scope);
    m_summaryOnlyBanner = new QLabel(
        tr("<b>Summary only:</b> per-call data unavailable (aggregate file). The file stores "
           "totals per region and rank, so percentiles, spread and time span cannot be shown."));
    m_summaryOnlyBanner->setObjectName(QStringLiteral("summaryOnlyBanner"));
    m_summaryOnlyBanner->setWordWrap(true);
    m_summaryOnlyBanner->setStyleSheet(QStringLiteral(
        "QLabel { background: palette(alternate-base); border: 1px solid palette(mid);"
        " border-radius: 3px; padding: 6px; }"));
    layout->addWidget(m_summaryOnlyBanner);

    QGridLayout* grid = addGroup(layout, tr("Calls and durations"));
    addField(grid, 0, 0, Field::Calls, tr("Calls"),
             tr("Every recorded call, unclosed ones included"));
    addField(grid, 0, 1, Field::Unclosed, tr("Unclosed"),
             tr("Calls that never ended; they take no part in the durations"));
    addField(grid, 1, 0, Field::Total, tr("Total"), tr("Inclusive time: sum of closed calls"));
    addField(grid, 1, 1, Field::Exclusive, tr("Exclusive"),
             tr("Time in the region itself, nested regions excluded"));
    addField(grid, 2, 0, Field::Mean, tr("Mean"));
    addField(grid, 2, 1, Field::StdDev, tr("Std dev"), tr("Population standard deviation"));
    addField(grid, 3, 0, Field::Minimum, tr("Minimum"));
    addField(grid, 3, 1, Field::Maximum, tr("Maximum"));
    addField(grid, 4, 0, Field::First, tr("First call"), tr("Duration of the earliest call"));
    addField(grid, 4, 1, Field::Last, tr("Last call"), tr("Duration of the call that ended last"));
    addField(grid, 5, 0, Field::Imbalance, tr("Imbalance"),
             tr("Pooled over ranks only: (largest rank total / mean rank total - 1) x 100"));

    grid = addGroup(layout, tr("Percentiles"));
    addField(grid, 0, 0, Field::P50, tr("p50"), tr("Median call duration"));
    addField(grid, 0, 1, Field::P95, tr("p95"));
    addField(grid, 1, 0, Field::P99, tr("p99"));
    m_percentileSpin = new QDoubleSpinBox;
    m_percentileSpin->setObjectName(QStringLiteral("customPercentile"));
    takeWheelOnlyWhenFocused(m_percentileSpin); // the details pane scrolls
    m_percentileSpin->setRange(0.0, 100.0);
    m_percentileSpin->setDecimals(2);
    m_percentileSpin->setSingleStep(0.5);
    m_percentileSpin->setValue(99.9);
    m_percentileSpin->setPrefix(QStringLiteral("p"));
    m_percentileSpin->setToolTip(tr("Any percentile of the call durations (linear interpolation)"));
    auto* custom = new QLabel;
    custom->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_values[size_t(Field::CustomPercentile)] = custom;
    grid->addWidget(m_percentileSpin, 1, 2);
    grid->addWidget(custom, 1, 3);
    connect(m_percentileSpin, &QDoubleSpinBox::valueChanged, this,
            &RegionDetailsWidget::updateCustomPercentile);

    grid = addGroup(layout, tr("Time span"));
    addField(grid, 0, 0, Field::StartMin, tr("First start"),
             tr("Earliest start of a closed call, from the capture's first call"));
    addField(grid, 0, 1, Field::EndMax, tr("Last end"),
             tr("Latest end of a closed call, from the capture's first call"));

    grid = addGroup(layout, tr("GPU and waiting"));
    addField(grid, 0, 0, Field::GpuCalls, tr("GPU calls"), tr("Calls with a device time"));
    addField(grid, 0, 1, Field::GpuTotal, tr("GPU total"));
    addField(grid, 1, 0, Field::GpuMean, tr("GPU mean"));
    addField(grid, 1, 1, Field::AwaitTotal, tr("Await total"),
             tr("Time the calls' async task was suspended inside them"));

    grid = addGroup(layout, tr("Source"));
    auto* fileLabel = new QLabel(tr("File"));
    fileLabel->setEnabled(false);
    grid->addWidget(fileLabel, 0, 0);
    m_sourceFile = new QLineEdit;
    m_sourceFile->setObjectName(QStringLiteral("sourceFile"));
    m_sourceFile->setReadOnly(true);
    m_sourceFile->setFrame(false);
    m_sourceFile->setStyleSheet(QStringLiteral("QLineEdit { background: transparent; }"));
    grid->addWidget(m_sourceFile, 0, 1, 1, 3);
    addField(grid, 1, 0, Field::SourceLine, tr("Line"));
    addField(grid, 1, 1, Field::Tags, tr("Tags"));
    m_sourceText = new QPlainTextEdit;
    m_sourceText->setObjectName(QStringLiteral("sourceText"));
    m_sourceText->setReadOnly(true);
    m_sourceText->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_sourceText->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_sourceText->setPlaceholderText(tr("No source text recorded"));
    m_sourceText->setFixedHeight(m_sourceText->fontMetrics().lineSpacing() * 4 + 12);
    grid->addWidget(m_sourceText, 2, 0, 1, 4);

    auto* threadsGrid = addGroup(layout, tr("Per thread"), &m_threadsGroup);
    m_threadsModel = new ThreadBreakdownModel(this);
    auto* threadsProxy = new QSortFilterProxyModel(this);
    threadsProxy->setSourceModel(m_threadsModel);
    threadsProxy->setSortRole(RegionTableModel::SortRole);
    m_threadsTable = new QTableView;
    m_threadsTable->setObjectName(QStringLiteral("threadBreakdown"));
    m_threadsTable->setModel(threadsProxy);
    m_threadsTable->setSortingEnabled(true);
    m_threadsTable->sortByColumn(ThreadBreakdownModel::TotalColumn, Qt::DescendingOrder);
    m_threadsTable->verticalHeader()->hide();
    m_threadsTable->setAlternatingRowColors(true);
    m_threadsTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_threadsTable->horizontalHeader()->setSectionResizeMode(ThreadBreakdownModel::ThreadColumn,
                                                             QHeaderView::Stretch);
    m_threadsTable->verticalHeader()->setDefaultSectionSize(m_threadsTable->fontMetrics().height() +
                                                            8);
    threadsGrid->addWidget(m_threadsTable, 0, 0, 1, 4);

    layout->addStretch(1);
    clearRegion();
}

RegionDetailsWidget::~RegionDetailsWidget() = default;

QLabel* RegionDetailsWidget::addField(QGridLayout* grid, int row, int column, Field field,
                                      const QString& label, const QString& toolTip)
{
    auto* name = new QLabel(label);
    name->setEnabled(false); // muted: the value is what matters
    name->setToolTip(toolTip);
    auto* value = new QLabel;
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    grid->addWidget(name, row, column * 2);
    grid->addWidget(value, row, column * 2 + 1);
    m_values[size_t(field)] = value;
    return value;
}

void RegionDetailsWidget::setField(Field field, const QString& text, const QString& toolTip)
{
    QLabel* label = m_values[size_t(field)];
    label->setText(text);
    label->setToolTip(toolTip);
}

void RegionDetailsWidget::setCapture(std::shared_ptr<const model::Capture> capture,
                                     std::optional<int64_t> origin)
{
    m_capture = std::move(capture);
    m_origin = origin.value_or(0);
    if (!origin && m_capture && !m_capture->events.start.empty())
        m_origin =
            *std::min_element(m_capture->events.start.begin(), m_capture->events.start.end());
    m_threadsGroup->setVisible(m_capture && m_capture->events.hasThreads());
    // A file without calls has no region to select: say so rather than ask for one.
    m_noRegion->setText(m_capture && m_capture->events.size() == 0
                               ? tr("This file has no calls: no region has statistics to show.")
                               : selectRegionText());
    clearRegion();
}

QString RegionDetailsWidget::noRegionText() const
{
    return m_noRegion->text();
}

void RegionDetailsWidget::clearRegion()
{
    m_hasRegion = false;
    m_detailJob.cancel(); // a detail still computing is for a selection that is gone
    m_rows.clear();
    m_sortedDurations.clear();
    m_durationsReady = false;
    m_threadsModel->setBreakdown({});
    m_stack->setCurrentIndex(0);
}

QString RegionDetailsWidget::regionTitle() const
{
    return m_hasRegion ? m_title->text() : QString();
}

QString RegionDetailsWidget::fieldText(Field field) const
{
    return m_values[size_t(field)]->text();
}

void RegionDetailsWidget::setCustomPercentile(double p)
{
    m_percentileSpin->setValue(p);
}

void RegionDetailsWidget::showRegion(uint32_t region, std::span<const uint32_t> rows,
                                     const model::RegionStats& stats, std::optional<int32_t> rank)
{
    if (!m_capture)
        return;
    m_hasRegion = true;
    m_rows.assign(rows.begin(), rows.end());
    m_stats = stats;
    m_sortedDurations.clear();
    m_durationsReady = false;
    const auto& s = m_stats;
    const bool perCall = !s.summaryOnly;
    const bool anyClosed = perCall && s.closedCalls() > 0;

    const QString name = QString::fromStdString(m_capture->regionName(region));
    m_title->setText(elidedName(name));
    m_title->setToolTip(name.size() > 120 ? name : QString());
    if (rank)
        m_scope->setText(tr("Rank %1").arg(*rank));
    else if (m_rows.size() == 1)
        m_scope->setText(tr("Rank %1 only").arg(m_capture->rows[m_rows.front()].rank));
    else
        m_scope->setText(
            tr("Pooled over %1").arg(countedText(m_rows.size(), tr("rank"), tr("ranks"))));
    m_summaryOnlyBanner->setVisible(s.summaryOnly);

    setField(Field::Calls, countText(s.calls));
    setField(Field::Unclosed, perCall ? countText(s.unclosed) : kMissingText);
    setField(Field::Total, durationText(double(s.total)), exactNsText(s.total));
    setField(Field::Mean, durationText(s.mean), exactNsText(s.mean));
    const bool extremes = s.calls > 0 && (anyClosed || s.summaryOnly);
    setField(Field::Minimum, extremes ? durationText(double(s.minimum)) : kMissingText,
             extremes ? exactNsText(s.minimum) : QString());
    setField(Field::Maximum, extremes ? durationText(double(s.maximum)) : kMissingText,
             extremes ? exactNsText(s.maximum) : QString());
    setField(Field::First, anyClosed ? durationText(double(s.first)) : kMissingText,
             anyClosed ? exactNsText(s.first) : QString());
    setField(Field::Last, anyClosed ? durationText(double(s.last)) : kMissingText,
             anyClosed ? exactNsText(s.last) : QString());
    setField(Field::StdDev, durationText(s.stddev), exactNsText(s.stddev));
    setField(Field::Exclusive, durationText(s.exclusive), exactNsText(s.exclusive));
    setField(Field::Imbalance, rank ? kMissingText : percentText(s.imbalancePercent),
             rank ? tr("Only defined when pooled over ranks") : QString());
    setField(Field::P50, durationText(s.p50), exactNsText(s.p50));
    setField(Field::P95, durationText(s.p95), exactNsText(s.p95));
    setField(Field::P99, durationText(s.p99), exactNsText(s.p99));

    const QString rawClock = tr("%1 on the writer's clock");
    setField(Field::StartMin, anyClosed ? offsetText(s.startMin, m_origin) : kMissingText,
             anyClosed ? rawClock.arg(exactNsText(s.startMin)) : QString());
    setField(Field::EndMax, anyClosed ? offsetText(s.endMax, m_origin) : kMissingText,
             anyClosed ? rawClock.arg(exactNsText(s.endMax)) : QString());

    const QString noGpu = tr("No GPU time recorded for these calls");
    setField(Field::GpuCalls, s.gpuCalls ? countText(*s.gpuCalls) : kMissingText,
             s.gpuCalls ? QString() : noGpu);
    setField(Field::GpuTotal, durationText(s.gpuTotal),
             s.gpuTotal ? exactNsText(*s.gpuTotal) : noGpu);
    setField(Field::GpuMean, durationText(s.gpuMean()),
             s.gpuMean() ? exactNsText(*s.gpuMean()) : noGpu);
    setField(Field::AwaitTotal, durationText(s.awaitTotal),
             s.awaitTotal ? exactNsText(*s.awaitTotal) : tr("The file records no await time"));

    m_percentileSpin->setEnabled(anyClosed);
    showSource();
    requestSelectionDetail();
    m_stack->setCurrentIndex(1);
}

void RegionDetailsWidget::showSource()
{
    // Ranks normally agree on where a region is; the first row that knows wins.
    const model::RegionRow* source = nullptr;
    std::vector<model::NameId> tags;
    for (const uint32_t r : m_rows) {
        const auto& row = m_capture->rows[r];
        if (!source && (row.sourceFile.value || row.sourceText.value || row.sourceLine >= 0))
            source = &row;
        for (const auto tag : row.tags)
            if (std::find(tags.begin(), tags.end(), tag) == tags.end())
                tags.push_back(tag);
    }
    const auto text = [this](model::NameId id) {
        return QString::fromStdString(m_capture->strings.text(id));
    };
    const QString file = source && source->sourceFile.value ? text(source->sourceFile) : QString();
    m_sourceFile->setText(file.isEmpty() ? kMissingText : file);
    m_sourceFile->setToolTip(file);
    m_sourceFile->setCursorPosition(0);
    setField(Field::SourceLine, source && source->sourceLine >= 0
                                    ? QString::number(source->sourceLine)
                                    : kMissingText);
    m_sourceText->setPlainText(source && source->sourceText.value ? text(source->sourceText)
                                                                  : QString());
    QStringList tagTexts;
    for (const auto tag : tags)
        tagTexts << text(tag);
    setField(Field::Tags, tagTexts.isEmpty() ? kMissingText : tagTexts.join(QStringLiteral(", ")));
}

namespace {

// Above this many calls the selection's detail is computed on a worker.
constexpr uint64_t kSynchronousDetailCalls = 200'000;

SelectionDetail computeDetail(const model::Capture& capture, const std::vector<uint32_t>& rows,
                              bool durations, bool threads)
{
    SelectionDetail detail;
    if (durations) {
        detail.sortedDurations = model::closedDurations(capture, rows);
        std::sort(detail.sortedDurations.begin(), detail.sortedDurations.end());
    }
    if (threads)
        detail.threads = model::threadBreakdown(capture, rows);
    return detail;
}

} // namespace

void RegionDetailsWidget::requestSelectionDetail()
{
    m_detailJob.cancel();
    const bool durations = !m_stats.summaryOnly && m_stats.closedCalls() > 0;
    const bool threads = m_capture->events.hasThreads() && !m_stats.summaryOnly;
    if (m_stats.calls <= kSynchronousDetailCalls) {
        showSelectionDetail(computeDetail(*m_capture, m_rows, durations, threads));
        return;
    }
    setField(Field::CustomPercentile, tr("computing\u2026"));
    m_threadsModel->setBreakdown({});
    // The worker holds the capture (immutable) and its own copy of the rows.
    m_detailJob.run([capture = m_capture, rows = m_rows, durations,
                     threads] { return computeDetail(*capture, rows, durations, threads); },
                    [this](SelectionDetail detail) {
                        if (m_hasRegion)
                            showSelectionDetail(std::move(detail));
                    });
}

void RegionDetailsWidget::showSelectionDetail(SelectionDetail detail)
{
    m_sortedDurations = std::move(detail.sortedDurations);
    m_durationsReady = true;
    m_threadsModel->setBreakdown(std::move(detail.threads));
    m_threadsTable->resizeColumnsToContents();
    // As tall as its rows, up to kMaxVisibleThreads; the table scrolls beyond that.
    constexpr int kMaxVisibleThreads = 12;
    const int rows = std::clamp(m_threadsModel->rowCount(), 1, kMaxVisibleThreads);
    m_threadsTable->setFixedHeight(m_threadsTable->horizontalHeader()->sizeHint().height() +
                                   rows * m_threadsTable->verticalHeader()->defaultSectionSize() +
                                   2 * m_threadsTable->frameWidth());
    updateCustomPercentile();
}

void RegionDetailsWidget::updateCustomPercentile()
{
    if (!m_hasRegion)
        return;
    if (m_stats.summaryOnly || m_stats.closedCalls() == 0) {
        setField(Field::CustomPercentile, kMissingText);
        return;
    }
    if (!m_durationsReady)
        return; // the worker will call back with the durations
    const double value = model::percentileOfSorted(m_sortedDurations, m_percentileSpin->value());
    setField(Field::CustomPercentile, durationText(value), exactNsText(value));
}

} // namespace spanscope::views
