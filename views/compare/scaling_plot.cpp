#include "scaling_plot.h"

#include "views/plots/plot_frame.h"
#include "views/timeline/region_colors.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>

namespace spanscope::views {

namespace {

constexpr int kRunColumn = 0;
constexpr int kSizeColumn = 1;
// Efficiency axis: 0 .. 120 %, so superlinear points stay in view.
constexpr double kEfficiencyTop = 1.2;
constexpr int kVisibleSizeRows = 4;

QString sizeText(double n)
{
    return QLocale().toString(n, 'g', 6);
}

} // namespace

ScalingPlot::ScalingPlot(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 0);
    auto* title = new QLabel(tr("Speedup against the first run"));
    title->setToolTip(tr("T is a region's total time on its slowest rank; speedup T\u2081 / "
                         "T\u2099 (solid, left axis), efficiency = speedup / (n / n\u2081) "
                         "(dashed, right axis)"));
    title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_regionsBox = new QComboBox;
    m_regionsBox->setObjectName(QStringLiteral("scalingRegions"));
    m_regionsBox->addItem(tr("Selected region"), int(Regions::Selected));
    m_regionsBox->addItem(tr("Top %1 by baseline total").arg(kTopRegions), int(Regions::TopFive));
    m_regionsBox->setCurrentIndex(1);
    bar->addWidget(title, 1);
    bar->addWidget(m_regionsBox);
    layout->addLayout(bar);

    m_sizeTable = new QTableWidget(0, 2);
    m_sizeTable->setObjectName(QStringLiteral("runSizes"));
    m_sizeTable->setHorizontalHeaderLabels({tr("Run"), tr("Ranks/threads")});
    m_sizeTable->horizontalHeaderItem(kSizeColumn)
        ->setToolTip(tr("The run's size n (double-click to edit): mpi_size from the file's "
                        "metadata, else its rank count"));
    m_sizeTable->verticalHeader()->hide();
    m_sizeTable->horizontalHeader()->setSectionResizeMode(kRunColumn, QHeaderView::Stretch);
    m_sizeTable->horizontalHeader()->setSectionResizeMode(kSizeColumn,
                                                          QHeaderView::ResizeToContents);
    m_sizeTable->verticalHeader()->setDefaultSectionSize(m_sizeTable->fontMetrics().height() + 6);
    m_sizeTable->setSelectionMode(QAbstractItemView::NoSelection);
    m_sizeTable->setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_frame = new PlotFrame;
    layout->addWidget(m_frame, 1);
    layout->addWidget(m_sizeTable);

    QCustomPlot* p = m_frame->plot();
    p->setLocale(QLocale());
    p->xAxis->setLabel(tr("Ranks or threads (n)"));
    p->yAxis->setLabel(tr("Speedup T\u2081 / T\u2099"));
    p->yAxis2->setVisible(true);
    p->yAxis2->setLabel(tr("Efficiency"));
    p->yAxis2->setRange(0.0, kEfficiencyTop);
    auto percent = QSharedPointer<QCPAxisTickerFixed>::create();
    percent->setTickStep(0.2);
    p->yAxis2->setTicker(percent);
    p->yAxis2->setNumberFormat(QStringLiteral("f"));
    p->yAxis2->setNumberPrecision(1);
    // The legend in a row of its own below the plot: region names are long and the plot
    // is narrow beside the table.
    m_frame->placeLegendBelow(3);
    m_frame->setExportName(QStringLiteral("scaling"));

    connect(m_regionsBox, &QComboBox::currentIndexChanged, this, &ScalingPlot::replot);
    connect(m_sizeTable, &QTableWidget::itemChanged, this, &ScalingPlot::sizeEdited);
    connect(m_frame, &PlotFrame::paletteApplied, this, &ScalingPlot::replot);
    replot();
}

ScalingPlot::~ScalingPlot() = default;

QCustomPlot* ScalingPlot::plot() const
{
    return m_frame->plot();
}

void ScalingPlot::setRuns(std::vector<ScalingRun> runs)
{
    m_runs = std::move(runs);
    m_sizes.clear();
    auto palette = std::make_shared<RegionPalette>(); // as the compared timelines colour them
    for (const auto& run : m_runs) {
        m_sizes.push_back(defaultRunSize(*run.capture));
        palette->add(*run.capture);
    }
    m_frame->setRegionPalette(palette);
    fillSizeTable();
    replot();
}

void ScalingPlot::setSelectedRegion(const std::string& name)
{
    m_selected = name;
    if (regions() == Regions::Selected)
        replot();
}

void ScalingPlot::setRegions(Regions regions)
{
    m_regionsBox->setCurrentIndex(m_regionsBox->findData(int(regions)));
}

ScalingPlot::Regions ScalingPlot::regions() const
{
    return Regions(m_regionsBox->currentData().toInt());
}

void ScalingPlot::setRunSize(int run, double n)
{
    if (n <= 0 || size_t(run) >= m_sizes.size())
        return;
    m_sizes[size_t(run)] = n;
    fillSizeTable();
    replot();
}

