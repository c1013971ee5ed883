// The span tree: golden text of trees built from small captures (nesting, merging by
// call path, exclusive time, share of parent, lanes, NVTX filters with re-attachment), the
// item model under QAbstractItemModelTester, and the widget and its CaptureView tab.

#include "model/stats/capture_summary.h"
#include "model/stats/nesting.h"
#include "model/stats/span_tree.h"
#include "model/timeline/timeline_index.h"
#include "support/capture_builder.h"
#include "support/test_helpers.h"
#include "views/capture_view.h"
#include "views/region_filter_proxy.h"
#include "views/span_tree_model.h"
#include "views/span_tree_widget.h"
#include "views/timeline/timeline_view.h"
#include "support/pool_gate.h"
#include "support/screenshots.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>

using namespace spanscope;
using namespace spanscope::testing;

namespace {

// main 0..100 holds two `step` calls (each holding one `io`) and one `io` of its own;
// `grown` adds a third step (72..75), as a later live snapshot would.
std::shared_ptr<model::Capture> nestedCapture(bool grown = false)
{
    auto capture = buildCapture(std::string(R"(
main 0 0 100 thread=0
step 0 10 30 thread=0
step 0 40 70 thread=0
)") + (grown ? "step 0 72 75 thread=0\n" : "") + R"(io 0 15 20 thread=0
io 0 45 50 thread=0
io 0 80 90 thread=0
)");
    model::computeNesting(*capture);
    return capture;
}

// Events: main 0, step 1-2, io 3-5. Categories: main 0 (none), step 1, io 2; all domain 0.
void addCategories(model::Capture& capture)
{
    capture.nvtx.domains = {{0, capture.strings.intern("default")},
                            {7, capture.strings.intern("cuda")}};
    capture.nvtx.categories = {{0, 1, capture.strings.intern("compute")},
                               {0, 2, capture.strings.intern("io")}};
    capture.nvtx.callDomains = {0, 0, 0, 0, 0, 7};
    capture.nvtx.callCategories = {0, 1, 1, 2, 2, 2};
}

QString text(const model::Capture& capture, const model::SpanTree& tree)
{
    return QString::fromStdString(tree.toText(capture));
}

} // namespace

class TestSpanTree : public QObject
{
    Q_OBJECT

private slots:
    void nestingMergesByCallPath()
    {
        auto capture = nestedCapture();
        QCOMPARE(text(*capture, model::buildSpanTree(*capture)),
                 QStringLiteral("rank 0 \u00b7 thread 0 calls=0 incl=100 excl=0 share=100.0%\n"
                                "  main calls=1 incl=100 excl=40 share=100.0%\n"
                                "    step calls=2 incl=50 excl=40 share=50.0%\n"
                                "      io calls=2 incl=10 excl=10 share=20.0%\n"
                                "    io calls=1 incl=10 excl=10 share=10.0%\n"));
        const auto tree = model::buildSpanTree(*capture);
        const auto& step =
            tree.nodes[tree.nodes[tree.nodes[tree.roots[0]].children[0]].children[0]];
        QCOMPARE(step.minimum, int64_t(20));
        QCOMPARE(step.maximum, int64_t(30));
    }

