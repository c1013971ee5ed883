// The GPU page of a capture with GPU work, as a person uses it: it comes first, shows each
// device's utilization, latency, streams and largest gaps from the analyses, zooms the
// timeline to a gap, draws the critical path on the timeline, follows the device choice,
// says when a kernel class matched nothing; a CPU capture has no GPU page. Set
// SPANSCOPE_SCREENSHOT_DIR to keep screenshots for a person to look at.
#include "model/capture_loader.h"
#include "views/call_details_widget.h"
#include "views/capture_view.h"
#include "views/gpu/gpu_gap_model.h"
#include "views/gpu/gpu_stream_model.h"
#include "views/gpu/gpu_view.h"
#include "views/gpu/latency_histogram.h"
#include "views/gpu/share_bar.h"
#include "views/timeline/timeline_view.h"
#include "support/kineto_builder.h"
#include "support/screenshots.h"
#include "support/trace_files.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QtTest>

using namespace spanscope;

namespace {

model::LoadedCapture load(const char* name)
{
    return testing::loadKineto(name);
}

constexpr int kAnalysisTimeoutMs = 60'000; // a loaded CI machine; it takes a few ms here

} // namespace

class TestGpuTab : public QObject
{
    Q_OBJECT

private slots:
    void theGpuPageComesFirstWithTheAnalyses()
    {
        const auto loaded = load("sampled-five-streams.json.gz");
        views::CaptureView view;
        view.resize(1400, 900);
        view.setCapture(loaded.capture, loaded.summary, loaded.timeline);
        view.show();
        views::GpuView* gpu = view.gpuView();
        QCOMPARE(view.pages()->currentWidget(), static_cast<QWidget*>(gpu));
        QCOMPARE(view.pages()->tabText(0), QString("GPU"));
        QTRY_VERIFY_WITH_TIMEOUT(gpu->analysis() != nullptr, kAnalysisTimeoutMs);

        // The figures of tests/data/kineto/analyses.json, as the page shows them.
        const auto& bar = gpu->utilizationBar()->parts();
        QCOMPARE(bar.size(), size_t(4));
        QCOMPARE(bar[0].ns, int64_t(210320000));
        QCOMPARE(bar[1].ns, int64_t(336983000));
        QCOMPARE(bar[3].ns, int64_t(675191000));
        QCOMPARE(gpu->utilizationBar()->total(), int64_t(1222847000));
        QVERIFY(gpu->utilizationBar()->legendTexts()[3].startsWith(QStringLiteral("idle 675.2 ms (55.2 %)")));
        QVERIFY2(gpu->latencyLine()->text().contains(QStringLiteral("median 10.83 ms")),
                 qPrintable(gpu->latencyLine()->text()));
        QVERIFY(gpu->latencyLine()->text().contains(QStringLiteral("87 launches started before")));
        QCOMPARE(gpu->streamTable()->model()->rowCount(), 5);
        QCOMPARE(gpu->gapTable()->model()->rowCount(), 20);
        // Every stream figure in view at 1400x900, the max queue last: no scrolling sideways.
        QTRY_COMPARE(gpu->streamTable()->horizontalScrollBar()->maximum(), 0);
        const auto& bins = gpu->latencyHistogram()->bins();
        uint64_t launches = 0, negative = 0;
        for (size_t i = 0; i < bins.positive.size(); ++i) {
            launches += bins.positive[i] + bins.negative[i];
            negative += bins.negative[i];
        }
        QCOMPARE(launches, uint64_t(1204));
        QCOMPARE(negative, uint64_t(87));
        int64_t shares = 0;
        for (const auto& part : gpu->pathBar()->parts())
            shares += part.ns;
        QCOMPARE(shares, gpu->currentPath()->lengthNs);
        QVERIFY(!gpu->deviceSelector()->isVisible()); // one device: nothing to choose

        // The timeline opens GPU first: every stream lane before the first CPU thread.
        QTRY_VERIFY(view.timeline()->frameUpToDate());
        const auto& list = view.timeline()->drawList();
        const auto& lanes = loaded.timeline->lanes();
        int32_t lowestStream = -1, firstThread = INT32_MAX;
        for (uint32_t lane = 0; lane < lanes.size(); ++lane) {
            const auto kind = loaded.capture->track(lanes[lane].track).kind;
            if (kind == model::TrackKind::GpuStream)
                lowestStream = std::max(lowestStream, list.lanes[lane].y);
            else if (kind == model::TrackKind::Thread)
                firstThread = std::min(firstThread, list.lanes[lane].y);
        }
        QVERIFY(lowestStream >= 0 && lowestStream < firstThread);
        QVERIFY(lowestStream < view.timeline()->laneArea().height()); // in view without scrolling
        testing::saveScreenshot(view, QStringLiteral("gpu-tab"));

        // A gap, clicked, fills the timeline (with a margin either side).
        const auto* proxy = gpu->gapTable()->model();
        const QModelIndex first = proxy->index(0, 0);
        QSignalSpy gaps(gpu, &views::GpuView::gapActivated);
        emit gpu->gapTable()->clicked(first);
        QCOMPARE(gaps.count(), 1);
        const qint64 start = gaps[0][0].toLongLong(), end = gaps[0][1].toLongLong();
        QCOMPARE(end - start, qint64(560120000)); // the largest gap: stream 25, waiting for the host
        QVERIFY(view.timeline()->zoom()->start() < start && view.timeline()->zoom()->end() > end);
        QVERIFY(view.timeline()->zoom()->span() < (end - start) * 2);

        // The critical path, drawn and taken away.
        QVERIFY(gpu->showPathButton()->isEnabled());
        gpu->showPathButton()->setChecked(true);
        QVERIFY(view.timeline()->criticalPath());
        view.timeline()->zoom()->fit();
        QTRY_VERIFY(view.timeline()->frameUpToDate() && !view.timeline()->drawList().path.empty());
        testing::saveScreenshot(view, QStringLiteral("critical-path"));
        gpu->showPathButton()->setChecked(false);
        QVERIFY(!view.timeline()->criticalPath());
        QTRY_VERIFY(view.timeline()->frameUpToDate() && view.timeline()->drawList().path.empty());

        // A click on a call in the timeline shows it on the regions page.
        emit view.timeline()->callSelected(0);
        QCOMPARE(view.pages()->currentWidget(), view.pages()->widget(1));
    }

