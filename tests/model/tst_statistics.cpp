// Statistics against published and hand-computed golden values.

#include "model/stats/capture_summary.h"
#include "model/stats/nesting.h"
#include "model/stats/percentile.h"
#include "support/capture_builder.h"
#include "support/same_stats.h"
#include "support/test_helpers.h"

#include <cmath>
#include <random>
#include <sstream>

using namespace spanscope;
using namespace spanscope::testing;

namespace {

bool near(double a, double b, double tolerance = 1e-9)
{
    return std::fabs(a - b) <= tolerance * std::max(1.0, std::fabs(b));
}

std::shared_ptr<const model::CaptureSummary> summarize(model::Capture& capture)
{
    model::computeNesting(capture);
    return model::summarizeCapture(capture);
}

} // namespace

class TestStatistics : public QObject
{
    Q_OBJECT

private slots:
    // scope-profiler's published figures for its compat fixtures.
    void compatGoldenValues_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("schema-1") << "scope-profiler/compat/schema-1.h5";
        QTest::newRow("schema-2") << "scope-profiler/compat/schema-2.h5";
        QTest::newRow("schema-3") << "scope-profiler/compat/schema-3.h5";
    }
    void compatGoldenValues()
    {
        QFETCH(QString, file);
        SPANSCOPE_LOAD(loaded, dataFile(file.toUtf8().constData()));
        const auto& s = loaded.summary->pooled(0);
        QCOMPARE(s.calls, uint64_t(3));
        QCOMPARE(s.total, int64_t(33));
        QCOMPARE(s.minimum, int64_t(5));
        QCOMPARE(s.maximum, int64_t(15));
        QCOMPARE(s.mean, 11.0);
        QVERIFY(near(*s.stddev, 4.3204937989));
        QCOMPARE(*s.p50, 13.0);
        QVERIFY(near(*s.p95, 14.8));
        QVERIFY(near(*s.p99, 14.96));
        QCOMPARE(s.first, int64_t(5));
        QCOMPARE(s.last, int64_t(15));
        QCOMPARE(s.startMin, int64_t(10));
        QCOMPARE(s.endMax, int64_t(55));
        QCOMPARE(*s.exclusive, int64_t(33));
        QVERIFY(!s.gpuCalls);
    }

    void percentilesMatchSortedInterpolation()
    {
        std::mt19937 random(3);
        for (int round = 0; round < 50; ++round) {
            std::vector<int64_t> values(1 + random() % 300);
            for (auto& v : values)
                v = round % 2 ? int64_t(random() % 50) : int64_t(random()); // many ties, or few
            auto sorted = values;
            std::sort(sorted.begin(), sorted.end());
            const std::vector<double> ps = {0, 1, 25, 50, 95, 99, 99.9, 100};
            auto work = values;
            const auto fast = model::percentilesOfUnsorted(work, ps);
            for (size_t k = 0; k < ps.size(); ++k)
                QVERIFY2(near(fast[k], model::percentileOfSorted(sorted, ps[k])),
                         qPrintable(QString("p%1 of %2 values").arg(ps[k]).arg(values.size())));
        }
        QCOMPARE(model::percentileOfSorted({}, 50), 0.0);
    }

    // Small rows take their percentiles from a sort, larger ones from selection: both
    // must give what interpolating the sorted durations gives, on either side of the cut.
    void percentilesOfRowsOfEverySize()
    {
        std::mt19937 random(5);
        for (int n = 1; n <= 140; ++n) {
            std::ostringstream text;
            std::vector<int64_t> durations;
            int64_t time = 0;
            for (int i = 0; i < n; ++i) {
                const int64_t duration = int64_t(random() % (n % 2 ? 20 : 100000)); // ties, or few
                text << "r 0 " << time << ' ' << time + duration << '\n';
                durations.push_back(duration);
                time += duration + 1;
            }
            auto capture = buildCapture(text.str());
            const auto& s = summarize(*capture)->perRow[0];
            std::sort(durations.begin(), durations.end());
            QCOMPARE(*s.p50, model::percentileOfSorted(durations, 50.0));
            QCOMPARE(*s.p95, model::percentileOfSorted(durations, 95.0));
            QCOMPARE(*s.p99, model::percentileOfSorted(durations, 99.0));
        }
    }

    void pooledAcrossRanks()
    {
        auto capture = buildCapture(R"(
work 0 100 110
work 0 200 230
work 1 50 90
work 1 300 305
)");
        auto summary = summarize(*capture);
        const auto& pooled = summary->pooled(0);
        QCOMPARE(pooled.calls, uint64_t(4));
        QCOMPARE(pooled.total, int64_t(10 + 30 + 40 + 5));
        // first: the rank with the earliest first start (rank 1, 40 ns); last: the rank
        // with the latest end (rank 1, 5 ns).
        QCOMPARE(pooled.first, int64_t(40));
        QCOMPARE(pooled.last, int64_t(5));
        QCOMPARE(*pooled.p50, 20.0); // sorted 5,10,30,40 -> position 1.5
        // imbalance: rank totals 40 and 45 -> 45 / 42.5 - 1
        QVERIFY(near(*pooled.imbalancePercent, (45.0 / 42.5 - 1.0) * 100.0));
        QCOMPARE(summary->perRow[1].first, int64_t(40));
    }

    void unclosedCallsLeftOutOfDurations()
    {
        auto capture = buildCapture(R"(
loop 0 0 10
loop 0 20 40
loop 0 50 0
)");
        auto summary = summarize(*capture);
        const auto& s = summary->perRow[0];
        QCOMPARE(s.calls, uint64_t(3));
        QCOMPARE(s.unclosed, uint64_t(1));
        QCOMPARE(s.total, int64_t(30));
        QCOMPARE(s.mean, 15.0);
        QCOMPARE(s.last, int64_t(20));
        QCOMPARE(s.minimum, int64_t(10));
    }

    void gpuAndAwait()
    {
        auto capture = buildCapture(R"(
kernel 0 0 10 gpu=4 await=1
kernel 0 20 40 gpu=-1 await=0
kernel 0 50 60 gpu=6 await=2
host 0 70 80 gpu=-1
)");
        auto summary = summarize(*capture);
        const auto& kernel = summary->perRow[0];
        QCOMPARE(*kernel.gpuCalls, uint64_t(2));
        QCOMPARE(*kernel.gpuTotal, int64_t(10));
        QCOMPARE(*kernel.gpuMean(), 5.0);
        QCOMPARE(*kernel.awaitTotal, int64_t(3));
        // No value >= 0 in the slice: the row has no GPU data.
        QVERIFY(!summary->perRow[1].gpuCalls);
    }

    void emptyRegionIsAllZero()
    {
        auto capture = buildCapture("a 0 0 10\n");
        model::RegionRow empty;
        empty.region = capture->regionNames.size();
        capture->regionNames.push_back(capture->strings.intern("empty"));
        empty.firstEvent = capture->events.size();
        capture->rows.push_back(empty);
        auto summary = summarize(*capture);
        const auto& s = summary->pooled(1);
        QCOMPARE(s.calls, uint64_t(0));
        QCOMPARE(s.total, int64_t(0));
        QCOMPARE(s.mean, 0.0);
        QCOMPARE(*s.stddev, 0.0);
        QCOMPARE(*s.p99, 0.0);
        // Regions that recorded nothing sort last.
        QCOMPARE(summary->regionOrder.back(), uint32_t(1));
    }

    // A capture with a region per range (PyTorch's emit_nvtx names): the summary shares
    // its rows out in chunks and keeps a single-row region's statistics once. Every row and
    // region must still be what computeRegionStats() makes of it alone.
    void manySmallRegionsMatchTheirOwnStatistics()
    {
        std::mt19937 random(7);
        std::ostringstream text;
        int64_t time = 0;
        for (int region = 0; region < 40000; ++region) {
            const int ranks = region % 97 == 0 ? 3 : 1; // a few regions on several ranks
            for (int rank = 0; rank < ranks; ++rank)
                for (int call = 0, calls = 1 + int(random() % 3); call < calls; ++call) {
                    const int64_t start = time;
                    time += 1 + int64_t(random() % 50);
                    text << "op" << region << ' ' << rank << ' ' << start << ' '
                         << (random() % 23 == 0 ? start - 1 : time) << '\n'; // some never closed
                }
        }
        auto capture = buildCapture(text.str());
        QVERIFY(capture->rows.size() > 40000);
        auto summary = summarize(*capture);
        QCOMPARE(summary->regionCount(), capture->regionNames.size());
        QCOMPARE(summary->perRow.size(), capture->rows.size());
        std::vector<int64_t> scratch;
        for (uint32_t r = 0; r < capture->rows.size(); ++r) {
            const uint32_t one[] = {r};
            model::RegionStats alone = model::computeRegionStats(*capture, one, scratch);
            const auto rows = summary->rowsOfRegion[capture->rows[r].region];
            if (rows.size() == 1)
                alone.imbalancePercent = 0.0; // the row is its region's pool
            QVERIFY2(statsDifference(summary->perRow[r], alone).isEmpty(), qPrintable(QString::number(r)));
        }
        size_t pooledRegions = 0;
        for (uint32_t region = 0; region < summary->regionCount(); ++region) {
            const auto rows = summary->rowsOfRegion[region];
            const model::RegionStats& pooled = summary->pooled(region);
            if (rows.size() == 1) {
                QCOMPARE(&pooled, &summary->perRow[rows.front()]); // kept once
                continue;
            }
            ++pooledRegions;
            model::RegionStats alone = model::computeRegionStats(*capture, rows, scratch);
            QVERIFY(pooled.imbalancePercent.has_value());
            alone.imbalancePercent = pooled.imbalancePercent;
            QVERIFY2(statsDifference(pooled, alone).isEmpty(), qPrintable(QString::number(region)));
            QVERIFY(!summary->perRow[rows.front()].imbalancePercent); // one rank of several
        }
        QCOMPARE(pooledRegions, size_t(40000 / 97 + 1));
    }

    void regionOrderByEarliestStart()
    {
        auto capture = buildCapture(R"(
late 0 500 600
early 1 5 10
middle 0 100 200
)");
        auto summary = summarize(*capture);
        std::vector<std::string> names;
        for (auto region : summary->regionOrder)
            names.push_back(capture->regionName(region));
        QCOMPARE(names, (std::vector<std::string>{"early", "middle", "late"}));
    }

    void perThreadBreakdown()
    {
        auto capture = buildCapture(R"(
outer 0 0 100 thread=0
outer 0 0 50 thread=1
inner 0 10 20 thread=1
)");
        auto summary = summarize(*capture);
        const uint32_t rows[] = {0};
        const auto threads = model::threadBreakdown(*capture, rows);
        QCOMPARE(threads.size(), size_t(2));
        QCOMPARE(threads[0].threadId, int64_t(0));
        QCOMPARE(threads[0].stats.total, int64_t(100));
        QCOMPARE(*threads[0].stats.exclusive, int64_t(100));
        QCOMPARE(threads[1].stats.total, int64_t(50));
        QCOMPARE(*threads[1].stats.exclusive, int64_t(40));
        QCOMPARE(*summary->perRow[0].exclusive, int64_t(140));
    }

    void summaryOnlyFromAggregates()
    {
        auto capture = buildCapture("");
        capture->layout = model::StorageLayout::Aggregate;
        capture->eventDataAvailable = false;
        capture->regionNames.push_back(capture->strings.intern("a"));
        for (int rank = 0; rank < 2; ++rank) {
            model::RegionRow row;
            row.rank = rank;
            row.aggregate = model::AggregateStats{uint64_t(2 + rank), 100 * (rank + 1), 10 + rank, 60, 50};
            capture->rows.push_back(row);
        }
        capture->rowExclusive.assign(2, -1);
        auto summary = summarize(*capture);
        const auto& s = summary->pooled(0);
        QVERIFY(s.summaryOnly);
        QCOMPARE(s.calls, uint64_t(5));
        QCOMPARE(s.total, int64_t(300));
        QCOMPARE(s.minimum, int64_t(10));
        QCOMPARE(s.maximum, int64_t(60));
        QCOMPARE(s.mean, 60.0);
        QCOMPARE(*s.exclusive, int64_t(100));
        QVERIFY(!s.p50 && !s.stddev);
    }

    void storedExclusiveUsedWithoutNesting()
    {
        auto capture = buildCapture("a 0 0 10\n");
        capture->rows[0].storedExclusive = 7;
        std::vector<int64_t> scratch;
        const uint32_t rows[] = {0};
        QCOMPARE(*model::computeRegionStats(*capture, rows, scratch).exclusive, int64_t(7));
    }
};

QTEST_GUILESS_MAIN(TestStatistics)
#include "tst_statistics.moc"