void ScalingPlot::fillSizeTable()
{
    const QSignalBlocker blocker(m_sizeTable);
    m_sizeTable->setRowCount(int(m_runs.size()));
    for (size_t run = 0; run < m_runs.size(); ++run) {
        auto* label = new QTableWidgetItem(m_runs[run].label);
        label->setFlags(Qt::ItemIsEnabled);
        label->setToolTip(m_runs[run].label);
        auto* size = new QTableWidgetItem(sizeText(m_sizes[run]));
        size->setFlags(Qt::ItemIsEnabled | Qt::ItemIsEditable);
        size->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_sizeTable->setItem(int(run), kRunColumn, label);
        m_sizeTable->setItem(int(run), kSizeColumn, size);
    }
    // Tall enough for every run up to a handful; more scroll.
    const int rows = std::min<int>(int(m_runs.size()), kVisibleSizeRows);
    m_sizeTable->setFixedHeight(m_sizeTable->horizontalHeader()->sizeHint().height() +
                                rows * m_sizeTable->verticalHeader()->defaultSectionSize() +
                                2 * m_sizeTable->frameWidth());
}

void ScalingPlot::sizeEdited(QTableWidgetItem* item)
{
    if (item->column() != kSizeColumn)
        return;
    bool ok = false;
    const double n = QLocale().toDouble(item->text(), &ok);
    if (ok && n > 0)
        setRunSize(item->row(), n);
    else
        fillSizeTable(); // not a size: back to the last one
}

std::vector<std::string> ScalingPlot::topRegions() const
{
    std::vector<std::pair<int64_t, std::string>> totals;
    if (m_runs.empty())
        return {};
    const auto& capture = *m_runs.front().capture;
    const auto& summary = *m_runs.front().summary;
    for (uint32_t region = 0; region < capture.regionNames.size(); ++region)
        totals.emplace_back(summary.pooled(region).total, capture.regionName(region));
    std::stable_sort(totals.begin(), totals.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::string> names;
    for (size_t i = 0; i < totals.size() && i < kTopRegions; ++i)
        names.push_back(totals[i].second);
    return names;
}

std::vector<ScalingPoint> ScalingPlot::series(const std::string& region) const
{
    std::vector<std::optional<double>> times;
    for (const auto& run : m_runs)
        times.push_back(regionWallTime(*run.capture, *run.summary, region));
    return scalingSeries(m_sizes, times);
}

void ScalingPlot::replot()
{
    QCustomPlot* p = plot();
    p->clearGraphs();
    m_plotted.clear();
    if (m_runs.size() < 2) {
        m_frame->showMessage(tr("Scaling needs two runs or more."));
        return;
    }
    if (regions() == Regions::Selected) {
        if (m_selected.empty()) {
            m_frame->showMessage(tr("Select a region in the table to see how it scales."));
            return;
        }
        m_plotted.push_back(m_selected);
    } else {
        m_plotted = topRegions();
    }
    m_frame->showPlot();

    const QColor text = palette().color(QPalette::Text);
    // The ideal line through every run's n, in the text colour.
    QCPGraph* ideal = p->addGraph();
    ideal->setName(tr("ideal (n / n\u2081)"));
    ideal->setPen(QPen(text, 1.2, Qt::DashDotLine));
    double highest = 1.0, lowestN = m_sizes.front(), highestN = m_sizes.front();
    for (const auto& point : series(m_plotted.empty() ? std::string() : m_plotted.front())) {
        ideal->addData(point.n, point.ideal);
        highest = std::max(highest, point.ideal);
        lowestN = std::min(lowestN, point.n);
        highestN = std::max(highestN, point.n);
    }
    for (const std::string& region : m_plotted) {
        const QColor color = m_frame->regionColor(region);
        QCPGraph* speedup = p->addGraph();
        speedup->setName(QString::fromStdString(region));
        speedup->setPen(QPen(color, 2.0));
        speedup->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 7));
        QCPGraph* efficiency = p->addGraph(p->xAxis, p->yAxis2);
        efficiency->setPen(QPen(color, 1.2, Qt::DashLine));
        efficiency->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, color, 5));
        efficiency->removeFromLegend();
        for (const auto& point : series(region)) {
            if (point.speedup) {
                speedup->addData(point.n, *point.speedup);
                highest = std::max(highest, *point.speedup);
            }
            if (point.efficiency)
                efficiency->addData(point.n, *point.efficiency);
        }
    }
    // Ticks at the runs' sizes, where the points are.
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    std::vector<double> sizes = m_sizes;
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    for (const double n : sizes)
        ticker->addTick(n, sizeText(n));
    p->xAxis->setTicker(ticker);
    const double margin = std::max(0.25, (highestN - lowestN) * 0.08);
    p->xAxis->setRange(lowestN - margin, highestN + margin);
    p->yAxis->setRange(0.0, highest * 1.3);
    p->replot();
}

} // namespace spanscope::views
