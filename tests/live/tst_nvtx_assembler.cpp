// NvtxAssembler on hand-built record sequences: nesting, async ranges across threads, marks,
// anomalies, open ranges at the end, dropped counts, the span budget, calibration.
#include "model/io/capture_writer.h"
#include "model/io/region_file_reader.h"
#include "model/live/nvtx_assembler.h"
#include "support/nvtx_feed.h"
#include "support/h5_damage.h"
#include "support/test_helpers.h"
#include "model/stats/nesting.h"

#include <QTemporaryDir>
#include <hdf5.h>
#include <QTest>
#include <cstring>

using namespace spanscope::model;
using namespace spanscope::model::live;
using namespace spanscope::protocol;
using spanscope::testing::Feed;
using spanscope::testing::firstEventOf;
using spanscope::testing::hasWarningContaining;
using spanscope::testing::metadataInt;
using spanscope::testing::rewriteDataset;

namespace {

// The calls of region `name` as "start-end" (ns), in row order.
QStringList calls(const Capture& c, const std::string& name)
{
    QStringList out;
    for (const auto& row : c.rows) {
        if (c.regionName(row.region) != name)
            continue;
        for (uint64_t i = row.firstEvent; i < row.firstEvent + row.count; ++i)
            out << QStringLiteral("%1-%2").arg(c.events.start[i]).arg(c.events.end[i]);
    }
    return out;
}

} // namespace

class TestNvtxAssembler : public QObject
{
    Q_OBJECT

private slots:
    // The NVTX per-call columns are left out while every call is in the default domain
    // and has no category (4 bytes per call each, made afresh per update), and come back
    // once one is not; a call's domain and category read the same either way.
    void perCallColumnsOnlyWhereSomeCallDiffers()
    {
        NvtxAssembler a;
        Feed f(a);
        f.push(10, 0, "outer");
        f.push(10, 10, "inner");
        f.pop(10, 20);
        f.pop(10, 30);
        auto c = a.snapshot();
        QVERIFY(c->nvtx.ranges());
        QVERIFY(c->nvtx.callDomains.empty());
        QVERIFY(c->nvtx.callCategories.empty());
        for (uint64_t e = 0; e < c->events.size(); ++e) {
            QCOMPARE(c->nvtx.domainOf(e), 0u);
            QCOMPARE(c->nvtx.categoryOf(e), 0u);
        }
        f.push(11, 40, "tagged", 0, 3);
        f.pop(11, 50);
        c = a.snapshot();
        QVERIFY(c->nvtx.callDomains.empty());
        QCOMPARE(c->nvtx.callCategories.size(), c->events.size());
        QCOMPARE(c->nvtx.categoryOf(uint64_t(firstEventOf(*c, "tagged"))), 3u);
        QCOMPARE(c->nvtx.categoryOf(uint64_t(firstEventOf(*c, "outer"))), 0u);
        f.domain(5, "lib");
        f.push(11, 60, "libwork", 5);
        f.pop(11, 70, 5);
        c = a.snapshot();
        QCOMPARE(c->nvtx.callDomains.size(), c->events.size());
        QCOMPARE(c->nvtx.domainOf(uint64_t(firstEventOf(*c, "libwork"))), 5u);
        QCOMPARE(c->nvtx.domainOf(uint64_t(firstEventOf(*c, "inner"))), 0u);
        QCOMPARE(c->nvtx.categoryOf(uint64_t(firstEventOf(*c, "tagged"))), 3u);
    }

