// Timeline index and draw lists: lane grouping, culling, folding, counts preserved, hit
// testing. Golden text for small cases; invariants on random traces.

#include "model/stats/nesting.h"
#include "model/timeline/draw_list.h"
#include "model/timeline/range_contents.h"
#include "model/timeline/timeline_index.h"
#include "support/capture_builder.h"
#include "support/same_nesting.h"

#include <QtTest>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>

using namespace spanscope;
using namespace spanscope::testing;
using model::DrawKind;

namespace {

const char* kindName(DrawKind kind)
{
    switch (kind) {
    case DrawKind::LaneHeader: return "header";
    case DrawKind::Call: return "call";
    case DrawKind::Folded: return "folded";
    case DrawKind::Unclosed: return "unclosed";
    case DrawKind::GpuBar: return "gpu";
    case DrawKind::Await: return "await";
    case DrawKind::Counter: return "counter";
    case DrawKind::Instant: return "instant";
    case DrawKind::Mark: return "mark";
    }
    return "?";
}

QString describe(const model::Capture&, const model::DrawList& list)
{
    QString out;
    for (const auto& item : list.items) {
        char line[200];
        if (item.kind == DrawKind::LaneHeader) {
            std::snprintf(line, sizeof line, "header lane=%u y=%d calls=%llu\n", item.lane, item.y,
                          (unsigned long long)item.count);
        } else {
            std::snprintf(line, sizeof line, "%s lane=%u d=%u y=%d x=%.1f..%.1f %s n=%llu busy=%.2f\n",
                          kindName(item.kind), item.lane, unsigned(item.depth), item.y, item.x0, item.x1,
                          "",
                          (unsigned long long)item.count, item.busy);
        }
        out += QString::fromUtf8(line);
    }
    return out;
}

struct Frame
{
    std::shared_ptr<model::Capture> capture;
    std::shared_ptr<const model::TimelineIndex> index;
};

Frame prepare(const std::string& text)
{
    Frame frame;
    frame.capture = buildCapture(text);
    model::computeNesting(*frame.capture);
    frame.index = model::TimelineIndex::build(*frame.capture);
    return frame;
}

model::TimelineViewport view(int64_t t0, int64_t t1, int width)
{
    model::TimelineViewport v;
    v.t0 = t0;
    v.t1 = t1;
    v.width = width;
    v.height = 1000;
    v.headerHeight = 10;
    v.rowHeight = 10;
    v.laneGap = 0;
    return v;
}

// Calls intersecting [t0, t1) in expanded lanes, by brute force.
uint64_t callsIntersecting(const model::Capture& capture, int64_t t0, int64_t t1)
{
    uint64_t n = 0;
    for (size_t i = 0; i < capture.events.size(); ++i) {
        const int64_t s = capture.events.start[i], e = capture.events.end[i];
        if (e < s)
            continue;
        if (e > t0 && s < t1)
            ++n;
        else if (e == s && s == t0)
            ++n;
    }
    return n;
}

} // namespace

class TestTimeline : public QObject
{
    Q_OBJECT

private slots:
    void lanesGroupByRankThreadTask()
    {
        auto frame = prepare(R"(
a 0 0 10 thread=1
a 0 20 30 thread=0
b 0 5 8 thread=1 task=3
c 1 0 100
)");
        QStringList titles;
        for (const auto& lane : frame.index->lanes())
            titles << QString::fromStdString(lane.title) + " calls=" + QString::number(lane.calls);
        QCOMPARE(titles, (QStringList{"rank 0 · thread 0 calls=1", "rank 0 · thread 1 calls=1",
                                      "rank 0 · task 3 calls=1", "rank 1 calls=1"}));
        QCOMPARE(frame.index->begin(), int64_t(0));
        QCOMPARE(frame.index->end(), int64_t(100));
    }

