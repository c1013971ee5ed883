// NvtxAssembler's allocations (libspanscope-alloc's records in the stream): counts go to the
// innermost push range of their thread, size bins, large allocations and the heap in use,
// and the allocation tables saved to a capture file and read back, damaged ones with a
// warning. The rest of the assembler: tst_nvtx_assembler.cpp.
#include "model/io/capture_writer.h"
#include "model/io/region_file_reader.h"
#include "model/live/nvtx_assembler.h"
#include "support/h5_damage.h"
#include "support/nvtx_feed.h"
#include "support/test_helpers.h"

#include <QTemporaryDir>
#include <QTest>
#include <hdf5.h>

using namespace spanscope::model;
using namespace spanscope::model::live;
using namespace spanscope::protocol;
using spanscope::testing::Feed;
using spanscope::testing::firstEventOf;
using spanscope::testing::hasWarningContaining;
using spanscope::testing::metadataInt;
using spanscope::testing::rewriteDataset;

class TestNvtxAllocations : public QObject
{
    Q_OBJECT

private slots:
    // AllocDelta goes to the innermost push range open on its thread (over every domain),
    // exclusive; none open: outside every range; start/end ranges get none (-1). Sums
    // saturate instead of wrapping on a hostile stream.
    void allocationsGoToTheInnermostRange()
    {
        NvtxAssembler a;
        Feed f(a);
        f.domain(5, "io");
        f.push(1, 10, "outer");
        f.allocs(1, 15, 2, 200);      // outer
        f.push(1, 20, "inner", 5);    // another domain, still innermost on thread 1
        f.start(1, 99, 21, "async");  // start/end: never attributed
        f.allocs(1, 25, 3, 30);       // inner
        f.pop(1, 30, 5);
        f.allocs(1, 35, 1, 1);        // outer again
        f.pop(1, 40);
        f.end(1, 99, 41);
        f.allocs(1, 45, 7, 700);      // outside every range
        f.push(2, 50, "hostile");
        f.allocs(2, 51, UINT64_MAX, UINT64_MAX);
        f.allocs(2, 52, 5, 5);
        f.pop(2, 60);
        AllocTotalsRecord totals{};
        totals.allocations = 20;
        totals.bytes = 1000;
        totals.liveBytes = 64;
        a.onAllocTotals(totals);
        const auto c = a.snapshot();
        QVERIFY(c->events.hasAllocations());
        auto allocsOf = [&](const std::string& name) {
            const int64_t e = firstEventOf(*c, name);
            return std::pair(c->events.allocCounts[size_t(e)], c->events.allocBytes[size_t(e)]);
        };
        QCOMPARE(allocsOf("outer"), std::pair(int64_t(3), int64_t(201)));
        QCOMPARE(allocsOf("inner"), std::pair(int64_t(3), int64_t(30)));
        QCOMPARE(allocsOf("async"), std::pair(int64_t(-1), int64_t(-1)));
        QCOMPARE(allocsOf("hostile"), std::pair(INT64_MAX, INT64_MAX));
        QCOMPARE(metadataInt(*c, "alloc_total_allocations"), 20);
        QCOMPARE(metadataInt(*c, "alloc_live_bytes"), 64);
        QCOMPARE(metadataInt(*c, "alloc_outside_ranges_allocations"), 0); // clamped, not negative

        // Without any allocation record the columns stay absent.
        NvtxAssembler plain;
        Feed g(plain);
        g.push(1, 10, "outer");
        g.pop(1, 20);
        QVERIFY(!plain.snapshot()->events.hasAllocations());
    }

    // Size bins follow their AllocDelta to the same place: the innermost range's region on
    // that thread, or the thread itself. Large allocations become single allocation events
    // (a free matched by address, an unknown one ignored), the totals a heap counter.
    void sizeBinsLargeAllocationsAndTheHeap()
    {
        NvtxAssembler a;
        Feed f(a);
        f.threadName(1, "main");
        f.allocs(1, 5, 1, 8); // before any range: the thread's own
        f.bin(1, 3, 1, 8);
        f.push(1, 10, "work");
        f.allocs(1, 12, 3, 2100);
        f.bin(1, 5, 2, 100);
        f.bin(1, 11, 1, 2000);
        f.large(1, 13, 0x1000, 3 << 20);
        f.totals(14, 4, 3 << 20);
        f.large(1, 15, 0x1000, 0);  // frees the block above
        f.large(1, 16, 0x9999, 0);  // a block never seen: ignored
        f.totals(17, 4, 4096);
        f.pop(1, 20);
        f.push(2, 30, "work"); // same region, another thread
        f.allocs(2, 31, 1, 40);
        f.bin(2, 5, 1, 40);
        f.bin(2, 99, 1, 1); // out of range: ignored (the decoder rejects it first)
        f.pop(2, 40);
        const auto c = a.snapshot();

        QCOMPARE(c->countedAllocations.size(), size_t(3));
        auto row = [&](int64_t thread, int64_t region) -> const CountedAllocations* {
            for (const auto& counted : c->countedAllocations)
                if (c->track(counted.track).thread == thread && counted.region == region)
                    return &counted;
            return nullptr;
        };
        const int64_t work = c->rows[size_t(0)].region;
        const CountedAllocations* outside = row(0, -1);
        QVERIFY(outside);
        QCOMPARE(outside->allocations, uint64_t(1));
        QCOMPARE(outside->binAllocations[3], uint64_t(1));
        QCOMPARE(c->track(outside->track).kind, TrackKind::Thread);
        const CountedAllocations* main = row(0, work);
        QVERIFY(main);
        QCOMPARE(main->allocations, uint64_t(3));
        QCOMPARE(main->bytes, uint64_t(2100));
        QCOMPARE(main->binAllocations[5], uint64_t(2));
        QCOMPARE(main->binBytes[11], uint64_t(2000));
        const CountedAllocations* other = row(1, work);
        QVERIFY(other);
        QCOMPARE(other->binAllocations[5], uint64_t(1));
        uint64_t binned = 0;
        for (const uint64_t n : other->binAllocations)
            binned += n;
        QCOMPARE(binned, uint64_t(1));

        QCOMPARE(c->allocations.size(), size_t(2)); // the block and its free
        QCOMPARE(c->allocations.bytes(0), int64_t(3 << 20));
        QCOMPARE(c->allocations.bytes(1), -int64_t(3 << 20));
        QCOMPARE(c->allocations.time(0), int64_t(1013));
        QCOMPARE(c->allocations.track(0), outside->track);
        QCOMPARE(c->counters.size(), size_t(1));
        QCOMPARE(c->strings.text(c->track(c->counters[0].track).name), std::string("host allocated"));
        QCOMPARE(c->counters[0].size(), size_t(2));
        QCOMPARE(c->counters[0].maximum(), double(3 << 20));
        QCOMPARE(metadataInt(*c, "alloc_live_bytes"), 4096); // the latest sample in time
    }

