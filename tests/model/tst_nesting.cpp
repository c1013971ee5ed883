// Nesting from containment and exclusive time, checked as golden text.

#include "model/stats/nesting.h"
#include "model/timeline/timeline_index.h"
#include "support/capture_builder.h"

#include <QtTest>

#include <functional>
#include <map>
#include <tuple>
#include <random>

using namespace spanscope;
using namespace spanscope::testing;

namespace {

// "region@rank depth=D" per call in storage order, then "region@rank excl=N" per row.
std::string describe(const model::Capture& capture)
{
    std::string out;
    for (size_t r = 0; r < capture.rows.size(); ++r) {
        const auto& row = capture.rows[r];
        const std::string label = capture.regionName(row.region) + "@" + std::to_string(row.rank);
        out += label + " depth=";
        for (uint64_t i = row.firstEvent; i < row.firstEvent + row.count; ++i)
            out += (i > row.firstEvent ? "," : "") + std::to_string(capture.events.depth[i]);
        out += " excl=" + std::to_string(capture.rowExclusive[r]) + "\n";
    }
    return out;
}

// Random call trees in capture_builder text, by `round % 4`: rows of disjoint calls (a
// region per depth), recursion (three regions at any depth), two threads per rank as
// lanes, and one call that ends after its parent (a partial overlap).
std::string randomTrees(std::mt19937& random, int round)
{
    const int shape = round % 4;
    std::string text;
    std::function<void(int, int64_t, int64_t, int)> grow = [&](int rank, int64_t begin, int64_t end, int depth) {
        const std::string region = shape == 1 ? "r" + std::to_string(random() % 3) : "d" + std::to_string(depth);
        text += region + " " + std::to_string(rank) + " " + std::to_string(begin) + " " + std::to_string(end);
        if (shape == 2)
            text += " thread=" + std::to_string(rank * 10 + int(random() % 2));
        text += "\n";
        if (depth > 5 || end - begin < 6)
            return;
        int64_t cursor = begin + int64_t(random() % 2); // children may start with the parent
        while (cursor + 2 < end && random() % 4) {
            const int64_t length = int64_t(random() % uint64_t(std::max<int64_t>(1, (end - cursor) / 2)));
            grow(rank, cursor, std::min(end, cursor + length), depth + 1); // zero-length allowed
            cursor += length + int64_t(random() % 2); // touching or apart
        }
    };
    for (int rank = 0; rank < 1 + round % 3; ++rank)
        for (int64_t top = 0; top < 5000; top += 1000)
            grow(rank, top, top + 900 + int64_t(random() % 100), 0);
    if (shape == 3)
        text += "d9 0 1950 2980\n";
    return text;
}

// Every lane of a timeline index: its track, calls, and per depth the events with their
// busy-time prefix sums and running maximum ends, then the calls that never closed.
std::string describe(const model::TimelineIndex& index)
{
    std::string out;
    for (const auto& lane : index.lanes()) {
        out += "lane " + std::to_string(lane.track.value) + " calls=" + std::to_string(lane.calls) + "\n";
        for (size_t d = 0; d < lane.depths.size(); ++d) {
            const auto& row = lane.depths[d];
            out += " depth " + std::to_string(d) + ":";
            for (size_t i = 0; i < row.size(); ++i)
                out += " " + std::to_string(row.events[i]) + "/" + std::to_string(row.busyPrefix[i + 1])
                       + (row.maxEnd.empty() ? "" : "/" + std::to_string(row.maxEnd[i]));
            out += "\n";
        }
        out += " unclosed:";
        for (const uint32_t e : lane.unclosed)
            out += " " + std::to_string(e);
        out += "\n";
    }
    return out;
}

} // namespace

class TestNesting : public QObject
{
    Q_OBJECT

private slots:
    void nestedRegions()
    {
        auto capture = buildCapture(R"(
run 0 0 100
step 0 10 40
step 0 50 90
solve 0 12 20
solve 0 22 30
solve 0 55 85
)");
        QVERIFY(model::computeNesting(*capture));
        QCOMPARE(QString::fromStdString(describe(*capture)), QString("run@0 depth=0 excl=30\n"
                                                 "step@0 depth=1,1 excl=24\n"
                                                 "solve@0 depth=2,2,2 excl=46\n"));
        QVERIFY(capture->warnings.empty());
    }