    void wideCallsDrawnOneByOne()
    {
        auto frame = prepare(R"(
outer 0 0 100
inner 0 10 30
inner 0 50 90
)");
        const auto list = model::buildDrawList(*frame.capture, *frame.index, view(0, 100, 100));
        QCOMPARE(describe(*frame.capture, list),
                 QString("header lane=0 y=0 calls=3\n"
                         "call lane=0 d=0 y=10 x=0.0..100.0  n=1 busy=0.00\n"
                         "call lane=0 d=1 y=20 x=10.0..30.0  n=1 busy=0.00\n"
                         "call lane=0 d=1 y=20 x=50.0..90.0  n=1 busy=0.00\n"));
        QCOMPARE(list.callsInView, uint64_t(3));
        QCOMPARE(list.contentHeight, 30);
    }

    void subPixelCallsFoldWithCountAndBusy()
    {
        // 100 calls of 1 ns every 2 ns, then a gap, then one wide call; 10 ns per pixel.
        std::string text;
        for (int i = 0; i < 100; ++i)
            text += "tick 0 " + std::to_string(i * 2) + " " + std::to_string(i * 2 + 1) + "\n";
        text += "big 0 500 900\n";
        auto frame = prepare(text);
        const auto list = model::buildDrawList(*frame.capture, *frame.index, view(0, 1000, 100));
        QCOMPARE(describe(*frame.capture, list),
                 QString("header lane=0 y=0 calls=101\n"
                         "folded lane=0 d=0 y=10 x=0.0..19.9  n=100 busy=0.50\n"
                         "call lane=0 d=0 y=10 x=50.0..90.0  n=1 busy=0.00\n"));
        QCOMPARE(list.callsInView, uint64_t(101));
    }

    void cullingKeepsOnlyVisibleCalls()
    {
        auto frame = prepare(R"(
a 0 0 10
a 0 20 30
a 0 40 50
a 0 60 70
)");
        const auto list = model::buildDrawList(*frame.capture, *frame.index, view(25, 45, 20));
        QCOMPARE(list.callsInView, uint64_t(2));
        QCOMPARE(describe(*frame.capture, list),
                 QString("header lane=0 y=0 calls=4\n"
                         "call lane=0 d=0 y=10 x=-5.0..5.0  n=1 busy=0.00\n"
                         "call lane=0 d=0 y=10 x=15.0..25.0  n=1 busy=0.00\n"));
    }

    void gpuBarAwaitAndUnclosed()
    {
        auto frame = prepare(R"(
k 0 0 40 gpu=20 await=10
open 0 50 10
)");
        const auto list = model::buildDrawList(*frame.capture, *frame.index, view(0, 100, 100));
        QCOMPARE(describe(*frame.capture, list),
                 QString("header lane=0 y=0 calls=1\n"
                         "call lane=0 d=0 y=10 x=0.0..40.0  n=1 busy=0.00\n"
                         "gpu lane=0 d=0 y=16 x=0.0..20.0  n=0 busy=0.00\n"
                         "await lane=0 d=0 y=10 x=0.0..10.0  n=0 busy=0.00\n"
                         "unclosed lane=0 d=0 y=10 x=50.0..51.0  n=0 busy=0.00\n"));
    }

    // Lanes lay out in the viewport's order (the rest after it), and a row limit cuts a
    // lane's deeper rows; geometry stays indexed by lane.
    void lanesFollowTheOrderAndTheirRowLimits()
    {
        auto frame = prepare("a 0 0 10\nb 0 1 5\nc 1 0 10\n");
        QCOMPARE(frame.index->lanes().size(), size_t(2));
        auto v = view(0, 10, 10);
        v.order = {1};
        v.rowLimit = {1, 0};
        const auto list = model::buildDrawList(*frame.capture, *frame.index, v);
        QCOMPARE(describe(*frame.capture, list),
                 QString("header lane=1 y=0 calls=1\n"
                         "call lane=1 d=0 y=10 x=0.0..10.0  n=1 busy=0.00\n"
                         "header lane=0 y=20 calls=2\n"
                         "call lane=0 d=0 y=30 x=0.0..10.0  n=1 busy=0.00\n"));
        QCOMPARE(list.lanes[0].y, 20);
        QCOMPARE(list.lanes[1].y, 0);
        QCOMPARE(list.contentHeight, 40); // b's row is cut off
        QCOMPARE(model::contentHeight(*frame.index, v), list.contentHeight);
        QCOMPARE(v.laneOrder(2), (std::vector<uint32_t>{1, 0}));
        v.order = {5, 1, 1}; // lanes that do not exist and repeats are ignored
        QCOMPARE(v.laneOrder(2), (std::vector<uint32_t>{1, 0}));
    }