    void nestingPerThreadAndDomain()
    {
        NvtxAssembler a;
        Feed f(a);
        f.domain(5, "lib");
        f.threadName(10, "main");
        f.push(10, 0, "outer");
        f.push(10, 10, "inner");
        f.push(10, 20, "libwork", 5); // its own stack
        f.pop(10, 30);                // pops "inner" (domain 0)
        f.push(11, 5, "outer");       // another thread
        f.pop(10, 40, 5);
        f.pop(10, 50);
        f.pop(11, 60);
        a.onEnd();
        a.finish();
        auto c = a.snapshot();
        QCOMPARE(calls(*c, "outer"), QStringList({"1000-1050", "1005-1060"}));
        QCOMPARE(calls(*c, "inner"), QStringList({"1010-1030"}));
        QCOMPARE(calls(*c, "libwork"), QStringList({"1020-1040"}));
        QCOMPARE(c->threads.size(), size_t(2));
        QCOMPARE(c->strings.text(c->threads[0].name), std::string("main"));
        QCOMPARE(c->threads[0].nativeId, int64_t(10));
        QCOMPARE(c->threads[1].nativeId, int64_t(11));
        QVERIFY(c->tasks.empty());
        const int64_t outer = firstEventOf(*c, "outer");
        QCOMPARE(c->events.threadIds[size_t(outer)], int64_t(0));
        QCOMPARE(c->events.threadIds[size_t(outer + 1)], int64_t(1));
        QCOMPARE(c->nvtx.callDomains[size_t(firstEventOf(*c, "libwork"))], 5u);
        QVERIFY(c->warnings.empty());
        QCOMPARE(metadataInt(*c, "pid"), int64_t(77));
        QCOMPARE(metadataInt(*c, "nvtx_anomalies"), int64_t(0));
        // Rows are contiguous slices and nesting works on them; the two domains' stacks
        // interleave on thread 10, so nesting moves the overlapping call to a lane of its own.
        QVERIFY(computeNesting(*c));
        QCOMPARE(c->warnings.size(), size_t(1));
        QVERIFY(hasWarningContaining(*c, "inferred overlap lanes"));
        QCOMPARE(int(c->events.depth[size_t(firstEventOf(*c, "inner"))]), 1);
    }

    void crossThreadStartEnd()
    {
        NvtxAssembler a;
        Feed f(a);
        f.domain(3, "async-dom");
        f.start(10, 100, 0, "cross", 3);
        f.end(11, 100, 500); // ends on another thread
        f.start(12, 101, 600, "plain");
        f.end(12, 101, 700);
        a.onEnd();
        a.finish();
        auto c = a.snapshot();
        QCOMPARE(calls(*c, "cross"), QStringList({"1000-1500"}));
        QCOMPARE(c->tasks.size(), size_t(2)); // default and async-dom
        const int64_t cross = firstEventOf(*c, "cross");
        const int64_t task = c->events.taskIds[size_t(cross)];
        QVERIFY(task >= 0);
        QCOMPARE(c->strings.text(c->tasks[size_t(task)].name), std::string("async-dom"));
        QCOMPARE(c->strings.text(c->tasks[size_t(task)].kind), std::string("nvtx-async"));
        QCOMPARE(c->events.threadIds[size_t(cross)], int64_t(0)); // the starting thread
        QVERIFY(c->warnings.empty());
        // The thread that ended it is kept (thread numbers are thread_table rows: tid 10 is
        // 0, tid 11 is 1); a range ended where it started is not listed.
        QCOMPARE(c->nvtx.crossThreadEnds.size(), size_t(1));
        QCOMPARE(c->nvtx.endThreadOf(uint64_t(cross)), int64_t(1));
        QCOMPARE(c->nvtx.endThreadOf(uint64_t(firstEventOf(*c, "plain"))), int64_t(-1));
    }