    void ranksNestSeparately()
    {
        auto capture = buildCapture(R"(
outer 0 0 100
outer 1 0 10
inner 1 20 30
)");
        QVERIFY(model::computeNesting(*capture));
        // inner on rank 1 is outside rank 1's outer, even though rank 0's outer covers it.
        QCOMPARE(QString::fromStdString(describe(*capture)), QString("outer@0 depth=0 excl=100\n"
                                                 "outer@1 depth=0 excl=10\n"
                                                 "inner@1 depth=0 excl=10\n"));
    }

    void touchingCallsAreSiblings()
    {
        auto capture = buildCapture(R"(
a 0 0 10
b 0 10 20
)");
        QVERIFY(model::computeNesting(*capture));
        QCOMPARE(QString::fromStdString(describe(*capture)), QString("a@0 depth=0 excl=10\nb@0 depth=0 excl=10\n"));
    }

    void zeroLengthCallStaysOpenThroughItsInstant()
    {
        auto capture = buildCapture(R"(
marker 0 10 10
tick 0 10 10
)");
        QVERIFY(model::computeNesting(*capture));
        QCOMPARE(QString::fromStdString(describe(*capture)), QString("marker@0 depth=0 excl=0\ntick@0 depth=1 excl=0\n"));
    }

    void equalSpansNestInInputOrder()
    {
        auto capture = buildCapture(R"(
first 0 0 10
second 0 0 10
)");
        QVERIFY(model::computeNesting(*capture));
        QCOMPARE(QString::fromStdString(describe(*capture)), QString("first@0 depth=0 excl=0\nsecond@0 depth=1 excl=10\n"));
    }

    void partialOverlapMovesToAnInferredLane()
    {
        auto capture = buildCapture(R"(
parent 0 0 50
child 0 40 60
)");
        QVERIFY(model::computeNesting(*capture));
        QCOMPARE(QString::fromStdString(describe(*capture)), QString("parent@0 depth=0 excl=50\nchild@0 depth=0 excl=20\n"));
        QCOMPARE(capture->warnings.size(), size_t(1));
        const std::string& warning = capture->warnings[0].message;
        QVERIFY2(warning.find("1 calls of 'child' (1) were moved to 1 inferred overlap lanes") != std::string::npos,
                 warning.c_str());
        QVERIFY2(warning.find("records no thread") != std::string::npos, warning.c_str());
        // The child is on its own lane beside rank 0's, titled as such.
        const model::TrackId parentTrack = capture->trackOfEvent(0, 0);
        const model::TrackId childTrack = capture->trackOfEvent(1, 1);
        QVERIFY(parentTrack != childTrack);
        QCOMPARE(capture->track(childTrack).inferredLane, uint16_t(1));
        QCOMPARE(QString::fromStdString(model::trackTitle(*capture, childTrack)),
                 QString::fromUtf8("rank 0 \u00b7 overlap lane 2"));
        // A second analysis (a reload of the same capture) changes nothing and warns once.
        QVERIFY(model::computeNesting(*capture));
        QCOMPARE(capture->warnings.size(), size_t(1));
        QCOMPARE(capture->tracks.size(), size_t(2));
    }

    // Four threads that recorded no thread ids, as scope-profiler 0.2.1 writes them: every
    // call on one lane, iterations of different workers overlapping partially. Exclusive
    // time is never negative nor above the total, and on every lane the children of a call
    // fit inside it.
    void threadsWithoutIdsNeverGiveNegativeExclusive()
    {
        std::string text = "main.threads 0 0 100000\n";
        for (int worker = 0; worker < 4; ++worker)
            for (int i = 0; i < 50; ++i) {
                const int start = 100 + worker * 37 + i * 1900;
                const std::string name = "worker" + std::to_string(worker);
                text += name + ".iteration 0 " + std::to_string(start) + " " + std::to_string(start + 1500) + "\n";
                text += name + ".compute 0 " + std::to_string(start + 100) + " " + std::to_string(start + 1200) + "\n";
            }
        auto capture = buildCapture(text);
        QVERIFY(model::computeNesting(*capture));
        for (size_t r = 0; r < capture->rows.size(); ++r) {
            int64_t total = 0;
            const auto& row = capture->rows[r];
            for (uint64_t i = row.firstEvent; i < row.firstEvent + row.count; ++i)
                total += capture->events.end[i] - capture->events.start[i];
            QVERIFY2(capture->rowExclusive[r] >= 0 && capture->rowExclusive[r] <= total,
                     capture->regionName(row.region).c_str());
        }
        // Every compute nests in an iteration of the same lane; all 200 computes keep depth 2.
        for (size_t r = 0; r < capture->rows.size(); ++r)
            if (capture->regionName(capture->rows[r].region).find(".compute") != std::string::npos)
                for (const uint64_t i : capture->rowEvents(r))
                    QCOMPARE(int(capture->events.depth[i]), capture->trackOfEvent(uint32_t(r), i).value == 0 ? 2 : 1);
        QCOMPARE(capture->warnings.size(), size_t(1));
        QVERIFY(capture->warnings[0].message.find("inferred overlap lanes") != std::string::npos);
        QVERIFY(capture->tracks.size() >= 2 && capture->tracks.size() <= 5);
    }

