// The plots under the region table: the duration histogram and GPU-vs-wall widgets fed
// captures built in memory, picking a scatter point, CSV and image export, and the tabs in
// CaptureView. The data behind them (log binning and CDF golden values): tst_plot_data.cpp.
// Set SPANSCOPE_SCREENSHOT_DIR to keep screenshots of the plots for a person to look at.

#include "model/stats/capture_summary.h"
#include "model/stats/nesting.h"
#include "model/timeline/timeline_index.h"
#include "support/capture_builder.h"
#include "support/plot_fixtures.h"
#include "support/test_helpers.h"
#include "views/capture_view.h"
#include "views/plots/duration_histogram.h"
#include "views/plots/gpu_call_scatter.h"
#include "views/plots/gpu_totals_chart.h"
#include "views/plots/gpu_wall_plot.h"
#include "views/plots/histogram_bins.h"
#include "views/plots/plot_csv.h"
#include "views/plots/plot_export.h"
#include "views/plots/plot_frame.h"
#include "views/region_filter_proxy.h"
#include "views/region_table_model.h"
#include "views/timeline/region_colors.h"
#include "views/timeline/timeline_view.h"
#include "support/pool_gate.h"
#include "support/screenshots.h"

#include <QComboBox>
#include <QFile>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QThreadPool>
#include <QtTest>
#include <cmath>
#include <numbers>
#include <qcustomplot.h>
#include <random>
#include <sstream>

using namespace spanscope;
using namespace spanscope::testing;
using views::CdfPoint;