    // An end that arrives before its start (another thread's frame first) still records
    // the ending thread; the list survives saving and reading back.
    void crossThreadEndArrivingFirstIsSaved()
    {
        NvtxAssembler a;
        Feed f(a);
        f.end(12, 5, 300);
        f.start(10, 5, 100, "handed-over");
        f.start(11, 6, 150, "same-thread");
        f.end(11, 6, 200);
        f.start(10, 7, 400, "also-handed");
        f.end(11, 7, 450);
        a.onEnd();
        a.finish();
        auto c = a.snapshot();
        const auto handed = uint64_t(firstEventOf(*c, "handed-over"));
        const auto also = uint64_t(firstEventOf(*c, "also-handed"));
        QCOMPARE(c->nvtx.crossThreadEnds.size(), size_t(2));
        QCOMPARE(c->events.threadIds[handed], int64_t(1)); // tid 10 was seen second
        QCOMPARE(c->nvtx.endThreadOf(handed), int64_t(0)); // tid 12, seen first
        QCOMPARE(c->nvtx.endThreadOf(also), int64_t(2));   // tid 11
        QCOMPARE(c->nvtx.endThreadOf(uint64_t(firstEventOf(*c, "same-thread"))), int64_t(-1));
        QTemporaryDir dir;
        const std::string path = dir.filePath("cross.h5").toStdString();
        QVERIFY(io::writeCaptureFile(*c, path).ok());
        auto read = io::readRegionFile(path);
        QVERIFY(read.ok());
        const auto& back = read.value()->nvtx.crossThreadEnds;
        QCOMPARE(back.size(), size_t(2));
        for (size_t i = 0; i < back.size(); ++i) {
            QCOMPARE(back[i].event, c->nvtx.crossThreadEnds[i].event);
            QCOMPARE(back[i].endThread, c->nvtx.crossThreadEnds[i].endThread);
        }
    }

    void endBeforeStartAcrossFrames()
    {
        NvtxAssembler a;
        Feed f(a);
        f.end(11, 7, 300); // arrives first (other thread's frame came earlier)
        auto live = a.snapshot();
        QVERIFY(live->warnings.empty()); // still waiting for its start, not an anomaly yet
        f.start(10, 7, 100, "late-start");
        f.end(11, 8, 400); // never starts
        f.end(11, 9, 50);  // arrives before its start and is earlier in time
        f.start(10, 9, 60, "backwards");
        a.finish();
        auto c = a.snapshot();
        QCOMPARE(calls(*c, "late-start"), QStringList({"1100-1300"}));
        QCOMPARE(calls(*c, "backwards"), QStringList({"1060-1060"}));
        QCOMPARE(a.counts().unknownEnds, uint64_t(1));
        QCOMPARE(a.counts().endsBeforeStart, uint64_t(1));
        QVERIFY(hasWarningContaining(*c, "1 range ends name a range that never started"));
        QVERIFY(hasWarningContaining(*c, "end before they start"));
        QCOMPARE(metadataInt(*c, "nvtx_anomalies"), int64_t(2));
    }

    void marksInsideAndOutside()
    {
        NvtxAssembler a;
        Feed f(a);
        f.mark(10, 0, "before");
        f.push(10, 10, "outer");
        f.push(10, 20, "inner");
        f.mark(10, 25, "in-inner");
        f.pop(10, 30);
        f.mark(10, 35, "in-outer");
        f.mark(11, 36, "other-thread");
        f.start(10, 1, 37, "async");
        f.pop(10, 40);
        f.mark(10, 45, "in-async-only"); // async ranges do not enclose marks
        f.end(10, 1, 50);
        a.finish();
        auto c = a.snapshot();
        QCOMPARE(c->nvtx.marks.size(), size_t(5));
        auto enclosing = [&](size_t k) {
            const int64_t e = c->nvtx.marks[k].enclosingEvent;
            return e < 0 ? std::string("-") : [&] {
                for (const auto& row : c->rows)
                    if (uint64_t(e) >= row.firstEvent && uint64_t(e) < row.firstEvent + row.count)
                        return c->regionName(row.region);
                return std::string("?");
            }();
        };
        QCOMPARE(enclosing(0), std::string("-"));
        QCOMPARE(enclosing(1), std::string("inner"));
        QCOMPARE(enclosing(2), std::string("outer"));
        QCOMPARE(enclosing(3), std::string("-"));
        QCOMPARE(enclosing(4), std::string("-"));
        QCOMPARE(c->strings.text(c->nvtx.marks[1].message), std::string("in-inner"));
        QCOMPARE(c->nvtx.marks[1].timeNs, int64_t(1025));
        QCOMPARE(metadataInt(*c, "nvtx_marks"), int64_t(5));
    }

    void unmatchedPop()
    {
        NvtxAssembler a;
        Feed f(a);
        f.pop(10, 5);
        f.push(10, 10, "x");
        f.pop(10, 20);
        f.pop(10, 30);
        a.finish();
        auto c = a.snapshot();
        QCOMPARE(a.counts().unmatchedPops, uint64_t(2));
        QCOMPARE(calls(*c, "x"), QStringList({"1010-1020"}));
        QVERIFY(hasWarningContaining(*c, "2 pops had no open range"));
    }

