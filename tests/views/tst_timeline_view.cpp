// The timeline widget offscreen: open a multi-thread file, zoom, pan, select, find.
// Set SPANSCOPE_SCREENSHOT_DIR to keep screenshots of each step for a person to look at.

#include "model/timeline/timeline_index.h"
#include "model/stats/nesting.h"
#include "support/capture_builder.h"
#include "support/h5_builder.h"
#include "support/test_helpers.h"
#include "views/timeline/region_palette.h"
#include "views/timeline/time_axis.h"
#include "views/timeline/timeline_bindings.h"
#include "views/timeline/timeline_painter.h"
#include "views/timeline/timeline_view.h"
#include "support/screenshots.h"
#include "support/spread_rows.h"

#include <QApplication>
#include <QKeyEvent>
#include <QSignalSpy>
#include <QTest>

using namespace spanscope;
using namespace spanscope::testing;

class TestTimelineView : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;


    // Two threads on rank 0: a main loop with nested work, a worker with many tiny calls.
    std::string writeThreadedFile()
    {
        const std::string file = (m_dir.path() + "/threads.h5").toStdString();
        H5Builder b(file);
        std::vector<ColumnarRow> rows(4);
        rows[0] = ColumnarRow("main.loop", 0, {}, {});
        rows[1] = ColumnarRow("main.compute", 0, {}, {});
        rows[2] = ColumnarRow("worker.tick", 0, {}, {});
        rows[3] = ColumnarRow("worker.flush", 0, {}, {});
        std::vector<int64_t> threads;
        for (int i = 0; i < 20; ++i) {
            const int64_t t = 1'000'000 + i * 100'000;
            rows[0].starts.push_back(t);
            rows[0].ends.push_back(t + 90'000);
            rows[1].starts.push_back(t + 10'000);
            rows[1].ends.push_back(t + 70'000);
        }
        for (int i = 0; i < 5000; ++i) {
            const int64_t t = 1'000'000 + i * 400;
            rows[2].starts.push_back(t);
            rows[2].ends.push_back(t + 150);
        }
        for (int i = 0; i < 4; ++i) {
            rows[3].starts.push_back(2'500'000 + i * 200'000);
            rows[3].ends.push_back(2'560'000 + i * 200'000);
        }
        ColumnarOptions options;
        writeColumnar(b, rows, options);
        for (const auto& row : rows)
            threads.insert(threads.end(), row.starts.size(), row.region.rfind("main", 0) == 0 ? 0 : 1);
        b.ints("/events/thread_ids", threads);
        b.uints("/thread_table/ranks", {0, 0});
        b.ints("/thread_table/index", {0, 1});
        b.strings("/thread_table/name", {"MainThread", "worker"});
        return file;
    }

    // A view of `capture` (nesting computed here) at `size`, shown, its first frame built.
    static bool showCapture(views::TimelineView& view, const std::shared_ptr<model::Capture>& capture, QSize size)
    {
        if (!model::computeNesting(*capture))
            return false;
        view.resize(size);
        view.setCapture(capture, model::TimelineIndex::build(*capture));
        view.show();
        if (!QTest::qWaitForWindowExposed(&view))
            return false;
        return QTest::qWaitFor([&] { return view.frameUpToDate(); });
    }

private slots:
    void openZoomSelectFind()
    {
        SPANSCOPE_LOAD(loaded, writeThreadedFile());
        auto index = model::TimelineIndex::build(*loaded.capture);
        QCOMPARE(index->lanes().size(), size_t(2));

        views::TimelineView view;
        view.resize(1200, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setCapture(loaded.capture, index);
        QTRY_VERIFY(view.frameUpToDate() && !view.drawList().items.empty());
        // Fully zoomed out, every call is accounted for.
        QCOMPARE(view.drawList().callsInView, uint64_t(20 + 20 + 5000 + 4));
        QVERIFY(testing::saveScreenshot(view, "timeline-fit"));

        // Zoom in around the first main.loop call with the wheel, then with W.
        const int64_t before = view.zoom()->span();
        QWheelEvent wheel(QPointF(100, 100), view.mapToGlobal(QPointF(100, 100)), QPoint(), QPoint(0, 480),
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(&view, &wheel);
        QVERIFY(view.zoom()->span() < before);
        QTest::keyClick(&view, Qt::Key_W);
        QTRY_VERIFY(view.frameUpToDate());
        QVERIFY(view.drawList().callsInView < uint64_t(5044));
        QVERIFY(testing::saveScreenshot(view, "timeline-zoomed"));

        // Fit, then click a main.loop call: it is selected and its region highlighted.
        QTest::keyClick(&view, Qt::Key_F);
        QTRY_VERIFY(view.frameUpToDate());
        QSignalSpy selected(&view, &views::TimelineView::callSelected);
        const auto viewport = view.viewport();
        const auto& items = view.drawList().items;
        auto call = std::find_if(items.begin(), items.end(), [](const model::DrawItem& item) {
            return item.kind == model::DrawKind::Call && item.depth == 0 && item.x1 - item.x0 > 4;
        });
        QVERIFY(call != items.end());
        const QPoint click(int((call->x0 + call->x1) / 2), call->y + call->height / 2 + views::TimelineView::kRulerHeight);
        QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, click);
        QCOMPARE(selected.count(), 1);
        QVERIFY(view.selectedEvent().has_value());
        QVERIFY(viewport.width > 0);

        // Find worker.flush calls and step through them.
        view.setSearchPattern(QRegularExpression("flush"));
        QCOMPARE(view.searchMatchCount(), uint64_t(4));
        QVERIFY(view.findNext(true));
        const auto first = *view.selectedEvent();
        QCOMPARE(QString::fromStdString(loaded.capture->regionName(loaded.capture->rows[index->rowOf(first)].region)),
                 QString("worker.flush"));
        QVERIFY(view.findNext(true));
        QVERIFY(*view.selectedEvent() != first);
        QVERIFY(view.findNext(false));
        QCOMPARE(*view.selectedEvent(), first);
        QTRY_VERIFY(view.frameUpToDate());
        QVERIFY(testing::saveScreenshot(view, "timeline-find"));

        // Double-click fills the view with the call.
        view.zoom()->fit();
        QTRY_VERIFY(view.frameUpToDate());
        QTest::mouseDClick(&view, Qt::LeftButton, Qt::NoModifier, click);
        QVERIFY(view.zoom()->span() < loaded.capture->events.end[*view.selectedEvent()]);
    }

    void labelsFitOrShrink()
    {
        SPANSCOPE_LOAD(loaded, dataFile("scope-profiler/solver-1rank.h5"));
        const auto& capture = *loaded.capture;
        const int region = findRegion(capture, "solver.linear_solve");
        QVERIFY(region >= 0);
        QFont font;
        QFontMetrics metrics(font);
        views::TimelinePainter painter(views::TimelineStyle{false, font});
        const int full = metrics.horizontalAdvance("solver.linear_solve");
        QCOMPARE(painter.labelFor(capture, uint32_t(region), full + 10), QString("solver.linear_solve"));
        // Shortened, a label keeps its start: regions that differ early never look the same.
        const QString elided = painter.labelFor(capture, uint32_t(region), full / 2 + 6);
        QVERIFY2(elided.startsWith("solver") && elided.endsWith(QChar(0x2026)) && elided.size() < 19,
                 qPrintable(elided));
        QVERIFY(painter.labelFor(capture, uint32_t(region), 8).isEmpty());
    }

    void laneFilterHidesLanes()
    {
        SPANSCOPE_LOAD(loaded, writeThreadedFile());
        auto index = model::TimelineIndex::build(*loaded.capture);
        views::TimelineView view;
        view.resize(800, 400);
        view.setCapture(loaded.capture, index);
        view.setLaneFilter(QRegularExpression("worker"));
        QTRY_VERIFY(view.frameUpToDate());
        QCOMPARE(view.drawList().callsInView, uint64_t(5004));
        view.setLaneFilter(QRegularExpression());
        QTRY_VERIFY(view.frameUpToDate());
        QCOMPARE(view.drawList().callsInView, uint64_t(5044));
    }

    // Help › Keyboard Shortcuts lists the timeline's keys from timelineBindings(): every key
    // listed there is one the timeline takes.
    void everyListedKeyIsTaken()
    {
        SPANSCOPE_LOAD(loaded, writeThreadedFile());
        auto index = model::TimelineIndex::build(*loaded.capture);
        views::TimelineView view;
        view.resize(800, 400);
        view.setCapture(loaded.capture, index);
        int keys = 0;
        for (const views::TimelineBinding& binding : views::timelineBindings()) {
            QVERIFY(!binding.input.isEmpty() && !binding.action.isEmpty());
            if (binding.key.isEmpty())
                continue;
            const QKeyCombination combination = binding.key[0];
            QKeyEvent press(QEvent::KeyPress, combination.key(), combination.keyboardModifiers());
            QApplication::sendEvent(&view, &press);
            QVERIFY2(press.isAccepted(), qPrintable(binding.input));
            ++keys;
        }
        QVERIFY(keys >= 9);
        // A key not listed is left to the parent.
        QKeyEvent other(QEvent::KeyPress, Qt::Key_Q, Qt::NoModifier);
        QApplication::sendEvent(&view, &other);
        QVERIFY(!other.isAccepted());
    }

    // Revealing a call (F3, a click in the scatter or the span tree) makes it visible: a
    // 150 ns tick, sub-pixel when the whole run is shown, is zoomed to; a call already well
    // in view leaves the zoom alone.
    void revealZoomsUntilTheCallIsVisible()
    {
        SPANSCOPE_LOAD(loaded, writeThreadedFile());
        const auto& capture = *loaded.capture;
        auto index = model::TimelineIndex::build(capture);
        views::TimelineView view;
        view.resize(800, 400);
        view.setCapture(loaded.capture, index);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.zoom()->fit();
        const int tickRow = findRow(capture, "worker.tick", 0);
        QVERIFY(tickRow >= 0);
        const auto tick = uint32_t(capture.rows[size_t(tickRow)].firstEvent + 2500);
        const auto pxOf = [&](uint32_t e) {
            return double(capture.events.end[e] - capture.events.start[e]) * 800.0 / double(view.zoom()->span());
        };
        QVERIFY(pxOf(tick) < 1.0);
        view.selectEvent(tick, true);
        QVERIFY2(pxOf(tick) >= 12.0 * 0.9, qPrintable(QString::number(pxOf(tick)))); // lane area < 800 px
        QVERIFY(view.zoom()->start() <= capture.events.start[tick] && capture.events.end[tick] <= view.zoom()->end());

        view.zoom()->fit();
        const int loopRow = findRow(capture, "main.loop", 0);
        const auto loop = uint32_t(capture.rows[size_t(loopRow)].firstEvent + 10);
        const int64_t before = view.zoom()->span();
        view.selectEvent(loop, true); // 90 µs of a 3 ms run: already about 24 px wide
        QCOMPARE(view.zoom()->span(), before);
    }

    // Ruler labels never need more than kMaxTickLabelChars: deep in a long run (or on an
    // absolute clock) they become offsets from a base shown once.
    void rulerLabelsStayShort()
    {
        const auto labelsOf = [](const views::TimeRuler& ruler) {
            QStringList labels;
            for (const auto& tick : ruler.ticks)
                if (!tick.label.isEmpty())
                    labels << tick.label;
            return labels;
        };
        const views::TimeRuler whole = views::timeRuler(0, 10'000'000'000, 800, 0);
        QVERIFY(whole.base.isEmpty());
        QVERIFY(labelsOf(whole).contains("2 s"));

        // 2 µs of a call 585 s into the run: "585.063585846 s" would not fit.
        const views::TimeRuler deep = views::timeRuler(585'063'585'000, 585'063'587'000, 800, 0);
        QVERIFY2(deep.base.startsWith("585.063585"), qPrintable(deep.base));
        const QStringList offsets = labelsOf(deep);
        QVERIFY(offsets.size() >= 3);
        for (const QString& label : offsets)
            QVERIFY2(label.startsWith('+') && label.size() <= views::kMaxTickLabelChars, qPrintable(label));
        QCOMPARE(offsets.front(), QString("+0 ns"));

        // An absolute monotonic clock, 100 ms in view.
        const int64_t t0 = 9'100'008'580'000'000;
        const views::TimeRuler absolute = views::timeRuler(t0, t0 + 100'000'000, 800, 0);
        QVERIFY2(absolute.base.startsWith("9100008.5"), qPrintable(absolute.base));
        for (const QString& label : labelsOf(absolute))
            QVERIFY2(label.size() <= views::kMaxTickLabelChars, qPrintable(label));
    }

    // At "fit", calls at the very end of the run still leave a mark (5 short calls 585 s
    // after a 1 s one): the last pixel holds them, and it is drawn solid.
    void callsAtTheEndOfTheRunLeaveAMark()
    {
        auto capture = buildCapture("main 0 0 1000000000\n"
                                    "late 0 585000000000 585000001000\n"
                                    "late 0 585000010000 585000011000\n"
                                    "late 0 585000020000 585000021000\n");
        views::TimelineView view;
        QVERIFY(showCapture(view, capture, QSize(1000, 200)));
        const QImage image = view.grab().toImage();
        // The late calls' lane row, scanned from the right edge of the lanes: some pixel
        // within the last 1 % of the width is a call's colour, not the background.
        const auto& list = view.drawList();
        const auto late = std::find_if(list.items.begin(), list.items.end(), [](const model::DrawItem& item) {
            return item.kind != model::DrawKind::LaneHeader && item.x0 > 500;
        });
        QVERIFY(late != list.items.end());
        QVERIFY2(late->x0 < float(view.laneArea().width() - 3), qPrintable(QString::number(late->x0)));
        const QPoint origin = view.laneArea().topLeft();
        const int y = origin.y() + late->y + late->height / 2;
        const QColor background = image.pixelColor(origin.x() + int(late->x0) - 40, y);
        bool marked = false;
        for (int x = int(late->x0); x <= int(late->x1); ++x)
            marked = marked || image.pixelColor(origin.x() + x, y) != background;
        QVERIFY(marked);
    }

    // Hovering a mark names it; a folded block says how many calls it holds and which
    // regions, busiest first; a range ended by another thread says which; a measurement
    // lists what it holds.
    void tooltipsAndMeasurementSayWhatIsThere()
    {
        std::string text;
        for (int i = 0; i < 400; ++i)
            text += std::string(i % 4 ? "tick" : "flush") + " 0 " + std::to_string(1000 + i * 100) + " "
                    + std::to_string(1000 + i * 100 + 40) + " thread=1\n";
        text += "handed 0 2000 30000 thread=1 task=0\n";
        text += "main 0 0 200000 thread=2\n";
        auto capture = buildCapture(text);
        capture->tasks.push_back({0, 0, -1, -1, -1, 0, 0, 0, capture->strings.intern("nvtx-async"),
                                  capture->strings.intern("default"), {}});
        capture->threads.push_back({0, 2, 0, 0, false, capture->strings.intern("closer"), -1, -1, -1});
        const uint64_t handed = 400; // rows: flush, tick, handed, main
        capture->nvtx.crossThreadEnds.push_back({handed, 2});
        capture->nvtx.marks.push_back({150000, 2, 0, 0, capture->strings.intern("checkpoint"), -1, 0});
        views::TimelineView view;
        QVERIFY(showCapture(view, capture, QSize(1000, 300)));
        const auto& list = view.drawList();
        auto find = [&](model::DrawKind kind) {
            return std::find_if(list.items.begin(), list.items.end(), [&](const auto& item) { return item.kind == kind; });
        };
        const auto mark = find(model::DrawKind::Mark);
        QVERIFY(mark != list.items.end());
        const QString markTip = view.toolTipAt(QPoint(int(mark->x0), mark->y + 2));
        QVERIFY2(markTip.contains("checkpoint") && markTip.contains("NVTX mark"), qPrintable(markTip));
        const auto folded = find(model::DrawKind::Folded);
        QVERIFY(folded != list.items.end());
        const QString foldedTip = view.toolTipAt(QPoint(int(folded->x0 + folded->x1) / 2, folded->y + 2));
        QVERIFY2(foldedTip.contains(QStringLiteral("%L1 calls").arg(folded->count)), qPrintable(foldedTip));
        QVERIFY2(foldedTip.indexOf("tick") >= 0 && foldedTip.indexOf("tick") < foldedTip.indexOf("flush"),
                 qPrintable(foldedTip)); // tick is busier
        const auto ranged = std::find_if(list.items.begin(), list.items.end(), [&](const auto& item) {
            return item.kind == model::DrawKind::Call && item.event == handed;
        });
        QVERIFY(ranged != list.items.end());
        const QString rangeTip = view.toolTipAt(QPoint(int(ranged->x0) + 2, ranged->y + 2));
        QVERIFY2(rangeTip.contains("ended by another thread: thread 2 closer"), qPrintable(rangeTip));
        QVERIFY(!view.measurement());
        view.measure(1000, 1250);
        QVERIFY(view.measurement());
        QCOMPARE(view.measurement()->contents.calls, uint64_t(4)); // flush, tick, tick, main
        QCOMPARE(view.measurement()->contents.listedCalls.size(), size_t(4));
        saveScreenshot(view, "timeline-measure");
    }

    // A call's tooltip gives its place in its row wherever the row holds it: here rows
    // spread over several spans of the columns, with events between them no row holds.
    void aCallsTooltipGivesItsPlaceInItsRow()
    {
        std::string text;
        for (int i = 0; i < 30; ++i)
            text += "step 0 " + std::to_string(i * 1000) + " " + std::to_string(i * 1000 + 800) + " thread=1\n";
        for (int i = 0; i < 10; ++i)
            text += "io 0 " + std::to_string(i * 3000 + 100) + " " + std::to_string(i * 3000 + 300) + " thread=1\n";
        auto capture = spreadRows(*buildCapture(text), 4);
        QCOMPARE(capture->regionName(capture->rows[0].region), std::string("step"));
        views::TimelineView view;
        QVERIFY(showCapture(view, capture, QSize(1600, 300)));
        const uint64_t tenth = capture->rowEvents(0)[9];
        const auto& list = view.drawList();
        const auto item = std::find_if(list.items.begin(), list.items.end(), [&](const model::DrawItem& i) {
            return i.kind == model::DrawKind::Call && i.event == tenth;
        });
        QVERIFY(item != list.items.end());
        const QString tip = view.toolTipAt(QPoint(int(item->x0) + 2, item->y + 2));
        QVERIFY2(tip.contains(QStringLiteral("call %L1 of %L2").arg(10).arg(30)), qPrintable(tip));
    }

    // Regions shown together get colours far apart (the pairs the issue found alike among
    // them); an uncontested name keeps its colour from capture to capture; a live capture
    // that grows keeps the colours already drawn.
    void regionsShownTogetherGetDistinctColours()
    {
        auto capture = buildCapture("task 0 0 10\ncompute 0 10 20\ntimestep 0 20 30\nallreduce 0 30 40\n"
                                    "solver.run 0 40 50\nsolver.step 0 50 60\nio.write 0 60 70\nsolver.setup 0 70 80\n"
                                    "a 0 80 90\nb 0 90 100\nc 0 100 110\nd 0 110 120\n");
        const auto palette = views::RegionPalette::of(*capture);
        std::vector<QColor> colours;
        for (uint32_t r = 0; r < capture->regionNames.size(); ++r)
            colours.push_back(palette->color(capture->regionName(r), false));
        for (size_t i = 0; i < colours.size(); ++i)
            for (size_t j = i + 1; j < colours.size(); ++j) {
                const double distance = views::RegionPalette::difference(colours[i], colours[j]);
                QVERIFY2(distance >= 30, qPrintable(QStringLiteral("%1 vs %2: %3")
                                                       .arg(QString::fromStdString(capture->regionName(uint32_t(i))),
                                                            QString::fromStdString(capture->regionName(uint32_t(j))))
                                                       .arg(distance)));
            }
        views::RegionPalette full; // every slot taken: every pair of the palette itself
        for (size_t i = 0; i < views::RegionPalette::kSlots; ++i)
            full.add("region" + std::to_string(i));
        for (size_t i = 0; i < views::RegionPalette::kSlots; ++i)
            for (size_t j = i + 1; j < views::RegionPalette::kSlots; ++j)
                QVERIFY(views::RegionPalette::difference(full.color("region" + std::to_string(i), false),
                                                         full.color("region" + std::to_string(j), false)) >= 30);
        QCOMPARE(full.slotOf("one too many"), -1);
        full.add("one too many");
        QCOMPARE(full.slotOf("one too many"), -1); // a hashed shade
        views::RegionPalette alone;
        alone.add("timestep");
        QCOMPARE(alone.color("timestep", false), views::RegionPalette::of(*buildCapture("timestep 0 0 1\n"))->color("timestep", false));
        auto grown = buildCapture("zeta 0 0 1\nzeta 0 1 2\nzeta 0 2 3\ntask 0 3 4\n");
        const auto extended = views::RegionPalette::of(*grown, palette.get());
        QCOMPARE(extended->color("task", false), palette->color("task", false)); // busier "zeta" came later
        QVERIFY(extended->slotOf("zeta") >= 0 && extended->slotOf("zeta") != extended->slotOf("task"));
    }

    void zoomFollowsAGrowingRun()
    {
        views::TimelineZoom zoom;
        zoom.setRun(0, 100'000);
        zoom.updateRun(0, 200'000); // showing it all: keeps showing it all, 0.5 % to spare
        QCOMPARE(zoom.start(), int64_t(-1'000));
        QCOMPARE(zoom.end(), int64_t(201'000));
        zoom.setRange(150'000, 200'000);
        zoom.updateRun(0, 300'000); // showing the end: follows it, same span
        QCOMPARE(zoom.start(), int64_t(250'000));
        QCOMPARE(zoom.end(), int64_t(300'000));
        zoom.setRange(10'000, 30'000);
        zoom.updateRun(0, 400'000); // anywhere else: stays
        QCOMPARE(zoom.start(), int64_t(10'000));
        QCOMPARE(zoom.end(), int64_t(30'000));
    }

    void liveUpdateKeepsViewLanesAndSearch()
    {
        SPANSCOPE_LOAD(loaded, writeThreadedFile());
        auto index = model::TimelineIndex::build(*loaded.capture);
        views::TimelineView view;
        view.resize(800, 400);
        view.setCapture(loaded.capture, index);
        view.setLaneFilter(QRegularExpression("worker"));
        view.setSearchPattern(QRegularExpression("flush"));
        view.setHighlightRegion(2);
        view.zoom()->setRange(1'100'000, 1'600'000);
        QTRY_VERIFY(view.frameUpToDate());
        const uint64_t inView = view.drawList().callsInView;

        // The same capture again as a newer snapshot: nothing the user set is lost.
        auto newer = model::TimelineIndex::build(*loaded.capture);
        view.updateCapture(loaded.capture, newer);
        QTRY_VERIFY(view.frameUpToDate());
        QCOMPARE(view.zoom()->start(), int64_t(1'100'000));
        QCOMPARE(view.zoom()->end(), int64_t(1'600'000));
        QCOMPARE(view.drawList().callsInView, inView); // worker lane only, same window
        QCOMPARE(view.searchMatchCount(), uint64_t(4));
        QCOMPARE(view.highlightRegion(), 2);
        QVERIFY(view.findNext(true));
    }

    // A layout the user chose (a lane moved to the top, one folded) is said, survives JSON,
    // and a view that remembers it shows the next capture of those lanes so, through live
    // updates too, until the default layout is asked for.
    void aChosenLaneLayoutIsRemembered()
    {
        SPANSCOPE_LOAD(loaded, writeThreadedFile());
        auto index = model::TimelineIndex::build(*loaded.capture);
        uint32_t main = UINT32_MAX, worker = UINT32_MAX;
        for (uint32_t lane = 0; lane < index->lanes().size(); ++lane)
            (index->lanes()[lane].title.find("worker") != std::string::npos ? worker : main) = lane;
        QVERIFY(main != UINT32_MAX && worker != UINT32_MAX);
        views::TimelineView chooser;
        chooser.resize(800, 400);
        chooser.setCapture(loaded.capture, index);
        QSignalSpy chosen(&chooser, &views::TimelineView::laneLayoutChosen);
        chooser.moveLane(worker, views::TimelineView::kToTop);
        chooser.toggleLane(main);
        QCOMPARE(chosen.count(), 2);
        const auto parsed = views::LaneLayout::fromJson(chooser.laneLayout().toJson());
        QVERIFY(parsed);
        QCOMPARE(parsed->order, (std::vector<std::string>{index->lanes()[worker].title, index->lanes()[main].title}));
        QCOMPARE(parsed->folded.at(index->lanes()[main].title), true);
        QCOMPARE(parsed->folded.at(index->lanes()[worker].title), false);

        views::TimelineView view;
        view.resize(800, 400);
        view.setRememberedLayout(*parsed);
        view.setCapture(loaded.capture, model::TimelineIndex::build(*loaded.capture));
        auto check = [&](bool remembered) {
            if (!QTest::qWaitFor([&] { return view.frameUpToDate(); }))
                return false;
            const auto& lanes = view.drawList().lanes;
            return (lanes[worker].y < lanes[main].y) == remembered && lanes[main].collapsed == remembered;
        };
        QVERIFY(check(true));
        view.updateCapture(loaded.capture, model::TimelineIndex::build(*loaded.capture));
        QVERIFY(check(true));
        QSignalSpy forgotten(&view, &views::TimelineView::laneLayoutForgotten);
        view.useDefaultLayout();
        QCOMPARE(forgotten.count(), 1);
        QVERIFY(check(false));
        view.setCapture(loaded.capture, model::TimelineIndex::build(*loaded.capture)); // a reload
        QVERIFY(check(false));
    }

    // Lanes are matched by title, the n-th of a title to the n-th place of it; lanes the
    // layout does not name keep their order after it; what is not a layout is refused, and
    // entries of the wrong type are skipped.
    void laneLayoutsApplyByTitle()
    {
        std::vector<model::TimelineLane> lanes(4);
        lanes[0].title = "a";
        lanes[1].title = "b";
        lanes[2].title = "a";
        lanes[3].title = "c";
        views::LaneLayout layout;
        layout.order = {"a", "gone", "c", "a", "a"};
        layout.folded = {{"c", true}};
        layout.rowLimit = {{"a", 3}};
        std::vector<uint32_t> order{3, 2, 1, 0};
        std::vector<bool> collapsed;
        std::vector<uint16_t> rowLimit;
        layout.applyTo(lanes, order, collapsed, rowLimit);
        QCOMPARE(order, (std::vector<uint32_t>{2, 3, 0, 1}));
        QCOMPARE(collapsed, (std::vector<bool>{false, false, false, true}));
        QCOMPARE(rowLimit, (std::vector<uint16_t>{3, 0, 3, 0}));

        QVERIFY(!views::LaneLayout::fromJson("[1, 2]"));
        QVERIFY(!views::LaneLayout::fromJson("{\"order\": "));
        const auto odd = views::LaneLayout::fromJson(
            R"({"order": [1, "x", null], "folded": "x", "rows": {"x": -1, "y": 2.5, "z": 3, "w": 1e9}})");
        QVERIFY(odd);
        QCOMPARE(odd->order, std::vector<std::string>{"x"});
        QCOMPARE(odd->folded.size(), size_t(1));
        QCOMPARE(odd->folded.at("x"), false);
        QCOMPARE(odd->rowLimit.size(), size_t(1));
        QCOMPARE(odd->rowLimit.at("z"), uint16_t(3));
    }

    void emptyCaptureShowsMessage()
    {
        views::TimelineView view;
        view.resize(400, 200);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QImage image = view.grab().toImage();
        QVERIFY(!image.isNull());
    }
};

QTEST_MAIN(TestTimelineView)
#include "tst_timeline_view.moc"