    void unsortedRowsAreSorted()
    {
        auto capture = buildCapture(R"(
outer 0 100 200
outer 0 0 50
inner 0 120 130
inner 0 10 20
)");
        QVERIFY(model::computeNesting(*capture));
        QCOMPARE(QString::fromStdString(describe(*capture)), QString("outer@0 depth=0,0 excl=130\ninner@0 depth=1,1 excl=20\n"));
    }

    void unclosedCallsTakeNoPart()
    {
        auto capture = buildCapture(R"(
outer 0 0 100
outer 0 200 150
inner 0 10 20
inner 0 210 220
)");
        QVERIFY(model::computeNesting(*capture));
        QCOMPARE(QString::fromStdString(describe(*capture)), QString("outer@0 depth=0,0 excl=90\ninner@0 depth=1,0 excl=20\n"));
    }

    void threadsAndTasksAreSeparateLanes()
    {
        auto capture = buildCapture(R"(
outer 0 0 100 thread=0
outer 0 0 100 thread=1
inner 0 10 20 thread=1
inner 0 30 40 thread=1 task=5
)");
        QVERIFY(model::computeNesting(*capture));
        // The task call is on its own lane, so it is nested in nothing.
        QCOMPARE(QString::fromStdString(describe(*capture)), QString("outer@0 depth=0,0 excl=190\ninner@0 depth=1,0 excl=20\n"));
        int64_t thread1Outer = 0;
        for (const auto& lane : capture->laneExclusive) {
            const auto& track = capture->track(lane.track);
            if (lane.row == 0 && track.kind == model::TrackKind::Thread && track.thread == 1)
                thread1Outer = lane.exclusiveNs;
        }
        QCOMPARE(thread1Outer, int64_t(90));
    }

    // Exclusive time summed over all rows equals the union of busy time per lane when
    // every call nests properly: checked on random well-nested trees against a brute
    // force parent search.
    void randomTreesMatchBruteForce()
    {
        std::mt19937 random(7);
        for (int round = 0; round < 20; ++round) {
            std::string text;
            // Generate a well-nested tree by recursive subdivision.
            std::function<void(int64_t, int64_t, int)> grow = [&](int64_t begin, int64_t end, int depth) {
                text += "r" + std::to_string(random() % 4) + " 0 " + std::to_string(begin) + " "
                        + std::to_string(end) + "\n";
                if (depth > 4 || end - begin < 8)
                    return;
                int64_t cursor = begin + 1;
                while (cursor + 4 < end && random() % 3) {
                    const int64_t length = 1 + int64_t(random() % uint64_t(std::max<int64_t>(1, (end - cursor) / 2)));
                    grow(cursor, std::min(end - 1, cursor + length), depth + 1);
                    cursor += length + 1;
                }
            };
            grow(0, 1000, 0);
            auto capture = buildCapture(text);
            QVERIFY(model::computeNesting(*capture));
            QVERIFY(capture->warnings.empty());
            const auto& e = capture->events;
            for (size_t i = 0; i < e.size(); ++i) {
                int depth = 0;
                for (size_t j = 0; j < e.size(); ++j) {
                    if (j == i)
                        continue;
                    const bool contains = e.start[j] <= e.start[i] && e.end[i] <= e.end[j];
                    const bool same = e.start[j] == e.start[i] && e.end[j] == e.end[i];
                    if (contains && !same)
                        ++depth;
                }
                QCOMPARE(int(e.depth[i]), depth);
            }
        }
    }