    void lanesPerThreadAndMerged()
    {
        auto capture = buildCapture(R"(
work 0 0 100 thread=0
sub 0 10 20 thread=0
work 0 0 50 thread=1
sub 0 5 25 thread=1
work 1 0 40 task=3
)");
        model::ThreadInfo worker;
        worker.index = 1;
        worker.name = capture->strings.intern("worker-1");
        capture->threads.push_back(worker);
        model::computeNesting(*capture);
        QCOMPARE(
            text(*capture, model::buildSpanTree(*capture)),
            QStringLiteral("rank 0 \u00b7 thread 0 calls=0 incl=100 excl=0 share=100.0%\n"
                           "  work calls=1 incl=100 excl=90 share=100.0%\n"
                           "    sub calls=1 incl=10 excl=10 share=10.0%\n"
                           "rank 0 \u00b7 thread 1 worker-1 calls=0 incl=50 excl=0 share=100.0%\n"
                           "  work calls=1 incl=50 excl=30 share=100.0%\n"
                           "    sub calls=1 incl=20 excl=20 share=40.0%\n"
                           "rank 1 \u00b7 task 3 calls=0 incl=40 excl=0 share=100.0%\n"
                           "  work calls=1 incl=40 excl=40 share=100.0%\n"));
        model::SpanTreeFilter merged;
        merged.mergeLanes = true;
        QCOMPARE(text(*capture, model::buildSpanTree(*capture, merged)),
                 QStringLiteral("all lanes calls=0 incl=190 excl=0 share=100.0%\n"
                                "  work calls=3 incl=190 excl=160 share=100.0%\n"
                                "    sub calls=2 incl=30 excl=30 share=15.8%\n"));
    }

    void categoryFilterReattachesToKeptAncestor()
    {
        auto capture = nestedCapture();
        addCategories(*capture);
        model::SpanTreeFilter ioOnly;
        ioOnly.categories = std::set<std::pair<uint32_t, uint32_t>>{{0, 2}};
        // Only io is kept: both io calls of domain 0 climb to the lane.
        QCOMPARE(text(*capture, model::buildSpanTree(*capture, ioOnly)),
                 QStringLiteral("rank 0 \u00b7 thread 0 calls=0 incl=10 excl=0 share=100.0%\n"
                                "  io calls=2 incl=10 excl=10 share=100.0%\n"));
        // Uncategorised main and io: the io calls inside `step` re-attach to main.
        model::SpanTreeFilter mainAndIo;
        mainAndIo.categories = std::set<std::pair<uint32_t, uint32_t>>{{0, 0}, {0, 2}, {7, 2}};
        QCOMPARE(text(*capture, model::buildSpanTree(*capture, mainAndIo)),
                 QStringLiteral("rank 0 \u00b7 thread 0 calls=0 incl=100 excl=0 share=100.0%\n"
                                "  main calls=1 incl=100 excl=80 share=100.0%\n"
                                "    io calls=3 incl=20 excl=20 share=20.0%\n"));
        // Steps and io: the last io (in no step) moves up to the lane.
        model::SpanTreeFilter stepsAndIo;
        stepsAndIo.categories = std::set<std::pair<uint32_t, uint32_t>>{{0, 1}, {0, 2}, {7, 2}};
        QCOMPARE(text(*capture, model::buildSpanTree(*capture, stepsAndIo)),
                 QStringLiteral("rank 0 \u00b7 thread 0 calls=0 incl=60 excl=0 share=100.0%\n"
                                "  step calls=2 incl=50 excl=40 share=83.3%\n"
                                "    io calls=2 incl=10 excl=10 share=20.0%\n"
                                "  io calls=1 incl=10 excl=10 share=16.7%\n"));
        model::SpanTreeFilter cudaDomain;
        cudaDomain.domains = std::set<uint32_t>{7};
        QCOMPARE(text(*capture, model::buildSpanTree(*capture, cudaDomain)),
                 QStringLiteral("rank 0 \u00b7 thread 0 calls=0 incl=10 excl=0 share=100.0%\n"
                                "  io calls=1 incl=10 excl=10 share=100.0%\n"));
    }