    // Counted allocations, large ones, the heap counter and the span API's iterations
    // survive a save (/spanscope/alloc, /spanscope/counters) and a read back exactly; a
    // damaged table becomes a warning naming it, and the rest of the capture still loads.
    void allocationTablesAreSavedAndDamageWarns()
    {
        NvtxAssembler a;
        Feed f(a);
        f.push(1, 10, "work");
        f.allocs(1, 12, 3, 2100);
        f.bin(1, 5, 2, 100);
        f.bin(1, 11, 1, 2000);
        f.large(1, 13, 0x1000, 3 << 20);
        f.totals(14, 4, 3 << 20);
        f.pop(1, 20);
        f.allocs(2, 25, 2, 24); // a thread with no range
        f.bin(2, 3, 2, 24);
        AllocSpanRecord span{};
        span.tid = 1;
        span.startNs = 1030;
        span.endNs = 1040;
        span.iterations = 4;
        span.allocations = 8;
        span.bytes = 512;
        span.operation = f.str("fill");
        a.onAllocSpan(span);
        a.onEnd();
        a.finish();
        const auto c = a.snapshot();
        QTemporaryDir dir;
        const std::string path = dir.filePath("allocs.h5").toStdString();
        QVERIFY(io::writeCaptureFile(*c, path).ok());
        auto read = io::readRegionFile(path);
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().toString().c_str());
        const Capture& back = *read.value();
        QVERIFY(back.warnings.empty());
        QCOMPARE(back.countedAllocations.size(), c->countedAllocations.size());
        for (size_t i = 0; i < back.countedAllocations.size(); ++i) {
            const auto& x = c->countedAllocations[i];
            const auto& y = back.countedAllocations[i];
            QCOMPARE(back.track(y.track).kind, TrackKind::Thread);
            QCOMPARE(back.track(y.track).thread, c->track(x.track).thread);
            QCOMPARE(y.region, x.region);
            QCOMPARE(y.allocations, x.allocations);
            QCOMPARE(y.bytes, x.bytes);
            QCOMPARE(y.frees, x.frees);
            QVERIFY(y.binAllocations == x.binAllocations);
            QVERIFY(y.binBytes == x.binBytes);
        }
        QCOMPARE(back.allocations.size(), size_t(1));
        QCOMPARE(back.allocations.bytes(0), int64_t(3 << 20));
        QCOMPARE(back.allocations.address(0), uint64_t(0x1000));
        QCOMPARE(back.allocations.time(0), c->allocations.time(0));
        QCOMPARE(back.counters.size(), size_t(1));
        QCOMPARE(back.counters[0].size(), c->counters[0].size());
        QCOMPARE(back.counters[0].maximum(), double(3 << 20));
        QCOMPARE(back.strings.text(back.counters[0].unit), std::string("bytes"));
        const int64_t fill = firstEventOf(back, "alloc: fill");
        QCOMPARE(back.events.allocIterations[size_t(fill)], int64_t(4));

        auto rewrite = [&](const char* dataset, std::vector<int64_t> values) {
            rewriteDataset(path, dataset, values);
        };
        std::vector<int64_t> regions(c->countedAllocations.size(), 99); // no such region
        rewrite("/spanscope/alloc/counted_regions", regions);
        rewrite("/spanscope/counters/sample_values", {1, 2}); // integers, not doubles
        auto damaged = io::readRegionFile(path);
        QVERIFY(damaged.ok());
        const Capture& d = *damaged.value();
        QVERIFY(hasWarningContaining(d, "the allocation tables cannot be read and are left out: counted "
                              "allocations name a region that does not exist"));
        QVERIFY(hasWarningContaining(d, "the counters cannot be read and are left out"));
        QVERIFY(d.countedAllocations.empty() && d.allocations.empty() && d.counters.empty());
        QCOMPARE(d.events.size(), c->events.size());
        // A thread the thread table does not have (a hostile file could name millions).
        rewrite("/spanscope/alloc/event_threads", {7});
        auto unknown = io::readRegionFile(path);
        QVERIFY(unknown.ok());
        QVERIFY(hasWarningContaining(*unknown.value(),
                                     "an allocation names a thread the thread table does not have"));
        QVERIFY(unknown.value()->tracks.size() <= c->tracks.size()); // none made up for thread 7
    }
};

QTEST_GUILESS_MAIN(TestNvtxAllocations)
#include "tst_nvtx_allocations.moc"