    // The walk on two threads (tracks shared out, big tracks cut at a time inside them)
    // gives exactly what the serial walk gives: depths, exclusive times per row and per
    // lane, warnings. Random captures: trees whose rows hold disjoint calls (cut), trees
    // with recursion (walked whole), threads as lanes, and partial overlaps (walked again
    // serially).
    void parallelWalkMatchesTheSerialOne()
    {
        std::mt19937 random(11);
        for (int round = 0; round < 60; ++round) {
            const std::string text = randomTrees(random, round);
            auto serial = buildCapture(text);
            auto parallel = buildCapture(text);
            model::NestingOptions never, always;
            never.parallelMinimumCalls = UINT64_MAX;
            always.parallelMinimumCalls = 0;
            QVERIFY(model::computeNesting(*serial, {nullptr, 0, 1}, nullptr, never));
            QVERIFY(model::computeNesting(*parallel, {nullptr, 0, 1}, nullptr, always));
            QCOMPARE(describe(*parallel), describe(*serial));
            auto lanes = [](const model::Capture& capture) {
                std::map<std::pair<uint32_t, uint32_t>, int64_t> byLane;
                for (const auto& lane : capture.laneExclusive)
                    byLane[{lane.track.value, lane.row}] += lane.exclusiveNs;
                return byLane;
            };
            QCOMPARE(lanes(*parallel), lanes(*serial));
            // Entry for entry, in the same order: one per (track, row), a track's in the
            // order the walk met its rows.
            auto entries = [](const model::Capture& capture) {
                std::vector<std::tuple<uint32_t, uint32_t, int64_t>> list;
                for (const auto& lane : capture.laneExclusive)
                    list.emplace_back(lane.track.value, lane.row, lane.exclusiveNs);
                return list;
            };
            QVERIFY(entries(*parallel) == entries(*serial));
            QCOMPARE(parallel->warnings.size(), serial->warnings.size());
            for (size_t w = 0; w < serial->warnings.size(); ++w)
                QCOMPARE(parallel->warnings[w].message, serial->warnings[w].message);
        }
    }

    // The timeline index collected by the walk on two threads (the builder taking its
    // pieces, a cut track's parts joined in order) is the one the serial walk collects; a
    // visitor that takes no pieces still sees every call in order on one thread.
    void parallelWalkCollectsTheSerialTimelineIndex()
    {
        class Recorder : public model::NestingVisitor
        {
        public:
            void track(model::TrackId track) override { seen += "t" + std::to_string(track.value) + " "; }
            void call(uint32_t event, uint16_t depth, int64_t start, int64_t end) override
            {
                seen += std::to_string(event) + ":" + std::to_string(depth) + " ";
                if (start != capture->events.start[event] || end != capture->events.end[event])
                    seen += "(times not the event's) ";
            }
            const model::Capture* capture = nullptr;
            void unclosed(uint32_t event, model::TrackId) override { seen += "u" + std::to_string(event) + " "; }
            void restart() override { seen.clear(); }
            std::string seen;
        };
        std::mt19937 random(5);
        model::NestingOptions never, always;
        never.parallelMinimumCalls = UINT64_MAX;
        always.parallelMinimumCalls = 0;
        for (int round = 0; round < 60; ++round) {
            std::string text = randomTrees(random, round);
            if (round % 5 == 0) // calls that never closed (end before start)
                text += "d0 0 4500 4400\nd1 0 10 5\n";
            auto serial = buildCapture(text);
            auto parallel = buildCapture(text);
            model::TimelineIndexBuilder serialBuilder, parallelBuilder;
            QVERIFY(model::computeNesting(*serial, {nullptr, 0, 1}, &serialBuilder, never));
            QVERIFY(model::computeNesting(*parallel, {nullptr, 0, 1}, &parallelBuilder, always));
            QCOMPARE(describe(*parallel), describe(*serial));
            const std::string expected = describe(*serialBuilder.finish(*serial));
            QVERIFY(expected.find("depth 1:") != std::string::npos);
            QCOMPARE(describe(*parallelBuilder.finish(*parallel)), expected);

            auto inOrder = buildCapture(text);
            auto shared = buildCapture(text);
            Recorder serialRecorder, sharedRecorder;
            serialRecorder.capture = inOrder.get();
            sharedRecorder.capture = shared.get();
            QVERIFY(model::computeNesting(*inOrder, {nullptr, 0, 1}, &serialRecorder, never));
            QVERIFY(model::computeNesting(*shared, {nullptr, 0, 1}, &sharedRecorder, always));
            QCOMPARE(sharedRecorder.seen, serialRecorder.seen);
            QVERIFY(serialRecorder.seen.find("not the event's") == std::string::npos);
        }
    }
};

QTEST_GUILESS_MAIN(TestNesting)
#include "tst_nesting.moc"
