// Rows held in several spans of the event columns, with events no row holds between them
// (model/row_events.h), as a live capture's append-only columns will hold them: nesting,
// statistics, the timeline index, the span tree, search, saving and export give what they
// give for the same capture with each row in one span.

#include "model/capture_loader.h"
#include "model/event_layout.h"
#include "model/io/capture_writer.h"
#include "model/io/chrome/chrome_trace_writer.h"
#include "model/live/process_merge.h"
#include "model/stats/span_tree.h"
#include "model/timeline/call_search.h"
#include "support/capture_builder.h"
#include "support/capture_writer_checks.h"
#include "support/same_stats.h"
#include "support/spread_rows.h"
#include "support/test_helpers.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

using namespace spanscope;
using namespace spanscope::model;
using namespace spanscope::testing;

namespace {

// Nested calls on two threads of two ranks, one never closed, with GPU times.
constexpr const char* kNested = R"(step 0 0 1000 thread=0 gpu=10
step 0 1000 2000 thread=0 gpu=20
step 0 2000 3000 thread=0
step 0 3000 4000 thread=0 gpu=30
step 0 4000 5000 thread=0
step 0 5000 6000 thread=0
step 0 6000 7000 thread=0
step 0 7000 -1 thread=0
load 0 10 400 thread=0
load 0 1010 1400 thread=0
load 0 2010 2400 thread=0
load 0 3010 3400 thread=0
load 0 4010 4400 thread=0
parse 0 20 100 thread=0
parse 0 1020 1100 thread=0
parse 0 2020 2100 thread=0
parse 0 3020 3100 thread=0
parse 0 4020 4100 thread=0
parse 0 5020 5100 thread=0
parse 0 6020 6100 thread=0
io 0 50 900 thread=1
io 0 1050 1900 thread=1
io 0 2050 2900 thread=1
io 0 3050 3900 thread=1
step 1 0 1500 thread=0
step 1 1500 3000 thread=0
step 1 3000 4500 thread=0
step 1 4500 6000 thread=0
load 1 100 700 thread=0
load 1 1600 2200 thread=0
load 1 3100 3700 thread=0
load 1 4600 5200 thread=0
)";

std::shared_ptr<Capture> readFile(const std::string& path)
{
    auto read = readCaptureFile(path, ProgressRange{nullptr, 0, 1});
    if (!read)
        qFatal("cannot read %s: %s", path.c_str(), read.error().message.c_str());
    return read.value();
}

LoadedCapture analysed(std::shared_ptr<Capture> capture)
{
    LoadOptions options;
    options.timeline = true;
    auto loaded = analyzeCapture(std::move(capture), ProgressRange{nullptr, 0, 1}, options);
    if (!loaded)
        qFatal("analysis cancelled");
    return *loaded;
}

// Each event of `laid` (rows in one span each) -> the same call in `spread`.
std::vector<uint32_t> sameCalls(const Capture& laid, const Capture& spread)
{
    std::vector<uint32_t> to(laid.events.size(), kDroppedEvent);
    for (uint32_t r = 0; r < laid.rows.size(); ++r) {
        const RowEvents a = laid.rowEvents(r), b = spread.rowEvents(r);
        if (a.size() != b.size())
            return {};
        for (uint64_t k = 0; k < a.size(); ++k)
            to[a[k]] = uint32_t(b[k]);
    }
    return to;
}

std::string spanTreeText(const Capture& c)
{
    return buildSpanTree(c).toText(c);
}