    void openRangesAtTheEnd()
    {
        NvtxAssembler a;
        Feed f(a);
        f.push(10, 0, "open-1");
        f.push(10, 10, "open-2");
        f.start(10, 4, 20, "open-async");
        f.push(10, 30, "closed");
        f.pop(10, 40);
        f.mark(11, 90, "last"); // the last timestamp of the stream
        a.finish();
        auto c = a.snapshot();
        QCOMPARE(calls(*c, "open-1"), QStringList({"1000-1090"}));
        QCOMPARE(calls(*c, "open-2"), QStringList({"1010-1090"}));
        QCOMPARE(calls(*c, "open-async"), QStringList({"1020-1090"}));
        QCOMPARE(c->nvtx.closedAtEnd.size(), size_t(3));
        QVERIFY(hasWarningContaining(*c, "3 ranges were still open when the job ended"));
        QCOMPARE(metadataInt(*c, "nvtx_closed_at_end"), int64_t(3));
        QVERIFY(computeNesting(*c));
    }

    void droppedAndTruncated()
    {
        NvtxAssembler a;
        Feed f(a);
        f.push(10, 0, "x");
        f.pop(10, 1);
        a.onDropped(DroppedRecord{{}, 0, 12});
        a.onDropped(DroppedRecord{{}, 0, 30});
        a.finish("at byte 100: stream truncated");
        auto c = a.snapshot();
        QCOMPARE(metadataInt(*c, "dropped_records"), int64_t(42));
        QVERIFY(hasWarningContaining(*c, "dropped 42 records"));
        QVERIFY(hasWarningContaining(*c, "stream truncated"));
    }

    void noEndFrameWarns()
    {
        NvtxAssembler a;
        Feed f(a);
        f.push(10, 0, "x");
        f.pop(10, 1);
        a.finish();
        QVERIFY(hasWarningContaining(*a.snapshot(), "no end frame"));
        NvtxAssembler b;
        Feed g(b);
        b.onEnd();
        b.finish();
        QVERIFY(b.snapshot()->warnings.empty());
    }