    // A critical path is drawn as steps between its nodes, each on its call's row; steps
    // within a pixel on one row merge, so a long path costs pixels, not nodes.
    void criticalPathStepsAreDrawnOnTheirRows()
    {
        auto frame = prepare("a 0 0 1000\nb 0 100 200\nc 1 300 900\n");
        auto path = std::make_shared<model::analysis::CriticalPath>();
        const auto& c = *frame.capture;
        auto node = [&](const char* region, bool end) {
            for (uint32_t r = 0; r < c.rows.size(); ++r)
                if (c.regionName(c.rows[r].region) == region) {
                    const uint32_t e = uint32_t(c.rows[r].firstEvent);
                    return model::analysis::PathNode{e, end, end ? c.events.end[e] : c.events.start[e],
                                                     model::analysis::PathShare::Cpu, c.rows[r].region,
                                                     c.trackOfEvent(r, e)};
                }
            return model::analysis::PathNode{};
        };
        path->nodes = {node("a", false), node("b", false), node("b", true), node("c", false), node("c", true),
                       node("a", true)};
        path->nodes[4].via = model::analysis::PathShare::GpuCompute;
        auto v = view(0, 1000, 100);
        v.criticalPath = path;
        const auto list = model::buildDrawList(c, *frame.index, v);
        QCOMPARE(list.path.size(), size_t(5)); // a → b (across rows), along b, to c, along c, back to a
        QCOMPARE(list.path[0].y0, 15.0f);      // a's row (lane 0, depth 0)
        QCOMPARE(list.path[0].y1, 25.0f);      // b's (depth 1)
        QCOMPARE(list.path[3].share, model::analysis::PathShare::GpuCompute);
        QCOMPARE(list.path[3].x0, 30.0f);
        QCOMPARE(list.path[3].x1, 90.0f);
        QCOMPARE(list.path[3].y0, list.path[3].y1);
        // Zoomed out, thousands of nodes in a pixel draw as a few steps.
        for (int i = 0; i < 5000; ++i)
            path->nodes.insert(path->nodes.begin() + 1, node("a", false));
        v.t1 = 1'000'000;
        QVERIFY(model::buildDrawList(c, *frame.index, v).path.size() <= 6);
    }

    // A collapsed lane is its header with a strip of its outermost calls along the bottom.
    void collapsedLaneShowsItsHeaderAndAStrip()
    {
        auto frame = prepare("a 0 0 10\nb 1 0 10\n");
        auto v = view(0, 10, 10);
        v.collapsed = {true};
        const auto list = model::buildDrawList(*frame.capture, *frame.index, v);
        QCOMPARE(describe(*frame.capture, list),
                 QString("header lane=0 y=0 calls=1\n"
                         "call lane=0 d=0 y=5 x=0.0..10.0  n=1 busy=0.00\n"
                         "header lane=1 y=10 calls=1\n"
                         "call lane=1 d=0 y=20 x=0.0..10.0  n=1 busy=0.00\n"));
        QCOMPARE(list.items[1].height, uint16_t(model::kStripHeight));
        QCOMPARE(list.lanes[1].y, 10);
    }

    void verticalScrollCullsRows()
    {
        auto frame = prepare("a 0 0 10\nb 1 0 10\nc 2 0 10\n");
        auto v = view(0, 10, 10);
        v.scrollY = 25;
        v.height = 10;
        const auto list = model::buildDrawList(*frame.capture, *frame.index, v);
        // Lane 1 spans 20..40 -> -5..15 on screen; only its row is visible.
        QCOMPARE(describe(*frame.capture, list),
                 QString("header lane=1 y=-5 calls=1\n"
                         "call lane=1 d=0 y=5 x=0.0..10.0  n=1 busy=0.00\n"));
    }

