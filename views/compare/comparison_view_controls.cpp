// What ComparisonView's controls do: start a comparison for the current options, put the
// result in the table without losing the sort or the selected region, filter, and show
// the selected region in the histogram, the scaling plot and the timelines.

#include "comparison_job.h"
#include "comparison_table_model.h"
#include "comparison_view.h"

#include "gpu_comparison_panel.h"
#include "overlay_histogram.h"
#include "scaling_plot.h"
#include "synced_timelines.h"
#include "views/display_text.h"
#include "views/elided_label.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <algorithm>

namespace spanscope::views {

using Column = ComparisonTableModel::Column;

namespace {

// Room for the sort indicator beside a header's text, px.
constexpr int kHeaderPaddingPx = 6;
constexpr int kMinColumnWidthPx = 48;
// The region names take at most this share of the table's width (elided in the middle, whole
// in their tooltip), and never less than kMinNameColumnPx: a templated kernel's name is
// wider than the window, and the name column, frozen at the left edge, would hide every
// figure behind it.
constexpr double kMaxNameColumnShare = 0.4;
constexpr int kMinNameColumnPx = 160;

} // namespace

void ComparisonView::setRuns(std::vector<ComparedRun> runs)
{
    m_runs = std::move(runs);
    std::vector<HistogramRun> histogramRuns;
    std::vector<ScalingRun> scalingRuns;
    std::vector<TimelineRun> timelineRuns;
    for (const auto& run : m_runs) {
        histogramRuns.push_back({run.label, run.capture});
        scalingRuns.push_back({run.label, run.capture, run.summary});
        timelineRuns.push_back({run.label, run.capture, run.summary, run.timeline});
    }
    m_histogram->setRuns(std::move(histogramRuns));
    m_scaling->setRuns(std::move(scalingRuns));
    m_timelines->setRuns(std::move(timelineRuns));
    recompute();
}

void ComparisonView::setKernelClasses(const model::analysis::KernelClasses& classes)
{
    m_gpu->setKernelClasses(classes);
    recompute();
}

model::CompareOptions ComparisonView::options() const
{
    model::CompareOptions options;
    options.metric = model::CompareMetric(m_metric->currentData().toInt());
    options.thresholdPercent = m_threshold->value();
    options.perRank = m_perRank->isChecked();
    return options;
}

void ComparisonView::setOptions(const model::CompareOptions& options)
{
    {
        const QSignalBlocker metric(m_metric), threshold(m_threshold), perRank(m_perRank);
        m_metric->setCurrentIndex(m_metric->findData(int(options.metric)));
        m_threshold->setValue(options.thresholdPercent);
        m_perRank->setChecked(options.perRank);
    }
    recompute();
}

bool ComparisonView::isComputing() const
{
    return m_job->isRunning();
}

const std::shared_ptr<const model::Comparison>& ComparisonView::comparison() const
{
    return m_model->comparison();
}

void ComparisonView::recompute()
{
    if (m_runs.size() < 2)
        return;
    std::vector<ComparisonRun> runs;
    std::vector<QString> labels;
    std::vector<std::shared_ptr<const model::Capture>> captures;
    for (const auto& run : m_runs) {
        runs.push_back({run.label.toStdString(), run.capture, run.summary});
        labels.push_back(run.label);
        captures.push_back(run.capture);
    }
    m_job->start(std::move(runs), options());
    const bool gpu = GpuComparisonPanel::anyGpuWork(captures);
    const bool appears = gpu && !m_plotTabs->isTabVisible(m_gpuTab);
    m_plotTabs->setTabVisible(m_gpuTab, gpu);
    if (appears)
        m_plotTabs->setCurrentIndex(m_gpuTab); // runs with GPU work: their GPU figures first
    if (gpu)
        m_gpu->setRuns(std::move(labels), std::move(captures), options().perRank);
    updateStatus();
}

void ComparisonView::showComparison(std::shared_ptr<const model::Comparison> comparison)
{
    // Keep the selected region and the sort by the same figure across the reset.
    std::optional<std::pair<std::string, int32_t>> selected;
    if (const QModelIndex current = m_proxy->mapToSource(m_table->currentIndex());
        current.isValid())
        selected = std::make_pair(m_model->region(current.row()).name,
                                  m_model->region(current.row()).rank);
    QHeaderView* header = m_table->horizontalHeader();
    std::optional<ComparisonTableModel::ColumnInfo> sortBy;
    if (const int section = header->sortIndicatorSection();
        m_sorted && section >= 0 && section < m_model->columnCount())
        sortBy = m_model->columnInfo(section);
    const Qt::SortOrder order = header->sortIndicatorOrder();

    m_model->setComparison(std::move(comparison));
    if (!m_sorted) {
        // First look: the worst regressions of the first candidate on top.
        m_table->sortByColumn(m_model->columnOf(Column::Percent, 1), Qt::DescendingOrder);
        m_sorted = true;
    } else if (sortBy && m_model->columnOf(sortBy->kind, sortBy->run) >= 0) {
        m_table->sortByColumn(m_model->columnOf(sortBy->kind, sortBy->run), order);
    }

    header->setSectionResizeMode(QHeaderView::Interactive);
    m_table->resizeColumnsToContents();
    for (int column = 0; column < m_model->columnCount(); ++column)
        header->resizeSection(
            column, std::max(header->sectionSize(column) + kHeaderPaddingPx, kMinColumnWidthPx));
    const int nameCap = std::max(kMinNameColumnPx, int(m_table->viewport()->width() * kMaxNameColumnShare));
    if (header->sectionSize(0) > nameCap)
        header->resizeSection(0, nameCap);

    bool restored = false;
    if (selected) {
        const bool perRank = m_model->comparison()->options.perRank;
        // Pooled <-> per rank: the same region, on its first rank or pooled.
        restored = selectRegion(selected->first, perRank ? std::max(selected->second, 0) : -1);
        if (!restored && perRank)
            for (int row = 0; row < m_model->rowCount() && !restored; ++row)
                if (m_model->region(row).name == selected->first)
                    restored = selectRegion(selected->first, m_model->region(row).rank);
    }
    if (!restored && m_proxy->rowCount() > 0)
        m_table->setCurrentIndex(m_proxy->index(0, 0));
    showCurrentRegion(); // the plots follow even when the row index stayed the same
    updateStatus();
    fitLayout(); // the rows came or went
    emit comparisonShown();
}

bool ComparisonView::selectRegion(const std::string& name, int32_t rank)
{
    const int row = m_model->findRow(name, rank);
    const QModelIndex index =
        row >= 0 ? m_proxy->mapFromSource(m_model->index(row, 0)) : QModelIndex();
    if (!index.isValid())
        return false;
    m_table->setCurrentIndex(index);
    m_table->scrollTo(index);
    return true;
}

void ComparisonView::focusFilter()
{
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
}

void ComparisonView::applyFilter(const QString& text)
{
    m_proxy->setFilterText(text);
    m_filter->setToolTip(m_proxy->filterIsRegularExpression()
                             ? tr("Shows regions whose name matches (case-insensitive regular "
                                  "expression; plain text works too)")
                             : tr("Not a valid regular expression: matching it as plain text"));
    if (!m_table->currentIndex().isValid() && m_proxy->rowCount() > 0)
        m_table->setCurrentIndex(m_proxy->index(0, 0));
    updateStatus();
}

void ComparisonView::showCurrentRegion()
{
    const QModelIndex current = m_proxy->mapToSource(m_table->currentIndex());
    if (!current.isValid()) {
        m_histogram->clearRegion();
        m_scaling->setSelectedRegion({});
        m_timelines->setHighlightRegion({});
        return;
    }
    const auto& region = m_model->region(current.row());
    m_histogram->showRegion(region.name, region.kind, region.rank);
    m_scaling->setSelectedRegion(region.name);
    m_timelines->setHighlightRegion(region.name);
}

void ComparisonView::updateStatus()
{
    QStringList parts;
    if (!m_runs.empty())
        parts << tr("Baseline %1").arg(m_runs.front().label)
              << countedText(m_runs.size() - 1, tr("candidate"), tr("candidates"));
    if (const auto& comparison = m_model->comparison()) {
        uint64_t slower = 0, faster = 0, insufficient = 0;
        for (const auto& region : comparison->regions) {
            const auto has = [&](model::Verdict verdict) {
                return std::any_of(region.changes.begin(), region.changes.end(),
                                   [verdict](const auto& c) { return c.verdict == verdict; });
            };
            slower += has(model::Verdict::Slower);
            faster += has(model::Verdict::Faster);
            insufficient += has(model::Verdict::Insufficient);
        }
        const uint64_t lines = comparison->regions.size();
        const QString noun =
            comparison->options.perRank
                ? countedText(lines, tr("region on a rank"), tr("regions on ranks"))
                : countedText(lines, tr("region"), tr("regions"));
        parts << tr("%1: %2 slower, %3 faster").arg(noun).arg(slower).arg(faster);
        if (insufficient > 0)
            parts << tr("%1 with too few calls to test").arg(insufficient);
        if (m_proxy->rowCount() != int(lines))
            parts << tr("%1 shown").arg(m_proxy->rowCount());
    }
    if (isComputing())
        parts << tr("comparing\u2026");
    m_status->setText(parts.join(QStringLiteral("  \u00b7  ")));
}

} // namespace spanscope::views
