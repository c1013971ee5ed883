// What a GPU trace shows in the viewer: a selected kernel with its launch flow, the launch
// and its CPU stack in the call details (and the reverse), counter lanes, the Allocations
// tab, and the region table's Kind column. Real PyTorch profiler traces from tests/data.
// Set SPANSCOPE_SCREENSHOT_DIR to keep screenshots for a person to look at.

#include "model/capture_loader.h"
#include "views/call_details_widget.h"
#include "views/capture_view.h"
#include "views/display_text.h"
#include "views/plots/allocations_view.h"
#include "views/plots/plot_frame.h"
#include "views/region_table_model.h"
#include "views/timeline/timeline_view.h"
#include "support/screenshots.h"
#include "support/trace_files.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QtTest>

using namespace spanscope;

namespace {

model::LoadedCapture load(const char* name)
{
    return testing::loadKineto(name);
}


// A kernel with a known shape and the runtime call that launched it.
std::pair<uint32_t, uint32_t> launchedKernel(const model::Capture& c)
{
    for (size_t f = 0; f < c.flows.size(); ++f) {
        if (c.flows.kind(f) != model::FlowKind::Launch)
            continue;
        const int64_t row = c.gpuActivities.rowOf(c.flows.to(f));
        if (row >= 0 && c.gpuActivities.kernelShape(size_t(row)))
            return {c.flows.from(f), c.flows.to(f)};
    }
    qFatal("no launched kernel");
}

} // namespace

class TestGpuViews : public QObject
{
    Q_OBJECT

private slots:
    void selectedKernelShowsItsLaunchAndTheReverse()
    {
        const auto loaded = load("a100-simple-add.json.gz");
        views::CaptureView view;
        view.resize(1500, 950);
        view.setCapture(loaded.capture, loaded.summary, loaded.timeline);
        view.show();
        const auto [launch, kernel] = launchedKernel(*loaded.capture);

        emit view.timeline()->callSelected(kernel); // as a click does
        view.timeline()->selectEvent(kernel, true);
        QTRY_VERIFY(view.timeline()->frameUpToDate());
        const auto& list = view.timeline()->drawList();
        QCOMPARE(list.flows.size(), size_t(1)); // the kernel's launch, as an arrow
        QVERIFY(list.flows[0].y1 < list.flows[0].y0); // from the CPU thread up to the stream (GPU first)

        const QString kernelText = view.callDetails()->plainText();
        for (const char* expected : {"kernel", "GPU 0 \u00b7 stream 7", "Grid", "Block", "Registers per thread",
                                     "Shared memory per block", "Correlation", "Launched by", "cudaLaunchKernel",
                                     "Launch latency", "NVIDIA A100-PG509-200"})
            QVERIFY2(kernelText.contains(QString::fromUtf8(expected)), expected);
        // The launch's stack: the CPU ranges open when it launched, outermost first.
        const auto stack = loaded.timeline->stackOf(*loaded.capture, launch);
        QVERIFY(stack.size() > 2);
        QVERIFY(kernelText.contains(QString::fromStdString(
            loaded.capture->regionName(loaded.capture->rows[loaded.timeline->rowOf(stack.front())].region))));
        QVERIFY(testing::saveScreenshot(view, "gpu-kernel-selected"));

        // The reverse: the launch lists the kernel it started, and where that ran.
        emit view.timeline()->callSelected(launch);
        const QString launchText = view.callDetails()->plainText();
        QVERIFY(launchText.contains(QStringLiteral("Launched")));
        QVERIFY(launchText.contains(QStringLiteral("GPU work launched inside this call")));
        const QString kernelName = QString::fromStdString(
            loaded.capture->regionName(loaded.capture->rows[loaded.timeline->rowOf(kernel)].region));
        QVERIFY(launchText.contains(views::elidedName(kernelName, 80))); // long names are elided in lists

        // A linked call is a link that selects it.
        QSignalSpy clicked(view.callDetails(), &views::CallDetailsWidget::callClicked);
        view.callDetails()->showCall(kernel);
        QVERIFY(view.callDetails()->call() == kernel);
    }