    void spanBudgetKeepsWholeTrees()
    {
        NvtxAssemblerOptions options;
        options.maxSpansPerSecond = 3;
        NvtxAssembler a(options);
        Feed f(a);
        // Budget 3 per second. Tree 1 (2 spans): 0 kept so far, kept. Tree 2: 2 < 3, kept
        // (a kept tree is kept whole, so the window now holds 4). Tree 3: dropped whole, with
        // its mark; so is the start/end range. A second later: kept again.
        for (int tree = 0; tree < 3; ++tree) {
            const uint64_t t = uint64_t(tree) * 100;
            f.push(10, t, "root");
            f.push(10, t + 10, "child");
            f.mark(10, t + 15, "m");
            f.pop(10, t + 20);
            f.pop(10, t + 30);
        }
        f.start(11, 1, 400, "async-dropped");
        f.end(11, 1, 410); // matches the dropped start: no anomaly
        f.push(10, 2'000'000'000, "root");
        f.pop(10, 2'000'000'010);
        a.finish();
        auto c = a.snapshot();
        QCOMPARE(calls(*c, "root").size(), 3);
        QCOMPARE(calls(*c, "child").size(), 2);
        QCOMPARE(calls(*c, "async-dropped").size(), 0);
        QCOMPARE(c->nvtx.marks.size(), size_t(2));
        QCOMPARE(a.counts().budgetDroppedSpans, uint64_t(3));
        QCOMPARE(a.counts().anomalies(), uint64_t(0));
        QVERIFY(hasWarningContaining(*c, "span budget left out 3 spans"));
    }

    void recordsBeforeCalibrationAreConverted()
    {
        NvtxAssembler a;
        a.onHello(HelloPayload{1, 0, 0});
        a.onString(1, "early");
        PushRecord push{};
        push.tid = 1;
        push.timestamp = 2000; // ticks
        push.message = 1;
        a.onPush(push);
        ClockCalibrationRecord cal{};
        cal.ticks = 1000;
        cal.monotonicNs = 5000;
        cal.ticksPerSecond = 2e9; // 2 ticks per ns
        a.onClockCalibration(cal);
        PopRecord pop{};
        pop.tid = 1;
        pop.timestamp = 3000;
        a.onPop(pop);
        a.onEnd();
        a.finish();
        auto c = a.snapshot();
        QCOMPARE(calls(*c, "early"), QStringList({"5500-6000"}));
    }

    void snapshotsWhileFeeding()
    {
        NvtxAssembler a;
        Feed f(a);
        f.push(10, 0, "a");
        auto first = a.snapshot();
        QCOMPARE(first->events.size(), size_t(1));
        QCOMPARE(first->nvtx.closedAtEnd.size(), size_t(1));
        QVERIFY(hasWarningContaining(*first, "still open"));
        f.pop(10, 10);
        f.push(10, 20, "b");
        f.pop(10, 30);
        auto second = a.snapshot();
        QCOMPARE(second->events.size(), size_t(2));
        QVERIFY(second->nvtx.closedAtEnd.empty());
        QCOMPARE(first->events.size(), size_t(1)); // earlier snapshots are untouched
    }

    // Real bytes through the decoder, one byte at a time, cut inside the last frame: the
    // assembler keeps every complete frame and the capture says the stream was cut.
    void decodedStreamCutShort()
    {
        std::string stream;
        auto frame = [&](FrameType type, const std::string& payload) {
            FrameHeader h{};
            std::memcpy(h.magic, kMagic, 4);
            h.version = kVersion;
            h.type = uint16_t(type);
            h.payloadBytes = uint32_t(payload.size());
            stream.append(reinterpret_cast<const char*>(&h), sizeof h);
            stream += payload;
        };
        auto bytes = [](const auto& record) {
            return std::string(reinterpret_cast<const char*>(&record), sizeof record);
        };
        HelloPayload hello{42, 0, 0};
        frame(FrameType::Hello, bytes(hello));
        ClockCalibrationRecord cal{};
        cal.header = {uint16_t(RecordType::ClockCalibration), sizeof cal};
        cal.ticksPerSecond = 1e9;
        std::string name = "work";
        StringDefRecord def{};
        def.header = {uint16_t(RecordType::StringDef), uint16_t(stringDefSize(4))};
        def.id = 1;
        def.length = 4;
        PushRecord push{};
        push.header = {uint16_t(RecordType::Push), sizeof push};
        push.tid = 5;
        push.timestamp = 100;
        push.message = 1;
        PopRecord pop{};
        pop.header = {uint16_t(RecordType::Pop), sizeof pop};
        pop.tid = 5;
        pop.timestamp = 200;
        frame(FrameType::Data, bytes(cal) + bytes(def) + name /* 12 + 4 bytes: no padding */ +
                                   bytes(push) + bytes(pop));
        push.timestamp = 300;
        frame(FrameType::Data, bytes(push)); // still open when the stream is cut
        pop.timestamp = 400;
        frame(FrameType::Data, bytes(pop));
        stream.resize(stream.size() - 5); // the job was killed mid-write

        NvtxAssembler a;
        Decoder decoder(a);
        for (const char byte : stream)
            decoder.feed(&byte, 1);
        QVERIFY(!decoder.finish());
        a.finish(decoder.error());
        auto c = a.snapshot();
        QCOMPARE(calls(*c, "work"), QStringList({"100-200", "300-300"}));
        QCOMPARE(c->nvtx.closedAtEnd.size(), size_t(1));
        QVERIFY(hasWarningContaining(*c, "cut short"));
        QVERIFY(hasWarningContaining(*c, "stream truncated"));
        QCOMPARE(metadataInt(*c, "pid"), int64_t(42));
    }

    // The NVTX side tables survive a save (/spanscope/nvtx) and a read back.
    // Hostile cross-thread-end columns (events out of range, out of order, a negative
    // thread, columns of different lengths) never crash a reader nor reach the capture.
    void hostileCrossThreadEndsAreDropped()
    {
        NvtxAssembler a;
        Feed f(a);
        f.start(10, 1, 100, "a");
        f.end(11, 1, 200);
        f.start(10, 2, 300, "b");
        f.end(11, 2, 400);
        a.onEnd();
        a.finish();
        auto c = a.snapshot();
        QTemporaryDir dir;
        const std::string path = dir.filePath("hostile.h5").toStdString();
        QVERIFY(io::writeCaptureFile(*c, path).ok());
        auto rewrite = [&](const char* name, std::vector<int64_t> values) {
            rewriteDataset(path, std::string("/spanscope/nvtx/") + name, values);
        };
        // Out of range, then 1, then backwards (0, 0) and negative: only event 1 is kept, the
        // list stays ascending for its binary searches.
        rewrite("cross_thread_end_events", {1000, 1, 0, 0, -5});
        rewrite("cross_thread_end_threads", {1, 1, 1, 1, 1});
        auto read = io::readRegionFile(path);
        QVERIFY(read.ok());
        QCOMPARE(read.value()->nvtx.crossThreadEnds.size(), size_t(1));
        QCOMPARE(read.value()->nvtx.crossThreadEnds[0].event, uint64_t(1));
        rewrite("cross_thread_end_threads", {1, -1}); // lengths differ: the tables are left out
        read = io::readRegionFile(path);
        QVERIFY(read.ok());
        QVERIFY(read.value()->nvtx.crossThreadEnds.empty());
        QVERIFY(hasWarningContaining(*read.value(), "the NVTX tables cannot be read"));
    }

    void savedAndReadBack()
    {
        NvtxAssembler a;
        Feed f(a);
        f.domain(2, "dom");
        CategoryNameRecord category{};
        category.domain = 2;
        category.category = 9;
        category.nameId = f.str("cat-nine");
        a.onCategoryName(category);
        f.push(10, 0, "outer", 2, 9);
        f.mark(10, 5, "inside", 2);
        f.pop(10, 10, 2);
        f.mark(11, 15, "outside");
        f.start(11, 3, 20, "still-open", 2);
        a.onEnd();
        a.finish();
        auto c = a.snapshot();
        QTemporaryDir dir;
        const std::string path = dir.filePath("nvtx.h5").toStdString();
        auto saved = io::writeCaptureFile(*c, path);
        QVERIFY2(saved.ok(), saved.ok() ? "" : saved.error().toString().c_str());
        auto read = io::readRegionFile(path);
        QVERIFY(read.ok());
        const Capture& back = *read.value();
        QVERIFY(back.warnings.empty());
        auto names = [](const Capture& x) {
            QStringList out;
            for (const auto& d : x.nvtx.domains)
                out << QStringLiteral("%1=%2").arg(d.id).arg(
                    QString::fromStdString(x.strings.text(d.name)));
            for (const auto& k : x.nvtx.categories)
                out << QStringLiteral("%1/%2=%3")
                           .arg(k.domain)
                           .arg(k.category)
                           .arg(QString::fromStdString(x.strings.text(k.name)));
            for (const auto& m : x.nvtx.marks)
                out << QStringLiteral("mark %1 t%2 d%3 %4 in %5")
                           .arg(m.timeNs)
                           .arg(m.thread)
                           .arg(m.domain)
                           .arg(QString::fromStdString(x.strings.text(m.message)))
                           .arg(m.enclosingEvent);
            return out;
        };
        QCOMPARE(names(back), names(*c));
        QCOMPARE(names(back),
                 QStringList({"0=default", "2=dom", "2/9=cat-nine", "mark 1005 t0 d2 inside in 0",
                              "mark 1015 t1 d0 outside in -1"}));
        QCOMPARE(back.nvtx.callDomains, c->nvtx.callDomains);
        QCOMPARE(back.nvtx.callCategories, c->nvtx.callCategories);
        QCOMPARE(back.nvtx.closedAtEnd, c->nvtx.closedAtEnd);
        QCOMPARE(back.nvtx.closedAtEnd.size(), size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestNvtxAssembler)
#include "tst_nvtx_assembler.moc"