    void hitTestAtEdges()
    {
        auto frame = prepare("a 0 0 50\nb 0 60 61\n");
        const auto list = model::buildDrawList(*frame.capture, *frame.index, view(0, 100, 100));
        QCOMPARE(hitTest(list, 0.0f, 10), 1);   // left edge of a
        QCOMPARE(hitTest(list, 49.9f, 18), 1);  // bottom-right inside a
        QCOMPARE(hitTest(list, 50.0f, 15), -1); // just right of a
        QCOMPARE(hitTest(list, 61.5f, 15), 2);  // thin b, hit with slack
        QCOMPARE(hitTest(list, 5.0f, 5), 0);    // header
        QCOMPARE(hitTest(list, 5.0f, 25), -1);  // below everything
    }

    // No call may vanish: on random traces and views, the counts of what a frame draws add
    // up to the calls intersecting the view, and a frame has O(width) items per row.
    void randomTracesPreserveCounts()
    {
        std::mt19937_64 random(11);
        for (int round = 0; round < 40; ++round) {
            std::string text;
            int64_t t = 0;
            const int calls = 200 + int(random() % 3000);
            for (int i = 0; i < calls; ++i) {
                const int64_t length = int64_t(random() % (random() % 5 == 0 ? 5000 : 20));
                const int64_t gap = int64_t(random() % 30);
                const int rank = int(random() % 2);
                text += "r" + std::to_string(random() % 3) + " " + std::to_string(rank) + " "
                        + std::to_string(t) + " " + std::to_string(t + length) + "\n";
                if (random() % 4 == 0) // a nested child
                    text += "child " + std::to_string(rank) + " " + std::to_string(t) + " "
                            + std::to_string(t + length / 2) + "\n";
                t += length + gap;
            }
            auto frame = prepare(text);
            for (int v = 0; v < 10; ++v) {
                const int64_t a = int64_t(random() % uint64_t(t + 1));
                const int64_t b = a + 1 + int64_t(random() % uint64_t(t + 1));
                const int width = 50 + int(random() % 2000);
                const auto list = model::buildDrawList(*frame.capture, *frame.index, view(a, b, width));
                QCOMPARE(list.callsInView, callsIntersecting(*frame.capture, a, b));
                size_t items = 0;
                for (const auto& item : list.items)
                    if (item.kind == DrawKind::Call || item.kind == DrawKind::Folded)
                        ++items;
                size_t rows = 0;
                for (const auto& lane : frame.index->lanes())
                    rows += lane.depths.size();
                QVERIFY2(items <= rows * size_t(width + 1), qPrintable(QString("%1 items").arg(items)));
            }
        }
    }

    // Zoomed-out frames fold from the LOD summaries; they must account for exactly the same
    // calls as folding from the calls themselves, with as few items.
    void lodFoldsAgreeWithExactFolds()
    {
        std::mt19937_64 random(5);
        for (int round = 0; round < 10; ++round) {
            std::string text;
            int64_t t = 0;
            for (int i = 0; i < 20000; ++i) {
                const int64_t length = int64_t(random() % (random() % 50 == 0 ? 20000 : 40));
                text += "r" + std::to_string(random() % 4) + " 0 " + std::to_string(t) + " "
                        + std::to_string(t + length) + "\n";
                t += length + int64_t(random() % (random() % 100 == 0 ? 50000 : 20));
            }
            auto frame = prepare(text);
            QVERIFY(frame.index->lanes()[0].depths[0].lod.levels.size() > 1);
            for (int v = 0; v < 10; ++v) {
                const int64_t a = int64_t(random() % uint64_t(t / 2));
                const int64_t b = a + int64_t(t / 4) + int64_t(random() % uint64_t(t / 2));
                auto viewport = view(a, b, 200 + int(random() % 1800));
                const auto lod = model::buildDrawList(*frame.capture, *frame.index, viewport);
                viewport.useLod = false;
                const auto exact = model::buildDrawList(*frame.capture, *frame.index, viewport);
                QCOMPARE(lod.callsInView, exact.callsInView);
                QCOMPARE(lod.callsInView, callsIntersecting(*frame.capture, a, b));
                QVERIFY2(lod.items.size() <= exact.items.size() + exact.items.size() / 10 + 2,
                         qPrintable(QString("lod %1 items, exact %2").arg(lod.items.size()).arg(exact.items.size())));
            }
        }
    }