    void regionTableTellsKindsApart()
    {
        const auto loaded = load("tiny-two-streams.json.gz");
        views::RegionTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setCapture(loaded.capture, loaded.summary);
        const int kind = model.columnOf(views::RegionTableModel::Column::Kind);
        QVERIFY(kind > 0);
        QStringList kinds;
        for (int row = 0; row < model.rowCount(); ++row)
            kinds << model.data(model.index(row, kind)).toString();
        kinds.removeDuplicates();
        kinds.sort();
        QCOMPARE(kinds, (QStringList{"cpu", "kernel", "memcpy", "memset"}));
    }

    void counterLanesAndAllocationsTab()
    {
        const auto loaded = load("v100-memory-part.json.gz");
        views::CaptureView view;
        view.resize(1500, 950);
        view.setCapture(loaded.capture, loaded.summary, loaded.timeline);
        view.show();
        int counterLanes = 0, derived = 0;
        for (const auto& lane : loaded.timeline->lanes())
            if (lane.counter >= 0)
                (loaded.capture->counters[size_t(lane.counter)].derived ? derived : counterLanes) += 1;
        QCOMPARE(counterLanes, 4); // allocated and reserved, for the GPU and the host
        QCOMPARE(derived, 3);      // the GPU's utilization, and the queue of each of its two streams

        views::AllocationsView* allocations = view.allocations();
        view.showRegionsPage();
        view.sideTabs()->setCurrentWidget(allocations);
        QSignalSpy shown(allocations, &views::AllocationsView::resultShown);
        allocations->setWholeRun(true);
        QTRY_VERIFY(allocations->result() != nullptr);
        // The GPU is chosen first: 5,146 allocations and 4,422 frees in this part of the run.
        QVERIFY2(allocations->figuresText().startsWith(QStringLiteral("5,146 allocations")),
                 qPrintable(allocations->figuresText()));
        QVERIFY(allocations->figuresText().contains(QStringLiteral("4,422 frees")));
        QCOMPARE(allocations->largestTable()->rowCount(), 50);
        QVERIFY(allocations->frame()->plotShown());
        // Each of the largest shows the ranges open on its thread when it was made.
        QVERIFY(!allocations->largestTable()->item(0, 4)->text().isEmpty());
        // The memory counters with the streams and the busiest thread, for the screenshot.
        view.timeline()->setLaneFilter(QRegularExpression(QStringLiteral("stream|allocated|reserved|785244")));
        QTRY_VERIFY(view.timeline()->frameUpToDate());
        QVERIFY(testing::saveScreenshot(view, "allocations-tab"));

        // Clicking the largest shows it in the timeline: its innermost open range is selected.
        const uint64_t whole = allocations->result()->breakdown.allocs;
        const auto largest = allocations->result()->largest.front();
        QSignalSpy clicked(allocations, &views::AllocationsView::allocationClicked);
        QTest::mouseClick(allocations->largestTable()->viewport(), Qt::LeftButton, {},
                          allocations->largestTable()->visualItemRect(allocations->largestTable()->item(0, 0)).center());
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(qint64(clicked.front().at(1).toLongLong()), loaded.capture->allocations.time(largest.row));
        QVERIFY(!largest.stack.empty());
        QCOMPARE(view.timeline()->selectedEvent(), std::optional<uint32_t>(largest.stack.back()));

        // Inside one region's calls only: fewer than the whole run.
        allocations->setWholeRun(false);
        const int row = view.regionModel()->findEntry(0, std::nullopt);
        QVERIFY(row >= 0);
        allocations->showRegion(0, view.regionModel()->captureRows(row));
        QTRY_VERIFY(allocations->result() != nullptr);
        QVERIFY(allocations->result()->breakdown.allocs <= whole);
    }
};

QTEST_MAIN(TestGpuViews)
#include "tst_gpu_views.moc"
