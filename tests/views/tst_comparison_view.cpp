// The comparison window's parts on the offscreen platform: the comparison table model
// (under QAbstractItemModelTester), numeric sorting and the verdict filter, the synchronized
// timelines and their alignments, the overlaid histograms' shared bins, the scaling
// arithmetic, and MainWindow opening a comparison of the two solver fixtures.

#include "support/isolated_settings.h"
#include "app/compare_tab.h"
#include "app/main_window.h"
#include "model/compare/run_comparison.h"
#include "model/stats/nesting.h"
#include "model/timeline/timeline_index.h"
#include "support/capture_builder.h"
#include "views/compare/comparison_filter_proxy.h"
#include "views/compare/comparison_table_model.h"
#include "views/compare/comparison_view.h"
#include "views/compare/gpu_comparison_panel.h"
#include "views/frozen_column_table.h"
#include "views/compare/overlay_bins.h"
#include "views/compare/overlay_histogram.h"
#include "views/compare/scaling_series.h"
#include "views/compare/synced_timelines.h"
#include "views/timeline/timeline_view.h"

#include <QAbstractItemModelTester>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableWidget>
#include <QtTest>
#include <functional>
#include <numeric>

using namespace spanscope;
using Column = views::ComparisonTableModel::Column;

namespace {

constexpr int kLoadTimeoutMs = 30'000;

struct Run
{
    std::shared_ptr<model::Capture> capture;
    std::shared_ptr<const model::CaptureSummary> summary;
    std::shared_ptr<const model::TimelineIndex> timeline;
};

// `n` back-to-back calls of `region` on rank 0 from `start` ns, lasting `duration(i)` ns.
std::string calls(const std::string& region, int n, const std::function<int64_t(int)>& duration,
                  int64_t start)
{
    std::string text;
    int64_t t = start;
    for (int i = 0; i < n; ++i) {
        text += region + " 0 " + std::to_string(t) + " " + std::to_string(t + duration(i)) + "\n";
        t += duration(i) + 10;
    }
    return text;
}

// Durations 1000..1999 ns in a scrambled order.
int64_t body(int i)
{
    return 1000 + (i * 7919) % 1000;
}

Run run(const std::string& text)
{
    Run r;
    r.capture = testing::buildCapture(text);
    model::TimelineIndexBuilder builder;
    model::computeNesting(*r.capture, {nullptr, 0, 1}, &builder);
    r.timeline = builder.finish(*r.capture);
    r.summary = model::summarizeCapture(*r.capture);
    return r;
}

// slow doubles, fast halves, same stays, mild grows by 9.5 %, gone and new come and go;
// edge has a 0 ns call and one that never closed in the baseline.
Run baseline()
{
    return run(calls("slow", 30, body, 1'000) +
               calls(
                   "fast", 30, [](int i) { return 2 * body(i); }, 1'000'000) +
               calls("same", 30, body, 2'000'000) + calls("mild", 30, body, 3'000'000) +
               calls("gone", 5, body, 4'000'000) + "edge 0 5000000 5000000\n" +
               calls(
                   "edge", 4, [](int i) { return int64_t(std::pow(10, i + 1)); }, 5'000'100) +
               "edge 0 5900000 5800000\n");
}

Run candidate()
{
    return run(calls(
                   "slow", 30, [](int i) { return 2 * body(i); }, 5'000) +
               calls("fast", 30, body, 1'200'000) + calls("same", 30, body, 2'000'000) +
               calls(
                   "mild", 30, [](int i) { return body(i) * 1095 / 1000; }, 3'000'000) +
               calls("new", 5, body, 4'000'000) + calls("edge", 20, body, 5'000'000));
}

std::shared_ptr<const model::Comparison> compare(const Run& a, const Run& b,
                                                 model::CompareOptions options = {})
{
    return std::make_shared<const model::Comparison>(model::compareRuns(
        {{a.capture.get(), a.summary.get(), "a.h5"}, {b.capture.get(), b.summary.get(), "b.h5"}},
        options));
}

QStringList regionColumn(const QAbstractItemModel& model)
{
    QStringList names;
    for (int row = 0; row < model.rowCount(); ++row)
        names << model.index(row, 0).data().toString();
    return names;
}

QString dataFile(const char* relative)
{
    return QStringLiteral(SPANSCOPE_TEST_DATA "/") + QString::fromUtf8(relative);
}

// Records errors instead of opening a modal message box.
class RecordingMainWindow : public app::MainWindow
{
public:
    QStringList errors;

protected:
    void showError(const QString& title, const QString&, const QString&) override
    {
        errors << title;
    }
};

} // namespace

class TestComparisonView : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void tableModelColumnsAndTester();
    void sortsPercentChangeNumerically();
    void filtersByVerdictAndName();
    void syncedTimelinesFollowEachOther();
    void alignsOnFirstCallOfRegion();
    void overlayBinsCountEveryClosedCall();
    void scalingSeries();
    void mainWindowComparesFixtures();
    void longRegionNamesLeaveRoomForTheFigures();
    void mainWindowReportsMissingFile();
    void gpuFiguresSideBySide();
};

void TestComparisonView::initTestCase()
{
    spanscope::testing::isolateSettings(); // no shared settings with the user or other test runs
    QCoreApplication::setOrganizationName(QStringLiteral("spanscope"));
    QCoreApplication::setApplicationName(QStringLiteral("spanscope-tests"));
    QSettings().clear();
}

void TestComparisonView::tableModelColumnsAndTester()
{
    const Run a = baseline(), b = candidate();
    views::ComparisonTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    views::ComparisonFilterProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester proxyTester(&proxy,
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);

    model.setComparison(compare(a, b));
    QCOMPARE(model.rowCount(), 7); // baseline's six regions, then the new one
    // Region, a.h5, b.h5, then six change columns for b.h5.
    QCOMPARE(model.columnCount(), 9);
    QCOMPARE(model.headerData(1, Qt::Horizontal).toString(), QStringLiteral("a.h5"));
    QCOMPARE(model.headerData(2, Qt::Horizontal).toString(), QStringLiteral("b.h5"));
    QCOMPARE(model.columnOf(Column::Verdict, 1), 8);
    QCOMPARE(model.columnOf(Column::Rank), -1);

    const int slow = model.findRow("slow", -1);
    QVERIFY(slow >= 0);
    const QModelIndex verdict = model.index(slow, model.columnOf(Column::Verdict, 1));
    QCOMPARE(verdict.data().toString(), QStringLiteral("slower"));
    QCOMPARE(verdict.data(Qt::BackgroundRole).value<QColor>(),
             views::ComparisonTableModel::verdictColor(model::Verdict::Slower));
    QVERIFY(
        model.index(slow, model.columnOf(Column::Percent, 1)).data().toString().startsWith('+'));
    const int added = model.findRow("new", -1);
    QCOMPARE(model.index(added, model.columnOf(Column::Verdict, 1)).data().toString(),
             QStringLiteral("added"));
    QVERIFY(
        !model.index(added, model.columnOf(Column::Verdict, 1)).data(Qt::BackgroundRole).isValid());
    QCOMPARE(model.index(added, 1).data().toString(), QStringLiteral("\u2013"));

    // All figures: calls, total, mean, p50, p95, exclusive and GPU for each run.
    model.setAllFigures(true);
    QCOMPARE(model.columnCount(), 9 + 2 * 7);
    QCOMPARE(model.headerData(9, Qt::Horizontal).toString(), QStringLiteral("Calls \u00b7 a.h5"));
    const int calls = model.rowCount() > 0 ? 9 : -1;
    QVERIFY(!model.index(slow, calls).data().toString().isEmpty());
    QCOMPARE(model.index(added, calls).data().toString(), QStringLiteral("\u2013")); // a.h5 lacks "new"
    model.setAllFigures(false);
    QCOMPARE(model.columnCount(), 9);

    // Per rank: a Rank column appears; resetting again keeps the tester happy.
    model::CompareOptions perRank;
    perRank.perRank = true;
    model.setComparison(compare(a, b, perRank));
    QCOMPARE(model.columnOf(Column::Rank), 1);
    QCOMPARE(model.index(model.findRow("slow", 0), 1).data().toString(), QStringLiteral("0"));
    model.setComparison(nullptr);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), 0);
}