std::string chromeExport(const Capture& c, const QTemporaryDir& dir, const char* name)
{
    const std::string path = dir.filePath(name).toStdString();
    if (auto written = io::writeChromeTrace(c, path); !written)
        return "not written: " + written.error().message;
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

class TestRowSpans : public QObject
{
    Q_OBJECT

private slots:
    void rowEventsWalksEverySpanInOrder()
    {
        const std::vector<EventSpan> spans = {{10, 12}, {3, 4}, {20, 23}};
        const RowEvents row(spans, 6);
        QCOMPARE(row.size(), uint64_t(6));
        std::vector<uint64_t> walked(row.begin(), row.end());
        QCOMPARE(walked, (std::vector<uint64_t>{10, 11, 3, 20, 21, 22}));
        for (uint64_t k = 0; k < row.size(); ++k) {
            QCOMPARE(row[k], walked[k]);
            QCOMPARE(row.positionOf(walked[k]), std::optional<uint64_t>(k));
        }
        QCOMPARE(row.front(), uint64_t(10));
        QCOMPARE(row.back(), uint64_t(22));
        QVERIFY(!row.contains(12));
        QVERIFY(!row.contains(0));
        QCOMPARE(row.spans().size(), size_t(3));

        const RowEvents one(7, 3);
        QCOMPARE(std::vector<uint64_t>(one.begin(), one.end()), (std::vector<uint64_t>{7, 8, 9}));
        QCOMPARE(one.spans().size(), size_t(1));
        QCOMPARE(one.spans().front().end, uint64_t(10));
        QCOMPARE(one.positionOf(9), std::optional<uint64_t>(2));
        QVERIFY(!one.contains(10));
        const RowEvents none(7, 0);
        QVERIFY(none.begin() == none.end());
        QVERIFY(none.spans().empty());
        QVERIFY(!none.contains(7));
        // The spans of a temporary outlive it (a range-for over .spans()).
        uint64_t sum = 0;
        for (const EventSpan& s : RowEvents(100, 2).spans())
            sum += s.begin + s.end;
        QCOMPARE(sum, uint64_t(202));
    }

    void spreadCapturesAnalyseAsLaidOutOnes_data()
    {
        QTest::addColumn<QString>("source");
        QTest::newRow("nested calls, two ranks") << QString();
        QTest::newRow("scope-profiler, two ranks") << QString::fromStdString(dataFile("scope-profiler/solver-2rank.h5"));
        QTest::newRow("Kineto trace, GPU") << QString::fromStdString(dataFile("kineto/a100-simple-add.json.gz"));
        QTest::newRow("live capture, CUDA") << QString::fromStdString(dataFile("pytorch-h200/collector-h200.sps"));
    }

    void spreadCapturesAnalyseAsLaidOutOnes()
    {
        QFETCH(QString, source);
        auto laid = source.isEmpty() ? buildCapture(kNested) : readFile(source.toStdString());
        QVERIFY(rowsAreOneSpanEach(*laid));
        auto spread = spreadRows(*laid);
        QVERIFY(!rowsAreOneSpanEach(*spread));
        QVERIFY(spread->events.size() > laid->events.size()); // events no row holds
        QCOMPARE(spread->callCount(), laid->callCount());
        const LoadedCapture a = analysed(laid), b = analysed(spread);
        const Capture &x = *a.capture, &y = *b.capture;
        const std::vector<uint32_t> to = sameCalls(x, y);
        QVERIFY(!to.empty() || x.events.size() == 0);

        // Every call, with what the analysis gave it.
        for (uint32_t r = 0; r < x.rows.size(); ++r)
            for (const uint64_t e : x.rowEvents(r)) {
                const uint64_t f = to[e];
                QCOMPARE(y.events.start[f], x.events.start[e]);
                QCOMPARE(y.events.end[f], x.events.end[e]);
                QCOMPARE(y.events.depth[f], x.events.depth[e]);
                QCOMPARE(y.trackOfEvent(r, f).value, x.trackOfEvent(r, e).value);
                QCOMPARE(y.threadOfEvent(r, f), x.threadOfEvent(r, e));
                QCOMPARE(y.nvtx.domainOf(f), x.nvtx.domainOf(e));
                QCOMPARE(y.nvtx.categoryOf(f), x.nvtx.categoryOf(e));
                QCOMPARE(y.nvtx.endThreadOf(f), x.nvtx.endThreadOf(e));
                if (x.events.hasGpu())
                    QCOMPARE(y.events.gpu[f], x.events.gpu[e]);
            }
        QCOMPARE(y.rowExclusive, x.rowExclusive);
        QCOMPARE(y.laneExclusive.size(), x.laneExclusive.size());
        for (size_t i = 0; i < x.laneExclusive.size(); ++i) {
            QCOMPARE(y.laneExclusive[i].row, x.laneExclusive[i].row);
            QCOMPARE(y.laneExclusive[i].track.value, x.laneExclusive[i].track.value);
            QCOMPARE(y.laneExclusive[i].exclusiveNs, x.laneExclusive[i].exclusiveNs);
        }
        QCOMPARE(summaryDifference(*b.summary, *a.summary), QString());
        QCOMPARE(spanTreeText(y), spanTreeText(x));

        // The timeline: the same calls in every lane and depth, and the same busy time.
        const auto &lanesX = a.timeline->lanes(), &lanesY = b.timeline->lanes();
        QCOMPARE(lanesY.size(), lanesX.size());
        for (size_t l = 0; l < lanesX.size(); ++l) {
            QCOMPARE(lanesY[l].title, lanesX[l].title);
            QCOMPARE(lanesY[l].calls, lanesX[l].calls);
            QCOMPARE(lanesY[l].depths.size(), lanesX[l].depths.size());
            for (size_t d = 0; d < lanesX[l].depths.size(); ++d) {
                const DepthRow &p = lanesX[l].depths[d], &q = lanesY[l].depths[d];
                QCOMPARE(q.size(), p.size());
                for (size_t i = 0; i < p.size(); ++i)
                    QCOMPARE(q.events[i], to[p.events[i]]);
                QCOMPARE(q.busyPrefix.values(), p.busyPrefix.values());
            }
            std::vector<uint32_t> unclosed;
            for (const uint32_t e : lanesX[l].unclosed)
                unclosed.push_back(to[e]);
            QCOMPARE(lanesY[l].unclosed, unclosed);
        }
        for (size_t i = 0; i < x.events.size(); ++i)
            if (to[i] != kDroppedEvent)
                QCOMPARE(b.timeline->rowOf(to[i]), a.timeline->rowOf(uint32_t(i)));

        // GPU work, flows, marks and NVTX lists name the same calls.
        QCOMPARE(y.gpuActivities.size(), x.gpuActivities.size());
        std::set<std::tuple<uint32_t, uint64_t, bool>> activities;
        for (size_t i = 0; i < x.gpuActivities.size(); ++i)
            activities.emplace(to[x.gpuActivities.event(i)], x.gpuActivities.correlation(i),
                               x.gpuActivities.kernelShape(i).has_value());
        for (size_t i = 0; i < y.gpuActivities.size(); ++i)
            QVERIFY(activities.count({y.gpuActivities.event(i), y.gpuActivities.correlation(i),
                                      y.gpuActivities.kernelShape(i).has_value()}));
        QCOMPARE(y.flows.size(), x.flows.size());
        std::multiset<std::tuple<uint32_t, uint32_t, int>> flows;
        for (size_t i = 0; i < x.flows.size(); ++i)
            flows.emplace(to[x.flows.from(i)], to[x.flows.to(i)], int(x.flows.kind(i)));
        for (size_t i = 0; i < y.flows.size(); ++i)
            QVERIFY(flows.count({y.flows.from(i), y.flows.to(i), int(y.flows.kind(i))}));
        QCOMPARE(y.nvtx.marks.size(), x.nvtx.marks.size());
        for (size_t i = 0; i < x.nvtx.marks.size(); ++i)
            QCOMPARE(y.nvtx.marks[i].enclosingEvent,
                     x.nvtx.marks[i].enclosingEvent < 0 ? int64_t(-1) : int64_t(to[size_t(x.nvtx.marks[i].enclosingEvent)]));
        std::vector<uint64_t> closedAtEnd;
        for (const uint64_t e : x.nvtx.closedAtEnd)
            closedAtEnd.push_back(to[e]);
        std::sort(closedAtEnd.begin(), closedAtEnd.end());
        QCOMPARE(y.nvtx.closedAtEnd, closedAtEnd);

        // Stepping through the calls of every region finds calls at the same times.
        const CallSearch searchX(x), searchY(y);
        const std::vector<bool> all(x.regionNames.size(), true);
        QCOMPARE(searchY.count(all), searchX.count(all));
        std::optional<uint32_t> atX = searchX.step(all, std::numeric_limits<int64_t>::min(), 0, true);
        std::optional<uint32_t> atY = searchY.step(all, std::numeric_limits<int64_t>::min(), 0, true);
        for (int k = 0; k < 200 && atX; ++k) {
            QVERIFY(atY.has_value());
            QCOMPARE(y.events.start[*atY], x.events.start[*atX]);
            atX = searchX.step(all, x.events.start[*atX], *atX, true);
            atY = searchY.step(all, y.events.start[*atY], *atY, true);
        }

        // Saved, the spread capture is the laid-out one; exported, the same trace.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string pathX = dir.filePath("laid.h5").toStdString(), pathY = dir.filePath("spread.h5").toStdString();
        const Status savedX = io::writeCaptureFile(x, pathX), savedY = io::writeCaptureFile(y, pathY);
        QCOMPARE(bool(savedY), bool(savedX));
        if (savedX)
            compareCaptures(*readFile(pathX), *readFile(pathY), true);
        else
            QCOMPARE(savedY.error().message, savedX.error().message);
        const std::string exportedX = chromeExport(x, dir, "laid.json"), exportedY = chromeExport(y, dir, "spread.json");
        if (exportedY != exportedX && qEnvironmentVariableIsSet("SPANSCOPE_KEEP_EXPORTS")) {
            std::ofstream("/tmp/row_spans_laid.json") << exportedX;
            std::ofstream("/tmp/row_spans_spread.json") << exportedY;
        }
        QVERIFY(exportedY == exportedX);
    }

    void mergedProcessesKeepEveryRowsSpans()
    {
        // Two processes of one job with their rows spread (differently): each row of the
        // merged capture holds the calls of its process's row, with what names them by index.
        const auto laid = readFile(dataFile("pytorch-h200/collector-h200.sps"));
        const auto both = live::mergeProcesses({{11, laid}, {22, laid}});
        const auto mixed = live::mergeProcesses({{11, spreadRows(*laid, 3)}, {22, spreadRows(*laid, 5)}});
        QVERIFY(!rowsAreOneSpanEach(*mixed));
        QCOMPARE(mixed->rows.size(), both->rows.size());
        QCOMPARE(mixed->callCount(), both->callCount());
        const std::vector<uint32_t> to = sameCalls(*both, *mixed);
        QVERIFY(!to.empty());
        for (uint32_t r = 0; r < both->rows.size(); ++r) {
            QCOMPARE(mixed->rows[r].rank, both->rows[r].rank);
            for (const uint64_t e : both->rowEvents(r)) {
                QCOMPARE(mixed->events.start[to[e]], both->events.start[e]);
                QCOMPARE(mixed->events.end[to[e]], both->events.end[e]);
                QCOMPARE(mixed->events.threadIds[to[e]], both->events.threadIds[e]);
                QCOMPARE(mixed->trackOfEvent(r, to[e]).value, both->trackOfEvent(r, e).value);
                QCOMPARE(mixed->nvtx.domainOf(to[e]), both->nvtx.domainOf(e));
            }
        }
        QCOMPARE(mixed->flows.size(), both->flows.size());
        std::multiset<std::pair<uint32_t, uint32_t>> flows;
        for (size_t i = 0; i < both->flows.size(); ++i)
            flows.emplace(to[both->flows.from(i)], to[both->flows.to(i)]);
        for (size_t i = 0; i < mixed->flows.size(); ++i)
            QVERIFY(flows.count({mixed->flows.from(i), mixed->flows.to(i)}));
        const LoadedCapture a = analysed(both), b = analysed(mixed);
        QCOMPARE(summaryDifference(*b.summary, *a.summary), QString());
    }

    void savingLaysEveryRowOutInOneSpan()
    {
        auto spread = spreadRows(*buildCapture(kNested), 2);
        const auto laid = withRowsInOneSpan(*spread);
        QVERIFY(rowsAreOneSpanEach(*laid));
        QVERIFY(laid->rowSpans.empty());
        uint64_t next = 0;
        for (uint32_t r = 0; r < laid->rows.size(); ++r) {
            QCOMPARE(laid->rows[r].firstEvent, next); // row after row, nothing between
            const RowEvents from = spread->rowEvents(r), to = laid->rowEvents(r);
            QCOMPARE(to.size(), from.size());
            for (uint64_t k = 0; k < from.size(); ++k) {
                QCOMPARE(laid->events.start[to[k]], spread->events.start[from[k]]);
                QCOMPARE(laid->events.end[to[k]], spread->events.end[from[k]]);
                QCOMPARE(laid->events.threadIds[to[k]], spread->events.threadIds[from[k]]);
            }
            next += to.size();
        }
        QCOMPARE(uint64_t(laid->events.size()), next);
    }

    // Rows each in one span but events between them that no row holds (a live snapshot
    // whose rows were moved whole to the end of the columns): saved without those.
    void savingLeavesOutEventsNoRowHolds()
    {
        auto c = std::make_shared<Capture>(*buildCapture(kNested));
        const uint64_t calls = c->callCount();
        QCOMPARE(uint64_t(c->events.size()), calls);
        std::vector<uint32_t> newIndexOf(calls); // every event one place on: event 0 is held by no row
        for (uint32_t i = 0; i < calls; ++i)
            newIndexOf[i] = i + 1;
        moveEvents(*c, newIndexOf, calls + 1);
        for (RegionRow& row : c->rows)
            row.firstEvent += 1;
        QVERIFY(rowsAreOneSpanEach(*c));
        QTemporaryDir dir;
        const std::string path = dir.filePath("held.h5").toStdString();
        QVERIFY(io::writeCaptureFile(*c, path).ok());
        const auto reopened = readFile(path);
        QCOMPARE(uint64_t(reopened->events.size()), calls);
        compareCaptures(*withRowsInOneSpan(*c), *reopened, false);
    }

    // Moving events takes what names them along; an event left out takes its flows, GPU
    // row and marks' reference with it.
    void eventsLeftOutTakeWhatNamesThemWithThem()
    {
        auto c = buildCapture("launch 0 0 10\nlaunch 0 20 30\nkernel 0 5 8\nkernel 0 25 28\n");
        c->flows.add(0, 2, FlowKind::Launch);
        c->flows.add(1, 3, FlowKind::Launch);
        c->flows.finish();
        c->gpuActivities.addKernel(2, 7, 1, KernelLaunchShape{});
        c->gpuActivities.addCopy(3, 8, 1, 4096, CopyKind::HostToDevice);
        c->gpuActivities.finish();
        c->nvtx.marks.push_back({6, 0, 0, 0, c->strings.intern("m"), 1, 0});
        // Event 1 left out; the others reversed.
        moveEvents(*c, {2, kDroppedEvent, 1, 0}, 3);
        QCOMPARE(toVector(c->events.start), (std::vector<int64_t>{25, 5, 0}));
        QCOMPARE(c->flows.size(), size_t(1));
        QCOMPARE(c->flows.from(0), 2u);
        QCOMPARE(c->flows.to(0), 1u);
        QCOMPARE(c->flows.incoming(1).size(), size_t(1));
        QCOMPARE(c->gpuActivities.size(), size_t(2));
        QCOMPARE(c->gpuActivities.event(0), 0u); // in event order
        QCOMPARE(c->gpuActivities.copyBytes(0), std::optional<uint64_t>(4096));
        QCOMPARE(c->gpuActivities.event(1), 1u);
        QVERIFY(c->gpuActivities.kernelShape(1).has_value());
        QCOMPARE(c->nvtx.marks[0].enclosingEvent, int64_t(-1));
    }

    void badSpansAreRefusedWhenSaved()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("bad.h5").toStdString();
        auto refused = [&](const std::function<void(Capture&)>& damage) {
            auto c = spreadRows(*buildCapture(kNested));
            damage(*c);
            const Status saved = io::writeCaptureFile(*c, path);
            return saved ? std::string() : saved.error().message;
        };
        QVERIFY(refused([](Capture& c) { c.rows[1].firstSpan = uint32_t(c.rowSpans.size()); })
                    .find("names spans of the event columns that do not exist") != std::string::npos);
        QVERIFY(refused([](Capture& c) { c.rowSpans[2].end = c.events.size() + 5; })
                    .find("beyond the event columns") != std::string::npos);
        QVERIFY(refused([](Capture& c) { c.rowSpans[0].end = c.rowSpans[0].begin; })
                    .find("empty span") != std::string::npos);
        QVERIFY(refused([](Capture& c) { ++c.rows[0].count; }).find("calls in its spans but counts") != std::string::npos);
        QVERIFY(!QFileInfo::exists(QString::fromStdString(path)));
    }
};

QTEST_GUILESS_MAIN(TestRowSpans)
#include "tst_row_spans.moc"