    // A row's summaries going on from a copy of its builder kept part way (as a live row's
    // carry keeps one), given the last snapshot's summaries to keep coarser chunks from,
    // are still those of the row's calls. There the row's last call was open and shown
    // ending far ahead (its bucket's longest call); it then closed short and the next calls
    // start after a gap: the coarser chunk it changed is made again, the one before it (the
    // same storage) is kept.
    void summariesGoingOnFromALastSnapshotKeepOnlyWhatHoldsTheSame()
    {
        // Level 0: about 31,000 buckets of about 1 µs; the open call starts in bucket
        // ~10,400 (level 1's second chunk of 2,048 buckets, the first made of level 0's
        // buckets 0 to 8,191).
        constexpr size_t kBefore = 1'000'000, kAfter = 100'000;
        const int64_t openStart = 10 * int64_t(kBefore), shownEnd = openStart + 20'000'000;
        model::Capture c;
        const size_t n = kBefore + 1 + kAfter;
        c.events.start = model::EventColumn<int64_t>(n);
        c.events.end = model::EventColumn<int64_t>(n);
        int64_t* start = c.events.start.mutableData();
        int64_t* end = c.events.end.mutableData();
        for (size_t i = 0; i < kBefore; ++i)
            start[i] = 10 * int64_t(i), end[i] = start[i] + 5;
        start[kBefore] = openStart, end[kBefore] = openStart + 5; // as it closed
        for (size_t i = 0; i < kAfter; ++i)
            start[kBefore + 1 + i] = shownEnd + 1000 + 10 * int64_t(i), end[kBefore + 1 + i] = start[kBefore + 1 + i] + 5;

        model::RowLodBuilder shown(0, shownEnd, kBefore + 1);
        for (size_t i = 0; i < kBefore; ++i)
            shown.add(i, start[i], end[i]);
        const model::RowLodBuilder kept = shown; // the carry's copy
        shown.add(kBefore, openStart, shownEnd);
        const model::RowLod before = shown.finish();

        auto next = kept.continued(end[n - 1], n);
        QVERIFY(next);
        for (size_t i = kBefore; i < n; ++i)
            next->add(i, start[i], end[i]);
        model::DepthRow row;
        row.events = model::EventColumn<uint32_t>(n);
        std::iota(row.events.mutableData(), row.events.mutableData() + n, 0u);
        row.lod = next->finish(&before);
        QCOMPARE(QString::fromStdString(lodDifference(c, row)), QString());
        const auto& coarse = row.lod.levels.at(1).longest;
        const auto& coarseBefore = before.levels.at(1).longest;
        const size_t openChunk = size_t((openStart - row.lod.base) / row.lod.levels[1].width) / 2048;
        QCOMPARE(openChunk, size_t(1));
        QVERIFY(coarse.sameWholeChunk(coarseBefore, 0));
        QVERIFY(!coarse.sameWholeChunk(coarseBefore, 1));
    }