void TestComparisonView::sortsPercentChangeNumerically()
{
    const Run a = baseline(), b = candidate();
    views::ComparisonTableModel model;
    views::ComparisonFilterProxy proxy;
    proxy.setSourceModel(&model);
    model.setComparison(compare(a, b));
    const int percent = model.columnOf(Column::Percent, 1);
    proxy.sort(percent, Qt::DescendingOrder);
    // As text "+9.5 %" would come before "+100.0 %"; missing figures sort last.
    const QStringList order = regionColumn(proxy);
    QCOMPARE(order.mid(0, 5), (QStringList{"slow", "mild", "same", "edge", "fast"}));
    QVERIFY(order.indexOf("gone") > 4 && order.indexOf("new") > 4);
    for (int row = 1; row < 5; ++row)
        QVERIFY(
            proxy.index(row - 1, percent).data(views::ComparisonTableModel::SortRole).toDouble() >=
            proxy.index(row, percent).data(views::ComparisonTableModel::SortRole).toDouble());
    QCOMPARE(proxy.index(1, percent).data().toString(), QStringLiteral("+9.5 %"));
    QVERIFY(proxy.index(4, percent).data().toString().startsWith(QStringLiteral("\u221250.0")));
}

void TestComparisonView::filtersByVerdictAndName()
{
    const Run a = baseline(), b = candidate();
    views::ComparisonTableModel model;
    views::ComparisonFilterProxy proxy;
    proxy.setSourceModel(&model);
    model.setComparison(compare(a, b));
    proxy.sort(0, Qt::AscendingOrder);
    QCOMPARE(proxy.rowCount(), 7);
    proxy.setVerdictFilter(views::VerdictFilter::Slower);
    QCOMPARE(regionColumn(proxy), (QStringList{"slow"}));
    proxy.setVerdictFilter(views::VerdictFilter::Faster);
    QCOMPARE(regionColumn(proxy), (QStringList{"fast"}));
    proxy.setVerdictFilter(views::VerdictFilter::Changed);
    QCOMPARE(regionColumn(proxy), (QStringList{"fast", "slow"}));
    proxy.setFilterText(QStringLiteral("^S"));
    QCOMPARE(regionColumn(proxy), (QStringList{"slow"}));
    proxy.setVerdictFilter(views::VerdictFilter::All);
    QCOMPARE(regionColumn(proxy), (QStringList{"same", "slow"}));
}