    void itemModel()
    {
        auto capture = nestedCapture();
        views::SpanTreeModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTree(capture,
                      std::make_shared<const model::SpanTree>(model::buildSpanTree(*capture)));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.columnCount(), int(views::SpanTreeModel::ColumnCount));
        const QModelIndex lane = model.index(0, 0);
        const QModelIndex main = model.index(0, 0, lane);
        QCOMPARE(main.data().toString(), QStringLiteral("main"));
        const QModelIndex step = model.index(0, 0, main);
        QCOMPARE(model.rowCount(main), 2);
        QCOMPARE(model.parent(step), main);
        QCOMPARE(step.siblingAtColumn(views::SpanTreeModel::CallsColumn).data().toString(),
                 QStringLiteral("2"));
        QCOMPARE(step.siblingAtColumn(views::SpanTreeModel::InclusiveColumn)
                     .data(views::SpanTreeModel::SortRole)
                     .toLongLong(),
                 50LL);
        QCOMPARE(step.siblingAtColumn(views::SpanTreeModel::ShareColumn)
                     .data(views::SpanTreeModel::SortRole)
                     .toDouble(),
                 0.5);
        QVERIFY(step.siblingAtColumn(views::SpanTreeModel::InclusiveColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("50")));
        QCOMPARE(step.data(views::SpanTreeModel::RegionRole).toInt(), findRegion(*capture, "step"));
        QCOMPARE(lane.data(views::SpanTreeModel::RegionRole).toInt(), -1);
        model.setTree(nullptr, nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void widget()
    {
        auto capture = nestedCapture();
        addCategories(*capture);
        views::SpanTreeWidget widget;
        widget.resize(700, 400);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        widget.setCapture(capture);
        QTreeView* view = widget.treeView();
        QCOMPARE(view->model()->rowCount(), 1);
        const QModelIndex lane = view->model()->index(0, 0);
        const QModelIndex main = view->model()->index(0, 0, lane);
        QVERIFY(view->isExpanded(lane));
        QVERIFY(view->isExpanded(main));
        QSignalSpy selected(&widget, &views::SpanTreeWidget::regionSelected);
        view->setCurrentIndex(main);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.at(0).at(0).toInt(), findRegion(*capture, "main"));

        QCOMPARE(widget.domainFilter()->count(), 3);   // All domains, default, cuda
        QCOMPARE(widget.categoryFilter()->count(), 3); // All categories, compute, io
        widget.categoryFilter()->setCurrentIndex(2);   // io of domain 0: the cuda io is left out
        QCOMPARE(widget.model()->tree()->toText(*capture),
                 std::string("rank 0 \u00b7 thread 0 calls=0 incl=10 excl=0 share=100.0%\n"
                             "  io calls=2 incl=10 excl=10 share=100.0%\n"));
        widget.categoryFilter()->setCurrentIndex(0);
        widget.laneMode()->setCurrentIndex(1);
        QCOMPARE(view->model()->index(0, 0).data().toString(), QStringLiteral("all lanes"));
        QVERIFY(testing::saveScreenshot(widget, "span-tree-small"));

        // A recorded file (SPANSCOPE_SPAN_TREE_FILE), for a person to look at.
        const QByteArray file = qgetenv("SPANSCOPE_SPAN_TREE_FILE");
        if (!file.isEmpty()) {
            SPANSCOPE_LOAD(loaded, file.toStdString());
            QSignalSpy updated(&widget, &views::SpanTreeWidget::treeUpdated);
            widget.laneMode()->setCurrentIndex(0);
            widget.setCapture(loaded.capture);
            if (updated.isEmpty())
                QVERIFY(updated.wait(20000));
            widget.resize(900, 600);
            QVERIFY(widget.treeView()->model()->rowCount() > 0);
            QVERIFY(testing::saveScreenshot(widget, "span-tree"));
        }
    }