    // Six streams, a deep CPU thread and others: at 1400×900 and at 1000×700 every stream
    // and the busiest CPU thread are in view when the capture opens.
    void everyStreamAndTheBusiestThreadAreInView_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1400x900") << QSize(1400, 900);
        QTest::newRow("1000x700") << QSize(1000, 700);
    }

    void everyStreamAndTheBusiestThreadAreInView()
    {
        QFETCH(QSize, size);
        testing::KinetoTrace t;
        int64_t correlation = 1;
        for (int step = 0; step < 40; ++step) {
            const int64_t at = step * 1'000'000;
            t.op("ProfilerStep", at, 900'000);
            for (int depth = 1; depth < 9; ++depth) // nesting 9 deep
                t.op("aten::op", at + depth * 1'000, 900'000 - 2'000 * depth);
            for (int s = 0; s < 6; ++s, ++correlation) {
                t.call("cudaLaunchKernel", at + 20'000 + s * 5'000, 3'000, correlation);
                t.kernel(s == 5 ? "ncclDevKernel_AllReduce_Sum_f32_RING_LL" : "gemm", at + 40'000 + s * 10'000,
                         200'000 + s * 50'000, 7 + s, correlation);
            }
            t.op("dataloader", at, 300'000, 2);
            t.op("pin_memory", at, 100'000, 3);
        }
        testing::TraceFiles files;
        auto loaded = model::loadCapture(files.write("six.json", t.json()), nullptr, model::LoadOptions{true});
        QVERIFY(loaded.ok());
        const auto& l = loaded.value();
        views::CaptureView view;
        view.resize(size);
        view.setCapture(l.capture, l.summary, l.timeline);
        view.show();
        QTRY_VERIFY(view.timeline()->frameUpToDate());
        const auto& list = view.timeline()->drawList();
        const int height = view.timeline()->laneArea().height();
        int streams = 0;
        const model::TimelineLane* busiest = nullptr;
        int busiestY = -1;
        for (uint32_t lane = 0; lane < l.timeline->lanes().size(); ++lane) {
            const auto& info = l.timeline->lanes()[lane];
            const auto& track = l.capture->track(info.track);
            const auto& g = list.lanes[lane];
            if (track.kind == model::TrackKind::GpuStream) {
                ++streams;
                QVERIFY2(g.y >= 0 && g.y + 10 < height, qPrintable(QString::fromStdString(info.title)));
            } else if (track.kind == model::TrackKind::Thread && (!busiest || info.calls > busiest->calls)) {
                busiest = &info;
                busiestY = g.y;
                QVERIFY(!g.collapsed);
            }
        }
        QCOMPARE(streams, 6);
        QVERIFY(busiest && busiestY >= 0 && busiestY + 30 < height); // its header and a row
        testing::saveScreenshot(view, QStringLiteral("six-streams-%1x%2").arg(size.width()).arg(size.height()));

        // Stepping to a call on a folded lane below the view unfolds it and scrolls it in.
        const auto& c = *l.capture;
        uint32_t pinned = UINT32_MAX;
        for (uint32_t r = 0; r < c.rows.size() && pinned == UINT32_MAX; ++r)
            if (c.regionName(c.rows[r].region) == "pin_memory")
                pinned = uint32_t(c.rowEvents(r).front());
        QVERIFY(pinned != UINT32_MAX);
        const int32_t lane = l.timeline->laneOf(c.trackOfEvent(l.timeline->rowOf(pinned), pinned));
        QVERIFY(lane >= 0 && list.lanes[size_t(lane)].collapsed);
        view.timeline()->selectEvent(pinned, true);
        QTRY_VERIFY(view.timeline()->frameUpToDate());
        const auto& after = view.timeline()->drawList().lanes[size_t(lane)];
        QVERIFY(!after.collapsed);
        QVERIFY2(after.y >= 0 && after.y + after.height <= height,
                 qPrintable(QStringLiteral("lane at %1 + %2 of %3").arg(after.y).arg(after.height).arg(height)));
    }

    // A kernel's attributes are a table of fields; an NCCL kernel says what it moved; the
    // launch latency is given from the call's end and from its start, labelled.
    void callDetailsOfKernels()
    {
        const auto loaded = load("v100-memory-part.json.gz");
        views::CaptureView view;
        view.resize(1400, 900);
        view.setCapture(loaded.capture, loaded.summary, loaded.timeline);
        const auto& c = *loaded.capture;
        uint32_t nccl = UINT32_MAX;
        for (uint32_t r = 0; r < c.rows.size() && nccl == UINT32_MAX; ++r)
            if (c.regionKind(c.rows[r].region) == model::RegionKind::Kernel &&
                c.regionName(c.rows[r].region).rfind("ncclKernel_AllReduce_RING_LL_Sum_float", 0) == 0)
                nccl = uint32_t(c.rowEvents(r).front());
        QVERIFY(nccl != UINT32_MAX);
        emit view.timeline()->callSelected(nccl);
        const QString text = view.callDetails()->plainText();
        for (const char* expected : {"Collective", "AllReduce", "Algorithm", "RING", "Protocol", "LL", "Reduction",
                                     "Data type", "float", "Launch latency (from the call's end)",
                                     "Launch latency (from the call's start)", "Attributes", "est. achieved occupancy %",
                                     "blocks per SM"})
            QVERIFY2(text.contains(QString::fromUtf8(expected)), expected);
        QVERIFY(!text.contains(QStringLiteral("{\"External id\"")));          // not one JSON blob
        QVERIFY(text.contains(QStringLiteral("the trace records no message size"))); // this PyTorch wrote none
    }

    void kernelClassesThatMatchNothingAreSaid()
    {
        const auto loaded = load("tiny-two-streams.json.gz");
        views::GpuView gpu;
        QSignalSpy finished(&gpu, &views::GpuView::analysisFinished);
        model::analysis::KernelClasses classes;
        QVERIFY(!classes.add("attention=flash"));
        gpu.setKernelClasses(classes);
        gpu.setCapture(loaded.capture);
        QVERIFY(finished.wait(kAnalysisTimeoutMs));
        const auto notes = gpu.findChildren<QLabel*>();
        bool said = false;
        for (const QLabel* label : notes)
            said |= label->text().contains(QStringLiteral("matched no kernel: attention (flash)"));
        QVERIFY(said);
        QAbstractItemModelTester streams(gpu.streamTable()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester gaps(gpu.gapTable()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(gpu.streamTable()->model()->rowCount(), 2);
    }

    // A live capture's updates are analysed while the page shows; one that comes while it
    // is hidden waits for it to be shown (the job's machine pays for no page nobody sees).
    void aHiddenPageAnalysesTheNewestSnapshotWhenShown()
    {
        const auto first = load("tiny-two-streams.json.gz");
        const auto newer = load("tiny-two-streams.json.gz"); // as a later snapshot would be
        QTabWidget tabs;
        auto* gpu = new views::GpuView;
        tabs.addTab(gpu, QStringLiteral("GPU"));
        tabs.addTab(new QLabel(QStringLiteral("regions")), QStringLiteral("Regions"));
        tabs.show();
        QSignalSpy finished(gpu, &views::GpuView::analysisFinished);
        gpu->setCapture(first.capture);
        QVERIFY(finished.wait(kAnalysisTimeoutMs));
        const auto shownFirst = gpu->analysis();

        tabs.setCurrentIndex(1);
        QVERIFY(!gpu->isVisible());
        gpu->setCapture(newer.capture, true);
        QVERIFY(gpu->stale());
        QVERIFY(!gpu->analysing());
        QCOMPARE(gpu->analysis(), shownFirst); // what it showed stays until shown again

        tabs.setCurrentIndex(0);
        QVERIFY(!gpu->stale());
        QVERIFY(finished.wait(kAnalysisTimeoutMs));
        QVERIFY(gpu->analysis() != shownFirst);
        QCOMPARE(gpu->streamTable()->model()->rowCount(), 2);

        // While the page shows, an update is analysed at once.
        gpu->setCapture(first.capture, true);
        QVERIFY(!gpu->stale());
        QVERIFY(finished.wait(kAnalysisTimeoutMs));
    }

    // A capture without GPU work has no GPU page, and the regions show alone.
    void aCpuCaptureHasNoGpuPage()
    {
        const auto loaded = load("cpu-only.json.gz");
        views::CaptureView view;
        view.setCapture(loaded.capture, loaded.summary, loaded.timeline);
        QCOMPARE(view.pages()->count(), 1);
        QVERIFY(view.pages()->indexOf(view.gpuView()) < 0);
        QVERIFY(!views::GpuView::hasGpuWork(*loaded.capture));
        // Reloaded as a GPU capture, the page comes back first.
        const auto gpuLoaded = load("tiny-two-streams.json.gz");
        view.setCapture(gpuLoaded.capture, gpuLoaded.summary, gpuLoaded.timeline);
        QCOMPARE(view.pages()->indexOf(view.gpuView()), 0);
    }
};

QTEST_MAIN(TestGpuTab)
#include "tst_gpu_tab.moc"