    // The level of detail of a counter keeps every block's maximum and minimum: a single
    // peak among a million samples is what a zoomed-out pixel shows.
    void counterLevelOfDetailKeepsPeaks()
    {
        model::CounterSeries series;
        std::mt19937 random(3);
        std::vector<double> values(1000003);
        for (size_t i = 0; i < values.size(); ++i) {
            values[i] = double(random() % 1000);
            series.add(int64_t(i) * 10, values[i]);
        }
        values[777777] = 5000;
        model::CounterSeries peaked;
        for (size_t i = 0; i < values.size(); ++i)
            peaked.add(int64_t(i) * 10, values[i]);
        peaked.finish();
        QCOMPARE(peaked.maxOver(0, 10000040), 5000.0);
        QCOMPARE(peaked.maximum(), 5000.0);
        for (int round = 0; round < 200; ++round) {
            size_t a = random() % values.size(), b = random() % values.size();
            if (a > b)
                std::swap(a, b);
            ++b;
            QCOMPARE(peaked.maxIn(a, b), *std::max_element(values.begin() + long(a), values.begin() + long(b)));
            QCOMPARE(peaked.minIn(a, b), *std::min_element(values.begin() + long(a), values.begin() + long(b)));
        }
        // Before the first sample there is no value; a step holds until the next sample.
        QVERIFY(std::isnan(peaked.maxOver(-100, -1)));
        QCOMPARE(peaked.maxOver(7777775, 7777776), values[777777]);
        QCOMPARE(peaked.maxOver(7777781, 7777782), values[777778]);
    }

    // Counter tracks become lanes of bars, one per pixel column, each the largest value
    // there; a peak narrower than a pixel still reaches the top.
    void counterLaneDrawsThePeakOfEachPixel()
    {
        auto capture = buildCapture("a 0 0 1000\n");
        model::Track track;
        track.kind = model::TrackKind::Counter;
        track.name = capture->strings.intern("queue");
        model::computeNesting(*capture);
        model::CounterSeries series;
        series.track = model::addTrack(*capture, track);
        for (int i = 0; i < 1000; ++i)
            series.add(i, i == 501 ? 90.0 : 10.0);
        series.finish();
        capture->counters.push_back(std::move(series));
        auto index = model::TimelineIndex::build(*capture);
        QCOMPARE(index->lanes().size(), size_t(2));
        QCOMPARE(index->lanes()[1].counter, 0);
        const auto list = model::buildDrawList(*capture, *index, view(0, 1000, 10));
        double peak = 0;
        int bars = 0;
        for (const auto& item : list.items)
            if (item.kind == DrawKind::Counter) {
                ++bars;
                peak = std::max(peak, double(item.busy));
                if (item.busy == 90.0f)
                    QCOMPARE(int(item.x0), 5); // the pixel holding t = 501
            }
        QCOMPARE(peak, 90.0);
        QVERIFY(bars >= 3 && bars <= 10); // equal neighbours merge
    }

    // Instants closer than a pixel share one glyph that counts them.
    void instantsFoldPerPixel()
    {
        auto capture = buildCapture("a 0 0 1000 thread=1\n");
        model::computeNesting(*capture);
        const model::TrackId thread{capture->events.track[0]};
        for (int i = 0; i < 50; ++i)
            capture->instants.add(100 + i, thread, capture->strings.intern("tick"));
        capture->instants.add(900, thread, capture->strings.intern("late"));
        capture->instants.finish();
        auto index = model::TimelineIndex::build(*capture);
        const auto list = model::buildDrawList(*capture, *index, view(0, 1000, 100));
        std::vector<uint64_t> counts;
        for (const auto& item : list.items)
            if (item.kind == DrawKind::Instant)
                counts.push_back(item.count);
        QCOMPARE(counts, (std::vector<uint64_t>{10, 10, 10, 10, 10, 1}));
    }

