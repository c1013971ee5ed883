#include "gpu_comparison_panel.h"

#include "views/display_text.h"
#include "views/gpu/gpu_view.h"
#include "views/latest_job.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace spanscope::views {

using model::analysis::CriticalPath;
using model::analysis::GpuComparison;
using model::analysis::GpuRunFigures;
using model::analysis::PathShare;

namespace {

QTableWidget* createTable(const QStringList& header, const QString& name)
{
    auto* table = new QTableWidget(0, int(header.size()));
    table->setObjectName(name);
    table->setHorizontalHeaderLabels(header);
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setAlternatingRowColors(true);
    table->horizontalHeader()->setStretchLastSection(true);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    return table;
}

double share(int64_t part, int64_t whole)
{
    return whole > 0 ? double(part) / double(whole) : 0.0;
}

QString percent(double fraction)
{
    return QString::number(100.0 * fraction, 'f', 1) + QStringLiteral(" %");
}

// A difference cell: signed, red when worse (higher is worse for every figure shown).
QTableWidgetItem* difference(const QString& text, double delta)
{
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (delta > 0)
        item->setForeground(QColor(200, 40, 40));
    else if (delta < 0)
        item->setForeground(QColor(30, 140, 60));
    return item;
}

QTableWidgetItem* cell(const QString& text, bool left = false)
{
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment((left ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    return item;
}

QString signedPoints(double delta)
{
    return (delta >= 0 ? QStringLiteral("+") : QString()) + QString::number(100.0 * delta, 'f', 1) + QStringLiteral(" pt");
}

QString signedDuration(int64_t ns)
{
    return (ns > 0 ? QStringLiteral("+") : ns < 0 ? QStringLiteral("−") : QString()) + durationText(double(std::llabs(ns)));
}

} // namespace

GpuComparisonPanel::GpuComparisonPanel(QWidget* parent) : QWidget(parent), m_job(new LatestJob(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    m_message = new QLabel;
    m_message->setWordWrap(true);
    layout->addWidget(m_message);
    layout->addWidget(new QLabel(tr("<b>Devices</b> (differences against the baseline)")));
    m_devices = createTable({tr("Device"), tr("Run"), tr("Span"), tr("Compute"), tr("Communication"), tr("Memory"),
                             tr("Idle"), tr("Idle change"), tr("Latency median"), tr("Latency change")},
                            QStringLiteral("gpuComparisonDevices"));
    layout->addWidget(m_devices, 3);
    layout->addWidget(new QLabel(tr("<b>Critical path</b> per rank")));
    m_paths = createTable({tr("Rank"), tr("Run"), tr("Length"), tr("Change"), tr("Bound by")},
                          QStringLiteral("gpuComparisonPaths"));
    layout->addWidget(m_paths, 2);
}

bool GpuComparisonPanel::anyGpuWork(const std::vector<std::shared_ptr<const model::Capture>>& captures)
{
    for (const auto& capture : captures)
        if (capture && GpuView::hasGpuWork(*capture))
            return true;
    return false;
}

void GpuComparisonPanel::setRuns(std::vector<QString> labels, std::vector<std::shared_ptr<const model::Capture>> captures,
                                 bool perRank)
{
    m_labels = std::move(labels);
    m_message->setText(tr("Analysing each run's GPU work…"));
    model::CompareOptions options;
    options.perRank = perRank;
    m_job->run(
        [captures = std::move(captures), options, classes = m_classes] {
            std::vector<model::analysis::GpuAnalysis> analyses;
            analyses.reserve(captures.size());
            std::vector<const model::analysis::GpuAnalysis*> runs;
            for (const auto& capture : captures) {
                analyses.push_back(capture ? model::analysis::analyzeGpu(*capture, classes) : model::analysis::GpuAnalysis{});
                runs.push_back(analyses.back().empty() ? nullptr : &analyses.back());
            }
            return std::make_shared<const GpuComparison>(model::analysis::compareGpu(runs, std::nullopt, options));
        },
        [this](std::shared_ptr<const GpuComparison> comparison) { show(std::move(comparison)); });
}

void GpuComparisonPanel::show(std::shared_ptr<const GpuComparison> comparison)
{
    m_comparison = std::move(comparison);
    m_message->setText(m_comparison->empty() ? tr("No run has GPU work.") : QString());
    m_message->setVisible(m_comparison->empty());
    m_devices->setRowCount(0);
    auto label = [&](size_t run) { return run < m_labels.size() ? m_labels[run] : QString::number(run); };
    for (const auto& d : m_comparison->devices) {
        const auto& base = d.runs.empty() ? std::optional<GpuRunFigures>() : d.runs[0];
        for (size_t r = 0; r < d.runs.size(); ++r) {
            const int row = m_devices->rowCount();
            m_devices->insertRow(row);
            m_devices->setItem(row, 0, cell(tr("rank %1 · GPU %2").arg(d.rank).arg(d.device), true));
            m_devices->setItem(row, 1, cell(label(r), true));
            const auto& f = d.runs[r];
            if (!f) {
                m_devices->setItem(row, 2, cell(tr("no GPU work"), true));
                continue;
            }
            m_devices->setItem(row, 2, cell(durationText(double(f->spanNs))));
            m_devices->setItem(row, 3, cell(percent(share(f->computeNs, f->spanNs))));
            m_devices->setItem(row, 4, cell(percent(share(f->communicationNs, f->spanNs))));
            m_devices->setItem(row, 5, cell(percent(share(f->memoryNs, f->spanNs))));
            m_devices->setItem(row, 6, cell(percent(f->idleShare())));
            m_devices->setItem(row, 8, cell(f->launches ? durationText(double(f->latencyMedianNs)) : kMissingText));
            if (r > 0 && base) {
                const double idle = f->idleShare() - base->idleShare();
                m_devices->setItem(row, 7, difference(signedPoints(idle), idle));
                if (f->launches && base->launches) {
                    const int64_t latency = f->latencyMedianNs - base->latencyMedianNs;
                    m_devices->setItem(row, 9, difference(signedDuration(latency), double(latency)));
                }
            }
        }
    }
    m_paths->setRowCount(0);
    for (const auto& p : m_comparison->paths) {
        for (size_t r = 0; r < p.runs.size(); ++r) {
            const int row = m_paths->rowCount();
            m_paths->insertRow(row);
            m_paths->setItem(row, 0, cell(QString::number(p.rank), true));
            m_paths->setItem(row, 1, cell(label(r), true));
            const auto& path = p.runs[r];
            if (!path) {
                m_paths->setItem(row, 2, cell(tr("no GPU work"), true));
                continue;
            }
            m_paths->setItem(row, 2, cell(durationText(double(path->lengthNs))));
            if (r > 0 && p.runs[0] && p.runs[0]->lengthNs > 0) {
                const double change = double(path->lengthNs - p.runs[0]->lengthNs) / double(p.runs[0]->lengthNs);
                m_paths->setItem(row, 3,
                                 difference((change >= 0 ? QStringLiteral("+") : QString()) + percent(change), change));
            }
            // The shares, largest first, with what each is.
            std::vector<std::pair<int64_t, int>> shares;
            for (int s = 0; s < model::analysis::kPathShares; ++s)
                if (path->boundBy[s] > 0)
                    shares.emplace_back(path->boundBy[s], s);
            std::sort(shares.rbegin(), shares.rend());
            QStringList parts;
            for (const auto& [ns, s] : shares)
                parts << QStringLiteral("%1 %2").arg(QString::fromLatin1(model::analysis::pathShareName(PathShare(s))),
                                                    percent(share(ns, path->lengthNs)));
            m_paths->setItem(row, 4, cell(parts.join(QStringLiteral(", ")), true));
        }
    }
    for (QTableWidget* table : {m_devices, m_paths})
        table->resizeColumnsToContents();
    emit comparisonShown();
}

} // namespace spanscope::views