namespace {

// A run that looks like a real one, for screenshots and the worker path: per rank an outer
// step loop with a fast and a slow path, GPU kernels (one device-bound, one half idle), a
// host-side packing region with little GPU time, and I/O without any.
std::shared_ptr<model::Capture> realisticGpuRun(int stepsPerRank)
{
    std::mt19937 random(42);
    auto uniform = [&random] { return (double(random()) + 0.5) / 4294967296.0; };
    auto logNormal = [&](double medianNs, double sigma) {
        const double normal =
            std::sqrt(-2.0 * std::log(uniform())) * std::cos(2 * std::numbers::pi * uniform());
        return std::max<int64_t>(1, int64_t(medianNs * std::exp(sigma * normal)));
    };
    std::ostringstream text;
    for (int rank = 0; rank < 2; ++rank) {
        int64_t t = 1'000'000;
        for (int i = 0; i < stepsPerRank; ++i) {
            const int64_t stepStart = t;
            const int64_t matmul = logNormal(rank ? 52'000 : 45'000, 0.25);
            text << "kernel.matmul " << rank << ' ' << t + 2'000 << ' ' << t + 2'000 + matmul
                 << " gpu=" << int64_t(double(matmul) * (0.9 + 0.08 * uniform())) << '\n';
            t += 2'000 + matmul;
            const int64_t reduce = logNormal(12'000, 0.4);
            text << "kernel.reduce " << rank << ' ' << t << ' ' << t + reduce
                 << " gpu=" << int64_t(double(reduce) * (0.3 + 0.4 * uniform())) << '\n';
            t += reduce;
            const int64_t pack = logNormal(20'000, 0.3);
            text << "host.pack " << rank << ' ' << t << ' ' << t + pack
                 << " gpu=" << int64_t(double(pack) * 0.05 * uniform()) << '\n';
            t += pack;
            if (i % 10 == 9) { // the slow path: a checkpoint write
                const int64_t io = logNormal(900'000, 0.35);
                text << "io.checkpoint " << rank << ' ' << t << ' ' << t + io << '\n';
                t += io;
            }
            t += 1'000;
            text << "solver.step " << rank << ' ' << stepStart << ' ' << t << '\n';
        }
    }
    return buildCapture(text.str());
}

QStringList readLines(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return {};
    return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

} // namespace

class TestPlots : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private slots:
    void histogramPooledPerRankAndCumulative();
    void histogramAggregateMessage();
    void histogramWaitsUntilShown();
    void histogramWorkerLatestWins();
    void histogramLiveUpdateKeepsThePlot();
    void scatterClickEmitsEvent();
    void noGpuMessage();
    void csvExports();
    void imageExports();
    void captureViewTabs();
};

void TestPlots::histogramPooledPerRankAndCumulative()
{
    const Snapshot s = summarize(buildCapture(kSmallGpuRun));
    views::DurationHistogram histogram;
    histogram.resize(900, 360);
    histogram.show();
    QVERIFY(QTest::qWaitForWindowExposed(&histogram));
    histogram.setCapture(s.capture);
    QVERIFY(!histogram.message().isEmpty()); // "select a region"
    QSignalSpy shown(&histogram, &views::DurationHistogram::distributionShown);

    const auto rows = rowsOf(*s.capture, "kernel");
    histogram.showRegion(uint32_t(findRegion(*s.capture, "kernel")), rows, std::nullopt);
    QCOMPARE(shown.count(), 1);
    QVERIFY(histogram.message().isEmpty());
    const auto* pooled = histogram.distribution();
    QVERIFY(pooled);
    QCOMPARE(pooled->calls, uint64_t(4)); // closed calls of both ranks
    QCOMPARE(pooled->bins.total, uint64_t(4));
    QCOMPARE(pooled->minimum, int64_t(100));
    QCOMPARE(pooled->maximum, int64_t(1000));
    QCOMPARE(pooled->p50, 300.0);
    QCustomPlot* plot = histogram.plot();
    QCOMPARE(plot->graph(0)->dataCount(), int(pooled->bins.edges.size()));
    QCOMPARE(plot->xAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(plot->itemCount(), 8); // four markers, each a line and a label

    // Following the table's rank choice: only rank 0's row.
    histogram.showRegion(uint32_t(findRegion(*s.capture, "kernel")), {&rows[0], 1}, 0);
    QCOMPARE(histogram.distribution()->calls, uint64_t(3));

    histogram.setCumulative(true);
    const auto data = plot->graph(0)->data();
    QCOMPARE((data->constEnd() - 1)->value, 1.0);
    QCOMPARE(data->constBegin()->value, 0.0);
    for (auto it = data->constBegin() + 1; it != data->constEnd(); ++it)
        QVERIFY(it->value >= (it - 1)->value && it->key >= (it - 1)->key);
    QCOMPARE(plot->yAxis->range().upper, 1.04);
    histogram.setCumulative(false);

    // Bars in the region's timeline colour, following a switch to a dark palette.
    QColor light = views::regionColor("kernel", false);
    QCOMPARE(plot->graph(0)->brush().color().rgb(), light.rgb());
    QPalette dark = histogram.palette();
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    dark.setColor(QPalette::Window, QColor(45, 45, 45));
    dark.setColor(QPalette::Text, QColor(230, 230, 230));
    dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
    histogram.setPalette(dark);
    QVERIFY(histogram.frame()->darkPalette());
    QCOMPARE(plot->graph(0)->brush().color().rgb(), views::regionColor("kernel", true).rgb());
    QVERIFY(testing::saveScreenshot(histogram, "histogram-dark"));

    histogram.clearRegion();
    QVERIFY(!histogram.distribution());
    QVERIFY(!histogram.message().isEmpty());
}

void TestPlots::histogramAggregateMessage()
{
    auto capture = buildCapture(kSmallGpuRun);
    capture->layout = model::StorageLayout::Aggregate;
    capture->eventDataAvailable = false;
    views::DurationHistogram histogram;
    histogram.show();
    QVERIFY(QTest::qWaitForWindowExposed(&histogram));
    histogram.setCapture(capture);
    histogram.showRegion(0, std::vector<uint32_t>{0}, 0);
    QCOMPARE(histogram.message(),
             QStringLiteral("No per-call data in this file (aggregate layout)"));
    QVERIFY(!histogram.distribution());
}

void TestPlots::histogramWaitsUntilShown()
{
    const Snapshot s = summarize(buildCapture(kSmallGpuRun));
    views::DurationHistogram histogram;
    histogram.setCapture(s.capture);
    histogram.showRegion(0, rowsOf(*s.capture, "kernel"), std::nullopt);
    QVERIFY(!histogram.distribution()); // hidden: nothing computed yet
    histogram.show();
    QVERIFY(QTest::qWaitForWindowExposed(&histogram));
    QVERIFY(histogram.distribution());
    QCOMPARE(histogram.distribution()->calls, uint64_t(4));
}

void TestPlots::histogramWorkerLatestWins()
{
    const Snapshot s = summarize(realisticGpuRun(3000));
    views::DurationHistogram histogram;
    histogram.resize(900, 360);
    histogram.show();
    QVERIFY(QTest::qWaitForWindowExposed(&histogram));
    histogram.setCapture(s.capture);
    histogram.setAsyncThreshold(100); // every region here goes to the worker
    QSignalSpy shown(&histogram, &views::DurationHistogram::distributionShown);
    const auto checkpoint = rowsOf(*s.capture, "io.checkpoint");
    const auto step = rowsOf(*s.capture, "solver.step");
    // Every pool thread waits, so both requests are still queued when the second comes.
    PoolGate gate;
    histogram.showRegion(uint32_t(findRegion(*s.capture, "io.checkpoint")), checkpoint,
                         std::nullopt);
    QVERIFY(histogram.isComputing());
    QVERIFY(histogram.message().startsWith(QStringLiteral("Binning")));
    // Asked for another region before the first finished: only the second is shown.
    histogram.showRegion(uint32_t(findRegion(*s.capture, "solver.step")), step, std::nullopt);
    QVERIFY(histogram.isComputing());
    gate.open();
    QTRY_VERIFY(!histogram.isComputing());
    settlePool(); // the outdated result has arrived too: it must not have been shown
    QCOMPARE(shown.count(), 1);
    QCOMPARE(histogram.distribution()->calls, uint64_t(6000));
    QVERIFY(testing::saveScreenshot(histogram, "histogram-widget"));
    histogram.setCumulative(true);
    QVERIFY(testing::saveScreenshot(histogram, "histogram-cdf-widget"));
}

void TestPlots::histogramLiveUpdateKeepsThePlot()
{
    const Snapshot s = summarize(realisticGpuRun(3000));
    views::DurationHistogram histogram;
    histogram.resize(900, 360);
    histogram.show();
    QVERIFY(QTest::qWaitForWindowExposed(&histogram));
    histogram.setCapture(s.capture);
    histogram.setAsyncThreshold(100); // binned on the worker, as a big live region is
    QSignalSpy shown(&histogram, &views::DurationHistogram::distributionShown);
    const uint32_t step = uint32_t(findRegion(*s.capture, "solver.step"));
    histogram.showRegion(step, rowsOf(*s.capture, "solver.step"), std::nullopt);
    QVERIFY(shown.wait(5000));

    // A newer snapshot: the old plot stays on screen while the new one is binned. Every pool
    // thread waits meanwhile, so the binning cannot finish before it is looked at.
    auto gate = std::make_unique<PoolGate>();
    histogram.setCapture(s.capture, true);
    histogram.showRegion(step, rowsOf(*s.capture, "solver.step"), std::nullopt);
    QVERIFY(histogram.isComputing());
    QVERIFY(histogram.distribution() != nullptr);
    QCOMPARE(histogram.message(), QString());
    gate.reset();
    QVERIFY(shown.wait(5000));
    QCOMPARE(histogram.distribution()->calls, uint64_t(6000));

    // Another region after an update is a new plot: the message says it is being binned.
    histogram.setCapture(s.capture, true);
    gate = std::make_unique<PoolGate>();
    histogram.showRegion(uint32_t(findRegion(*s.capture, "io.checkpoint")),
                         rowsOf(*s.capture, "io.checkpoint"), std::nullopt);
    QVERIFY(histogram.distribution() == nullptr);
    QVERIFY(histogram.message().startsWith(QStringLiteral("Binning")));
    gate.reset();
    QVERIFY(shown.wait(5000));
}

void TestPlots::scatterClickEmitsEvent()
{
    const Snapshot s = summarize(buildCapture(kSmallGpuRun));
    views::GpuWallPlot plot;
    plot.resize(1000, 380);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setCapture(s.capture, s.summary);
    QVERIFY(plot.message().isEmpty());
    QCOMPARE(plot.totalsChart()->totals().size(), size_t(1));
    const auto rows = rowsOf(*s.capture, "kernel");
    plot.showRegion(uint32_t(findRegion(*s.capture, "kernel")), rows, std::nullopt);
    QVERIFY(plot.callScatter()->points());
    QCOMPARE(plot.callScatter()->points()->points.size(), size_t(4));

    // The call of rank 0 with wall 200 ns and GPU 50 ns: event 1.
    QCustomPlot* scatter = plot.callScatter()->frame()->plot();
    scatter->replot(); // the axes know their pixel geometry after a layout
    const QPointF at(scatter->xAxis->coordToPixel(200), scatter->yAxis->coordToPixel(50));
    QSignalSpy clicked(&plot, &views::GpuWallPlot::callClicked);
    QCOMPARE(plot.callScatter()->pickCall(at + QPointF(3, -2)), std::optional<uint32_t>(1));
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.at(0).at(0).value<quint32>(), quint32(1));
    QCOMPARE(plot.callScatter()->frame()->plot()->graph(1)->dataCount(), 1); // the mark
    // A click far from every point picks nothing.
    QCOMPARE(plot.callScatter()->pickCall(
                 QPointF(scatter->xAxis->coordToPixel(200), scatter->yAxis->coordToPixel(900))),
             std::nullopt);
    QCOMPARE(clicked.count(), 1);
    // A real click goes the same way.
    QTest::mouseClick(scatter, Qt::LeftButton, {}, at.toPoint());
    QCOMPARE(clicked.count(), 2);

    // Through the worker, as for a region of millions of calls.
    plot.callScatter()->setAsyncThreshold(0);
    plot.showRegion(uint32_t(findRegion(*s.capture, "kernel")), rows, std::nullopt);
    QTRY_VERIFY(!plot.callScatter()->isComputing());
    QVERIFY(plot.callScatter()->points());
    QCOMPARE(plot.callScatter()->points()->points.size(), size_t(4));
}

void TestPlots::noGpuMessage()
{
    const Snapshot s = summarize(buildCapture("a 0 0 10\nb 0 20 40\n"));
    views::GpuWallPlot plot;
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setCapture(s.capture, s.summary);
    QCOMPARE(plot.message(), QStringLiteral("This file recorded no GPU durations"));
    plot.showRegion(0, std::vector<uint32_t>{0}, 0);
    QVERIFY(!plot.callScatter()->points());
}

void TestPlots::csvExports()
{
    const Snapshot s = summarize(buildCapture(kSmallGpuRun));
    const auto rows = rowsOf(*s.capture, "kernel");
    const QString dir = m_dir.path();

    const auto d = views::describeDurations(model::closedDurations(*s.capture, rows));
    QVERIFY(views::writeHistogramCsv(dir + "/bins.csv", d.bins));
    QStringList lines = readLines(dir + "/bins.csv");
    QCOMPARE(lines.value(0), QStringLiteral("lower_ns,upper_ns,count"));
    QCOMPARE(lines.size(), int(d.bins.counts.size()) + 1);
    QCOMPARE(lines.value(1).section(',', 0, 0), QStringLiteral("100"));
    QCOMPARE(lines.last().section(',', 1, 1), QStringLiteral("1000"));

    QVERIFY(views::writeCdfCsv(dir + "/cdf.csv", d.cdf));
    lines = readLines(dir + "/cdf.csv");
    QCOMPARE(lines, (QStringList{"duration_ns,fraction_at_most", "100,0.25", "200,0.5", "400,0.75",
                                 "1000,1"}));

    const auto totals = views::regionGpuTotals(*s.capture, *s.summary, std::nullopt);
    QVERIFY(views::writeGpuTotalsCsv(dir + "/totals.csv", *s.capture, totals));
    lines = readLines(dir + "/totals.csv");
    QCOMPARE(lines, (QStringList{"region,calls,gpu_calls,wall_total_ns,gpu_total_ns,gpu_wall_ratio",
                                 "kernel,5,4,1700,540,0.317647058823529"}));

    QVERIFY(views::writeGpuCallsCsv(dir + "/calls.csv", *s.capture, rows));
    lines = readLines(dir + "/calls.csv");
    QCOMPARE(lines, (QStringList{"event,rank,wall_ns,gpu_ns", "0,0,100,90", "1,0,200,50",
                                 "2,0,400,400", "5,1,1000,0"}));

    // The widgets write what they show, through the same functions.
    views::DurationHistogram histogram;
    histogram.show();
    QVERIFY(QTest::qWaitForWindowExposed(&histogram));
    histogram.setCapture(s.capture);
    QString error;
    QVERIFY(!histogram.saveCsv(dir + "/none.csv", &error));
    QVERIFY(!error.isEmpty());
    histogram.showRegion(0, rows, std::nullopt);
    histogram.setCumulative(true);
    QVERIFY(histogram.saveCsv(dir + "/shown.csv"));
    QCOMPARE(readLines(dir + "/shown.csv").size(), 5);
    QVERIFY(!views::writeCdfCsv(dir + "/missing-folder/x.csv", d.cdf, &error));
    QVERIFY(error.contains(QStringLiteral("missing-folder")));
}

void TestPlots::imageExports()
{
    const Snapshot s = summarize(buildCapture(kSmallGpuRun));
    views::DurationHistogram histogram;
    histogram.resize(800, 320);
    histogram.show();
    QVERIFY(QTest::qWaitForWindowExposed(&histogram));
    histogram.setCapture(s.capture);
    histogram.showRegion(0, rowsOf(*s.capture, "kernel"), std::nullopt);
    const QString dir = m_dir.path();
    for (const QString& suffix : views::plotImageSuffixes()) {
        const QString path = dir + "/histogram." + suffix;
        QString error;
        QVERIFY2(views::savePlotImage(histogram.plot(), path, 640, 300, &error), qPrintable(error));
        QVERIFY2(QFileInfo(path).size() > 500, qPrintable(path));
    }
    QFile svg(dir + "/histogram.svg");
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QVERIFY(svg.readAll().contains("<svg"));
    QImage png(dir + "/histogram.png");
    QVERIFY(!png.isNull());
    QString error;
    QVERIFY(!views::savePlotImage(histogram.plot(), dir + "/histogram.bmp", 0, 0, &error));
    QVERIFY(error.contains(QStringLiteral("PNG")));
}

void TestPlots::captureViewTabs()
{
    // A real file: no GPU column, so that tab says so; the histogram follows the table.
    SPANSCOPE_LOAD(loaded, dataFile("scope-profiler/solver-2rank.h5"));
    views::CaptureView view;
    view.resize(1400, 900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setCapture(loaded.capture, loaded.summary, model::TimelineIndex::build(*loaded.capture));
    QTabWidget* tabs = view.sideTabs();
    QStringList names;
    for (int i = 0; i < tabs->count(); ++i)
        names << tabs->tabText(i);
    QVERIFY(names.contains(QStringLiteral("Histogram")));
    QVERIFY(names.contains(QStringLiteral("GPU vs wall")));
    QVERIFY(!view.histogram()->distribution()); // hidden tab: nothing computed
    tabs->setCurrentWidget(view.histogram());
    QVERIFY(view.histogram()->distribution());
    const int current = view.regionProxy()->mapToSource(view.regionTable()->currentIndex()).row();
    QCOMPARE(view.histogram()->distribution()->calls,
             view.regionModel()->stats(current).closedCalls());
    QVERIFY(testing::saveScreenshot(view, "capture-view-histogram"));
    // Per rank: the histogram shows the selected rank's row only.
    view.rankSelector()->setCurrentIndex(view.rankSelector()->findData(1));
    const int row = view.regionProxy()->mapToSource(view.regionTable()->currentIndex()).row();
    QCOMPARE(view.histogram()->distribution()->calls, view.regionModel()->stats(row).closedCalls());
    tabs->setCurrentWidget(view.gpuWallPlot());
    QCOMPARE(view.gpuWallPlot()->message(), QStringLiteral("This file recorded no GPU durations"));

    // In memory with GPU times: a click on the scatter selects the call in the timeline.
    const Snapshot s = summarize(realisticGpuRun(400));
    view.setCapture(s.capture, s.summary, model::TimelineIndex::build(*s.capture));
    view.rankSelector()->setCurrentIndex(0); // pooled
    const int matmul = view.regionModel()->findEntry(
        uint32_t(findRegion(*s.capture, "kernel.matmul")), std::nullopt);
    view.regionTable()->setCurrentIndex(
        view.regionProxy()->mapFromSource(view.regionModel()->index(matmul, 0)));
    QVERIFY(view.gpuWallPlot()->callScatter()->points());
    QCOMPARE(view.gpuWallPlot()->totalsChart()->totals().size(), size_t(3));
    const views::GpuWallPoint point = view.gpuWallPlot()->callScatter()->points()->points[17];
    QCustomPlot* scatter = view.gpuWallPlot()->callScatter()->frame()->plot();
    scatter->replot();
    const QPointF at(scatter->xAxis->coordToPixel(double(point.wallNs)),
                     scatter->yAxis->coordToPixel(double(point.gpuNs)));
    const auto picked = view.gpuWallPlot()->callScatter()->pickCall(at);
    QVERIFY(picked);
    QCOMPARE(view.timeline()->selectedEvent(), picked);
    QVERIFY(testing::saveScreenshot(view, "capture-view-gpu-vs-wall"));
    // One rank in the table: the totals are that rank's.
    view.rankSelector()->setCurrentIndex(view.rankSelector()->findData(1));
    const auto& rankTotals = view.gpuWallPlot()->totalsChart()->totals();
    QCOMPARE(rankTotals.size(), size_t(3));
    const int matmulRank1 = findRow(*s.capture, "kernel.matmul", 1);
    QCOMPARE(rankTotals[0].region, s.capture->rows[size_t(matmulRank1)].region);
    QCOMPARE(rankTotals[0].wallNs, s.summary->perRow[size_t(matmulRank1)].total);
    view.rankSelector()->setCurrentIndex(0);
    tabs->setCurrentWidget(view.histogram());
    QVERIFY(testing::saveScreenshot(view, "capture-view-histogram-gpu-run"));

    // The GPU plots alone, at the size of a roomy tab, for the screenshot folder.
    views::GpuWallPlot alone;
    alone.resize(1100, 420);
    alone.show();
    QVERIFY(QTest::qWaitForWindowExposed(&alone));
    alone.setCapture(s.capture, s.summary);
    alone.showRegion(uint32_t(findRegion(*s.capture, "kernel.matmul")),
                     rowsOf(*s.capture, "kernel.matmul"), std::nullopt);
    QCustomPlot* aloneScatter = alone.callScatter()->frame()->plot();
    aloneScatter->replot();
    QVERIFY(
        alone.callScatter()->pickCall({aloneScatter->xAxis->coordToPixel(double(point.wallNs)),
                                       aloneScatter->yAxis->coordToPixel(double(point.gpuNs))}));
    QVERIFY(testing::saveScreenshot(alone, "gpu-vs-wall-widget"));
}

QTEST_MAIN(TestPlots)
#include "tst_plots.moc"