void TestComparisonView::syncedTimelinesFollowEachOther()
{
    const Run a = baseline(), b = candidate();
    views::SyncedTimelines timelines;
    timelines.resize(900, 600);
    timelines.setRuns(
        {{"a.h5", a.capture, a.summary, a.timeline}, {"b.h5", b.capture, b.summary, b.timeline}});
    timelines.show();
    QVERIFY(QTest::qWaitForWindowExposed(&timelines));
    QCOMPARE(timelines.runCount(), 2);
    // Run start: the runs' first calls (slow at 1000 ns and 5000 ns) line up.
    QCOMPARE(timelines.anchor(0), 1'000);
    QCOMPARE(timelines.anchor(1), 5'000);
    views::TimelineZoom* zoom0 = timelines.view(0)->zoom();
    views::TimelineZoom* zoom1 = timelines.view(1)->zoom();
    QCOMPARE(zoom1->start() - zoom0->start(), 4'000);

    zoom0->setRange(10'000, 60'000);
    QCOMPARE(zoom1->start(), 14'000);
    QCOMPARE(zoom1->end(), 64'000);

    // Time offset: run b shifted by another 250 ns; the baseline keeps its window.
    timelines.setAlignment(views::TimelineAlignment::TimeOffset);
    timelines.setRunOffset(1, 250);
    QCOMPARE(timelines.anchor(1), 5'250);
    QCOMPARE(zoom0->start(), 10'000);
    QCOMPARE(zoom1->start(), 14'250);

    // Zooming the candidate moves the baseline back by the same offset, once.
    QSignalSpy baselineMoved(zoom0, &views::TimelineZoom::changed);
    zoom1->setRange(20'000, 30'000);
    QCOMPARE(zoom0->start(), 15'750);
    QCOMPARE(zoom0->end(), 25'750);
    QCOMPARE(baselineMoved.count(), 1);
    zoom1->zoomAround(25'000, 0.5);
    QCOMPARE(zoom0->start() - zoom1->start(), -4'250);
    QCOMPARE(zoom0->span(), zoom1->span());
}

void TestComparisonView::alignsOnFirstCallOfRegion()
{
    const Run a = baseline(), b = candidate();
    QCOMPARE(views::SyncedTimelines::firstCallStart(*b.capture, *b.summary, "fast"), 1'200'000);
    QCOMPARE(views::SyncedTimelines::firstCallStart(*a.capture, *a.summary, "new"), std::nullopt);

    views::SyncedTimelines timelines;
    timelines.setRuns(
        {{"a.h5", a.capture, a.summary, a.timeline}, {"b.h5", b.capture, b.summary, b.timeline}});
    timelines.setAlignRegion(QStringLiteral("fast"));
    timelines.setAlignment(views::TimelineAlignment::FirstCall);
    QCOMPARE(timelines.alignRegion(), QStringLiteral("fast"));
    QCOMPARE(timelines.anchor(0), 1'000'000);
    QCOMPARE(timelines.anchor(1), 1'200'000);
    timelines.view(0)->zoom()->setRange(1'000'000, 1'050'000);
    QCOMPARE(timelines.view(1)->zoom()->start(), 1'200'000);
    QCOMPARE(timelines.view(1)->zoom()->end(), 1'250'000);

    // A region only one run has: the other stays aligned at its start.
    timelines.setAlignRegion(QStringLiteral("new"));
    QCOMPARE(timelines.anchor(0), a.timeline->begin());
    QCOMPARE(timelines.anchor(1), 4'000'000);
}

void TestComparisonView::overlayBinsCountEveryClosedCall()
{
    // Below the first edge goes to the first bin, the last edge and beyond to the last.
    const std::vector<double> edges{1.0, 10.0, 100.0};
    const std::vector<int64_t> values{0, 1, 5, 10, 99, 100, 1000};
    QCOMPARE(views::countInBins(edges, values), (std::vector<uint64_t>{3, 4}));

    const Run a = baseline(), b = candidate();
    views::OverlayHistogram histogram;
    histogram.resize(600, 400);
    histogram.setRuns({{"a.h5", a.capture}, {"b.h5", b.capture}});
    QSignalSpy shown(&histogram, &views::OverlayHistogram::binsShown);
    for (const char* region : {"edge", "slow", "gone"}) {
        histogram.showRegion(region, model::RegionKind::Cpu, -1);
        QVERIFY(!histogram.isComputing());
        const views::OverlayBins* bins = histogram.bins();
        QVERIFY(bins);
        QCOMPARE(bins->runs.size(), size_t(2));
        for (size_t r = 0; r < 2; ++r) {
            const Run& run = r == 0 ? a : b;
            uint64_t closed = 0;
            for (uint32_t id = 0; id < run.capture->regionNames.size(); ++id)
                if (run.capture->regionName(id) == region)
                    closed = run.summary->pooled(id).closedCalls();
            const auto& series = bins->runs[r];
            QCOMPARE(series.calls, closed);
            QCOMPARE(std::accumulate(series.counts.begin(), series.counts.end(), uint64_t(0)),
                     closed);
            QCOMPARE(series.counts.size() + 1, bins->edges.size());
        }
    }
    QCOMPARE(shown.count(), 3);
    QCOMPARE(histogram.bins()->runs[1].calls, uint64_t(0)); // "gone" is not in b.h5
    histogram.setNormalized(true);
    QVERIFY(histogram.normalized());
}

void TestComparisonView::scalingSeries()
{
    const std::vector<double> sizes{1, 2, 4};
    const std::vector<std::optional<double>> times{100.0, 60.0, std::nullopt};
    const auto points = views::scalingSeries(sizes, times);
    QCOMPARE(points.size(), size_t(3));
    QCOMPARE(points[1].ideal, 2.0);
    QCOMPARE(*points[1].speedup, 100.0 / 60.0);
    QCOMPARE(*points[1].efficiency, 100.0 / 60.0 / 2.0);
    QVERIFY(!points[2].speedup && !points[2].efficiency);
    QCOMPARE(points[0].speedup, 1.0);
}

// A templated kernel's name is wider than the window: the frozen name column takes at most
// 40 % of the table, so the figures beside it stay in view.
void TestComparisonView::longRegionNamesLeaveRoomForTheFigures()
{
    std::string kernel = "void_at::native::elementwise_kernel<128,2,at::native::gpu_kernel_impl_nocast<";
    while (kernel.size() < 400)
        kernel += "at::native::BinaryFunctor<float,float,float,at::native::binary_internal::MulFunctor<float>>,";
    kernel += ">(int)";
    const Run a = run(calls(kernel, 30, body, 1'000) + calls("step", 30, body, 1'000'000));
    const Run b = run(calls(kernel, 30, [](int i) { return 2 * body(i); }, 1'000) + calls("step", 30, body, 1'000'000));
    views::ComparisonView view;
    view.resize(1200, 800);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy shown(&view, &views::ComparisonView::comparisonShown);
    view.setRuns({{"a.h5", a.capture, a.summary, a.timeline}, {"b.h5", b.capture, b.summary, b.timeline}});
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, kLoadTimeoutMs);
    QTableView* table = view.table();
    QCOMPARE(table->model()->rowCount(), 2);
    const int width = table->viewport()->width();
    QVERIFY2(table->columnWidth(0) <= width * 2 / 5 + 1,
             qPrintable(QString("name column %1 of %2 px").arg(table->columnWidth(0)).arg(width)));
    QVERIFY(table->columnViewportPosition(1) + table->columnWidth(1) <= width);
}

void TestComparisonView::mainWindowComparesFixtures()
{
    RecordingMainWindow window;
    window.resize(1400, 900);
    window.show();
    QApplication::setActiveWindow(&window);
    QVERIFY(QTest::qWaitForWindowActive(&window));
    const QStringList files{dataFile("scope-profiler/solver-1rank.h5"),
                            dataFile("scope-profiler/solver-2rank.h5")};
    window.compareFiles(files);
    QCOMPARE(window.tabCount(), 1);
    QVERIFY(window.compareTab(0) && !window.tab(0));
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    QVERIFY2(window.errors.isEmpty(), qPrintable(window.errors.join('\n')));

    app::CompareTab* tab = window.currentCompareTab();
    QVERIFY(tab && tab->view());
    views::ComparisonView* view = tab->view();
    QVERIFY(view->table()->isVisible());
    QCOMPARE(view->table()->model()->rowCount(), 6);
    QCOMPARE(view->tableModel()->headerData(1, Qt::Horizontal).toString(),
             QStringLiteral("solver-1rank.h5"));
    QVERIFY(window.windowTitle().startsWith(QStringLiteral("solver-1rank.h5 vs solver-2rank.h5")));
    QCOMPARE(view->timelines()->runCount(), 2);
    QVERIFY(view->histogram()->bins()); // the first line is selected and plotted

    // Untouched, the view fits its parts: the table's rows, and each run's timeline its
    // lanes (the baseline's single rank fits whole at 1400x900).
    QVERIFY(!view->layoutChosenByUser());
    QCoreApplication::processEvents();
    QVERIFY(view->table()->viewport()->height() >= 6 * view->table()->verticalHeader()->defaultSectionSize());
    QVERIFY2(view->timelines()->view(0)->height() >= view->timelines()->view(0)->fullHeight(),
             qPrintable(QStringLiteral("%1 < %2").arg(view->timelines()->view(0)->height()).arg(view->timelines()->view(0)->fullHeight())));

    // Scrolled all the way right, the Region column still shows each row's name at the
    // left edge, in the row order and selection of the table.
    auto* frozen = qobject_cast<views::FrozenColumnTableView*>(view->table());
    QVERIFY(frozen);
    window.resize(700, 700); // narrow: the runs' columns need scrolling
    QTRY_VERIFY(view->table()->horizontalScrollBar()->maximum() > 0);
    view->table()->horizontalScrollBar()->setValue(view->table()->horizontalScrollBar()->maximum());
    QTRY_VERIFY(view->table()->columnViewportPosition(0) < 0); // the table's own column scrolled away
    QTableView* column = frozen->frozenView();
    QVERIFY(column->isVisible());
    QCOMPARE(column->columnWidth(0), view->table()->columnWidth(0));
    QCOMPARE(column->geometry().left(), view->table()->frameWidth());
    const QModelIndex firstRow = column->indexAt(QPoint(4, 4));
    QCOMPARE(firstRow.column(), 0);
    QCOMPARE(firstRow.data().toString(), view->table()->model()->index(0, 0).data().toString());
    QCOMPARE(column->selectionModel(), view->table()->selectionModel());

    // The same comparison again shows the same tab.
    window.compareFiles(files);
    QCOMPARE(window.tabCount(), 1);

    // Ctrl+F focuses the comparison's filter; per rank recomputes on a worker.
    QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
    QTRY_VERIFY(view->filterEdit()->hasFocus());
    QSignalSpy shown(view, &views::ComparisonView::comparisonShown);
    model::CompareOptions options = view->options();
    options.perRank = true;
    view->setOptions(options);
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLoadTimeoutMs);
    QCOMPARE(view->table()->model()->rowCount(), 12); // six regions on rank 0, six on rank 1

    QTest::keyClick(&window, Qt::Key_W, Qt::ControlModifier);
    QCOMPARE(window.tabCount(), 0);
}

void TestComparisonView::mainWindowReportsMissingFile()
{
    RecordingMainWindow window;
    window.show();
    QSignalSpy reported(&window, &app::MainWindow::errorReported);
    const QString missing = dataFile("scope-profiler/no-such-run.h5");
    window.compareFiles({dataFile("scope-profiler/solver-1rank.h5"), missing});
    QTRY_COMPARE_WITH_TIMEOUT(window.errors.size(), 1, kLoadTimeoutMs);
    QCOMPARE(reported.count(), 1);
    QCOMPARE(reported.at(0).at(0).toString(), QFileInfo(missing).absoluteFilePath());
    QVERIFY(window.errors.front().contains(QStringLiteral("no-such-run.h5")));
    QTRY_COMPARE(window.tabCount(), 0);
    QVERIFY(!window.isLoading());
}

QTEST_MAIN(TestComparisonView)
// Two runs with GPU work: the GPU tab comes first with each run's utilization, idle,
// latency and critical path side by side, and the differences against the baseline.
void TestComparisonView::gpuFiguresSideBySide()
{
    auto load = [](const char* name) {
        auto loaded = model::loadCapture(dataFile(name).toStdString(), nullptr, model::LoadOptions{true});
        if (!loaded)
            qFatal("%s", loaded.error().toString().c_str());
        return loaded.value();
    };
    const auto a = load("kineto/sampled-five-streams.json.gz"), b = load("kineto/tiny-two-streams.json.gz");
    views::ComparisonView view;
    view.resize(1400, 900);
    QSignalSpy shown(view.gpu(), &views::GpuComparisonPanel::comparisonShown);
    view.setRuns({{"five.json.gz", a.capture, a.summary, a.timeline}, {"tiny.json.gz", b.capture, b.summary, b.timeline}});
    QCOMPARE(view.plotTabs()->currentWidget(), static_cast<QWidget*>(view.gpu()));
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, kLoadTimeoutMs);
    const QTableWidget* devices = view.gpu()->devicesTable();
    QCOMPARE(devices->rowCount(), 2); // one device each, matched in order
    QCOMPARE(devices->item(0, 1)->text(), QString("five.json.gz"));
    QCOMPARE(devices->item(0, 6)->text(), QString("55.2 %"));  // idle share, analyses.json: 675191000 / 1222847000
    QCOMPARE(devices->item(1, 6)->text(), QString("99.4 %"));  // 272804000 / 274498000
    QCOMPARE(devices->item(1, 7)->text(), QString("+44.2 pt"));
    QCOMPARE(devices->item(1, 7)->foreground().color(), QColor(200, 40, 40)); // more idle: worse
    QCOMPARE(view.gpu()->pathsTable()->rowCount(), 2);
    // Without GPU work in any run there is no GPU tab.
    const Run cpu = run(calls("step", 30, body, 1'000'000));
    view.setRuns({{"a.h5", cpu.capture, cpu.summary, cpu.timeline}, {"b.h5", cpu.capture, cpu.summary, cpu.timeline}});
    QVERIFY(!view.plotTabs()->isTabVisible(view.plotTabs()->indexOf(view.gpu())));
}

#include "tst_comparison_view.moc"