    void liveUpdatesKeepFiltersAndExpansion()
    {
        auto capture = nestedCapture();
        addCategories(*capture);
        views::SpanTreeWidget widget;
        widget.resize(700, 400);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        widget.setCapture(capture);
        widget.domainFilter()->setCurrentIndex(1); // default
        QTreeView* view = widget.treeView();
        const QModelIndex lane = view->model()->index(0, 0);
        const QModelIndex main = view->model()->index(0, 0, lane);
        const QModelIndex step = view->model()->index(0, 0, main);
        QCOMPARE(step.data().toString(), QStringLiteral("step"));
        QVERIFY(!view->isExpanded(step));
        view->expand(step);

        // A newer snapshot of the same, grown capture: one more step under main.
        auto grown = nestedCapture(true);
        addCategories(*grown);
        grown->nvtx.callDomains.push_back(0);
        grown->nvtx.callCategories.push_back(1);
        QSignalSpy rebuilt(&widget, &views::SpanTreeWidget::treeUpdated);
        widget.setCapture(grown, true);
        QTRY_COMPARE(rebuilt.count(), 1); // live updates are built on a worker (it may land inside setCapture's event processing)
        QCOMPARE(widget.domainFilter()->currentIndex(), 1);
        const QModelIndex grownMain = view->model()->index(0, 0, view->model()->index(0, 0));
        const QModelIndex grownStep = view->model()->index(0, 0, grownMain);
        QCOMPARE(grownStep.data().toString(), QStringLiteral("step"));
        QCOMPARE(grownStep.siblingAtColumn(views::SpanTreeModel::CallsColumn).data().toString(),
                 QStringLiteral("3"));
        QVERIFY(view->isExpanded(grownStep)); // what the user opened stays open

        // While hidden, updates wait: the tree is rebuilt when shown, with the same state.
        widget.hide();
        QSignalSpy updated(&widget, &views::SpanTreeWidget::treeUpdated);
        widget.setCapture(capture, true);
        QCOMPARE(updated.count(), 0);
        widget.show();
        QTRY_COMPARE(updated.count(), 1); // the worker's result may land while show() processes events
        const QModelIndex shownStep =
            view->model()->index(0, 0, view->model()->index(0, 0, view->model()->index(0, 0)));
        QCOMPARE(shownStep.siblingAtColumn(views::SpanTreeModel::CallsColumn).data().toString(),
                 QStringLiteral("2"));
        QVERIFY(view->isExpanded(shownStep));
    }

    void widgetRebuildsOnWorkerLatestWins()
    {
        auto capture = nestedCapture();
        addCategories(*capture);
        views::SpanTreeWidget widget;
        widget.setAsyncThreshold(0);
        QSignalSpy updated(&widget, &views::SpanTreeWidget::treeUpdated);
        widget.setCapture(capture);
        widget.categoryFilter()->setCurrentIndex(2); // io: supersedes the first build
        widget.laneMode()->setCurrentIndex(1);       // merged: supersedes that one
        QVERIFY(updated.wait(5000));
        testing::settlePool(); // the superseded builds have finished and been delivered too
        QCOMPARE(updated.count(), 1);
        QCOMPARE(widget.model()->tree()->toText(*capture),
                 std::string("all lanes calls=0 incl=10 excl=0 share=100.0%\n"
                             "  io calls=2 incl=10 excl=10 share=100.0%\n"));
    }

    void captureViewTab()
    {
        auto capture = nestedCapture();
        auto summary = model::summarizeCapture(*capture);
        views::CaptureView view;
        view.resize(1200, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setCapture(capture, summary, model::TimelineIndex::build(*capture));
        QTabWidget* tabs = view.sideTabs();
        QCOMPARE(tabs->tabText(tabs->indexOf(view.spanTree())), QStringLiteral("Span tree"));
        tabs->setCurrentWidget(view.spanTree());
        QTreeView* tree = view.spanTree()->treeView();
        const QModelIndex main = tree->model()->index(0, 0, tree->model()->index(0, 0));
        const QModelIndex io = tree->model()->index(1, 0, main);
        QCOMPARE(io.data().toString(), QStringLiteral("io"));
        tree->setCurrentIndex(io);
        const QModelIndex current =
            view.regionProxy()->mapToSource(view.regionTable()->currentIndex());
        QCOMPARE(int(view.regionModel()->entry(current.row()).region), findRegion(*capture, "io"));
    }

private:
};

QTEST_MAIN(TestSpanTree)
#include "tst_span_tree.moc"