    // NVTX marks are drawn on their thread's first row, a glyph per pixel that counts them;
    // a thread that only marked (no range of its own) still gets a lane for them.
    void marksDrawnOnTheirThread()
    {
        auto capture = buildCapture("a 0 0 1000 thread=1\n");
        for (int i = 0; i < 20; ++i)
            capture->nvtx.marks.push_back({100 + i, 1, 0, 0, capture->strings.intern("tick"), 0, 0});
        capture->nvtx.marks.push_back({800, 4, 0, 0, capture->strings.intern("lonely"), -1, 0});
        capture->nvtx.marks.push_back({5000, 1, 0, 0, capture->strings.intern("outside"), -1, 0});
        model::computeNesting(*capture);
        auto index = model::TimelineIndex::build(*capture);
        QCOMPARE(index->lanes().size(), size_t(2));
        QCOMPARE(index->end(), int64_t(5000)); // a late mark widens the run
        const auto list = model::buildDrawList(*capture, *index, view(0, 1000, 100));
        std::vector<std::pair<uint32_t, uint64_t>> marks; // (lane, count)
        for (const auto& item : list.items)
            if (item.kind == DrawKind::Mark) {
                marks.emplace_back(item.lane, item.count);
                QCOMPARE(item.y, list.lanes[item.lane].y + 10); // the first row, under the header
            }
        QCOMPARE(marks, (std::vector<std::pair<uint32_t, uint64_t>>{{0, 10}, {0, 10}, {1, 1}}));
        const auto& lonely = capture->nvtx.marks[size_t(list.items[size_t(model::hitTest(list, 80, list.lanes[1].y + 12))].event)];
        QCOMPARE(capture->strings.text(lonely.message), std::string("lonely"));
    }

    // A start/end range that another thread ended gets an arrow, when selected, from its
    // starting thread at its start to the ending thread at its end.
    void rangeEndedElsewhereDrawsAnArrowWhenSelected()
    {
        auto capture = buildCapture(R"(
work 0 0 100 thread=1
handed 0 20 70 thread=1 task=0
other 0 0 100 thread=2
)");
        capture->tasks.push_back({0, 0, -1, -1, -1, 0, 0, 0, capture->strings.intern("nvtx-async"),
                                  capture->strings.intern("default"), {}});
        capture->nvtx.crossThreadEnds.push_back({1, 2}); // event 1 ("handed") ended by thread 2
        model::computeNesting(*capture);
        auto index = model::TimelineIndex::build(*capture);
        auto v = view(0, 100, 100);
        v.flowsOf = 1u;
        const auto list = model::buildDrawList(*capture, *index, v);
        QCOMPARE(list.flows.size(), size_t(1));
        const auto& arrow = list.flows[0];
        QCOMPARE(arrow.flow, model::FlowLine::kRangeEnd);
        QCOMPARE(arrow.x0, 20.0f);
        QCOMPARE(arrow.x1, 70.0f);
        const int32_t from = index->laneOfThread(0, 1), to = index->laneOfThread(0, 2);
        QVERIFY(from >= 0 && to >= 0 && from != to);
        QCOMPARE(arrow.y0, float(list.lanes[size_t(from)].y + 10 + 5));
        QCOMPARE(arrow.y1, float(list.lanes[size_t(to)].y + 10 + 5));
        v.flowsOf = 0u; // a range ended where it started: no arrow
        QCOMPARE(model::buildDrawList(*capture, *index, v).flows.size(), size_t(0));
    }

    // A folded block names the calls it stands for by region, busiest first; a measured
    // range counts every call intersecting it on every lane, clipped to the range.
    void foldedBlocksAndMeasurementsNameTheirRegions()
    {
        std::string text;
        for (int i = 0; i < 30; ++i)
            text += (i % 3 == 0 ? "small " : "big ") + std::string("0 ") + std::to_string(i * 10) + " "
                    + std::to_string(i * 10 + (i % 3 == 0 ? 2 : 6)) + " thread=1\n";
        text += "other 0 0 400 thread=2\n";
        auto frame = prepare(text);
        const auto& capture = *frame.capture;
        const auto list = model::buildDrawList(capture, *frame.index, view(0, 10000, 100));
        const model::DrawItem* folded = nullptr;
        for (const auto& item : list.items)
            if (item.kind == DrawKind::Folded && frame.index->lanes()[item.lane].calls == 30)
                folded = &item;
        QVERIFY(folded);
        QCOMPARE(folded->count, uint64_t(30));
        const auto contents = model::foldedContents(capture, *frame.index, folded->lane, folded->depth, folded->event,
                                                    folded->count);
        QCOMPARE(contents.calls, uint64_t(30));
        QCOMPARE(contents.regions.size(), size_t(2));
        QCOMPARE(capture.regionName(contents.regions[0].region), std::string("big"));
        QCOMPARE(contents.regions[0].calls, uint64_t(20));
        QCOMPARE(contents.regions[0].busyNs, int64_t(120));
        QCOMPARE(contents.regions[1].calls, uint64_t(10));
        QCOMPARE(contents.regions[1].busyNs, int64_t(20));
        QVERIFY(!contents.sampled);

        // [95, 125) holds big 100-106 and 110-116, small 120-122, and "other" 0-400
        // clipped to 30 ns.
        const auto range = model::rangeContents(capture, *frame.index, 95, 125);
        QCOMPARE(range.calls, uint64_t(4));
        QCOMPARE(range.listedCalls.size(), size_t(4));
        QCOMPARE(range.regions.size(), size_t(3));
        QCOMPARE(capture.regionName(range.regions[0].region), std::string("other"));
        QCOMPARE(range.regions[0].busyNs, int64_t(30));
        QCOMPARE(capture.regionName(range.regions[1].region), std::string("big"));
        QCOMPARE(range.regions[1].busyNs, int64_t(12));
        QCOMPARE(range.regions[1].calls, uint64_t(2));
        QCOMPARE(range.regions[2].busyNs, int64_t(2));
        // With a budget of 4 calls the breakdown is sampled, the total stays exact.
        const auto sampled = model::rangeContents(capture, *frame.index, 0, 400, {}, 4);
        QCOMPARE(sampled.calls, uint64_t(31));
        QVERIFY(sampled.sampled);
        QVERIFY(sampled.listedCalls.empty());
    }

    // The selected call's flows are drawn from where the call starts to where its target
    // does; the stack of a call lists its enclosing calls.
    void selectedCallDrawsItsFlowsAndKnowsItsStack()
    {
        auto capture = buildCapture(R"(
op 0 0 100 thread=1
launch 0 10 20 thread=1
kernel 0 30 60 thread=2
)");
        model::computeNesting(*capture);
        // Events are laid out by row: op 0, launch 1, kernel 2.
        capture->flows.add(1, 2, model::FlowKind::Launch);
        capture->flows.finish();
        auto index = model::TimelineIndex::build(*capture);
        auto v = view(0, 100, 100);
        v.flowsOf = 2u;
        const auto list = model::buildDrawList(*capture, *index, v);
        QCOMPARE(list.flows.size(), size_t(1));
        QCOMPARE(list.flows[0].x0, 10.0f);
        QCOMPARE(list.flows[0].x1, 30.0f);
        QVERIFY(list.flows[0].y1 > list.flows[0].y0); // the kernel's lane is below
        v.flowsOf.reset();
        QCOMPARE(model::buildDrawList(*capture, *index, v).flows.size(), size_t(0));
        v.allFlows = true;
        QCOMPARE(model::buildDrawList(*capture, *index, v).flows.size(), size_t(1));
        QCOMPARE(index->stackOf(*capture, 1), (std::vector<uint32_t>{0, 1}));
        QCOMPARE(index->stackOf(*capture, 2), (std::vector<uint32_t>{2}));
    }

    // 4 (index) + 8 (busy prefix) + 1/8 (sampled starts) + LOD bytes per call.
    void indexCostsAtMostThirteenBytesPerCall()
    {
        std::string text;
        for (int i = 0; i < 10000; ++i)
            text += "a 0 " + std::to_string(i * 10) + " " + std::to_string(i * 10 + 5) + "\n";
        auto frame = prepare(text);
        QVERIFY2(frame.index->residentBytes() <= 13 * 10000 + 64,
                 qPrintable(QString::number(frame.index->residentBytes())));
    }
};

QTEST_GUILESS_MAIN(TestTimeline)
#include "tst_timeline.moc"
