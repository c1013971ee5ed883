// The data behind the plots, without widgets: geometric histogram bins, the exact CDF,
// the duration markers, and the per-region GPU totals and GPU-vs-wall points with their
// thinning. The plots themselves: tst_plots.cpp.
#include "support/capture_builder.h"
#include "support/plot_fixtures.h"
#include "views/plots/gpu_wall_data.h"
#include "views/plots/histogram_bins.h"

#include <QtTest>
#include <algorithm>
#include <cmath>

using namespace spanscope;
using namespace spanscope::testing;
using views::CdfPoint;

class TestPlotData : public QObject
{
    Q_OBJECT

private slots:
    void binsAreGeometric();
    void binsOfOneValueAndZeros();
    void cdfIsExactAndMonotone();
    void describeDurationsMarkers();
    void gpuTotalsAndThinning();
};

void TestPlotData::binsAreGeometric()
{
    const std::vector<int64_t> durations{1, 10, 100, 1000, 999, 11};
    const auto bins = views::logHistogram(durations, 3);
    QCOMPARE(bins.edges, (std::vector<double>{1, 10, 100, 1000}));
    // [1,10) [10,100) [100,1000]: an edge value belongs to the bin it opens; the largest
    // call closes the last bin.
    QCOMPARE(bins.counts, (std::vector<uint64_t>{1, 2, 3}));
    QCOMPARE(bins.total, uint64_t(6));
    QCOMPARE(bins.belowLowest, uint64_t(0));

    std::vector<int64_t> many;
    for (int64_t v = 3; v < 5'000'000'000; v = v * 101 / 100 + 1)
        many.push_back(v);
    for (int copy = 0; copy < 2; ++copy) // enough calls for every bin
        many.insert(many.end(), many.begin(), many.end());
    const auto wide = views::logHistogram(many);
    QCOMPARE(wide.counts.size(), size_t(views::kDefaultBinCount));
    QCOMPARE(wide.edges.front(), 3.0);
    QCOMPARE(wide.edges.back(), double(many.back()));
    const double ratio = wide.edges[1] / wide.edges[0];
    for (size_t i = 1; i + 1 < wide.edges.size(); ++i)
        QVERIFY(std::abs(wide.edges[i + 1] / wide.edges[i] - ratio) < 1e-6);
    // Each call is in the bin its edges say, and every call is in one.
    std::vector<uint64_t> expected(wide.counts.size(), 0);
    for (const int64_t v : many) {
        size_t bin = 0;
        while (bin + 1 < expected.size() && double(v) >= wide.edges[bin + 1])
            ++bin;
        ++expected[bin];
    }
    QCOMPARE(wide.counts, expected);
    QCOMPARE(wide.total, uint64_t(many.size()));
    QVERIFY(views::logHistogram({}).counts.empty());
    // Few calls, few bins: 4 x cube root of the count, at least 5.
    QCOMPARE(views::logHistogram(std::vector<int64_t>{10, 20}).counts.size(), size_t(6));
    QCOMPARE(views::logHistogram(std::vector<int64_t>(1000, 7)).counts.size(), size_t(1));
    std::vector<int64_t> calls(999);
    for (size_t i = 0; i < calls.size(); ++i)
        calls[i] = int64_t(i + 1);
    QCOMPARE(views::logHistogram(calls).counts.size(), size_t(40)); // 4 x 9.997, rounded up
}

void TestPlotData::binsOfOneValueAndZeros()
{
    const auto same = views::logHistogram(std::vector<int64_t>{500, 500, 500});
    QCOMPARE(same.counts, (std::vector<uint64_t>{3}));
    QCOMPARE(same.edges, (std::vector<double>{400, 625}));

    const auto zeros = views::logHistogram(std::vector<int64_t>{0, 0});
    QCOMPARE(zeros.counts, (std::vector<uint64_t>{2}));
    QCOMPARE(zeros.belowLowest, uint64_t(2));
    QVERIFY(zeros.edges[0] > 0 && zeros.edges[0] < 1 && zeros.edges[1] > 1);

    // Zeros go to the first bin of the positive range; the range starts at the smallest
    // positive call, not at some made-up 1 ns.
    const auto mixed = views::logHistogram(std::vector<int64_t>{0, 10, 1000}, 2);
    QCOMPARE(mixed.edges, (std::vector<double>{10, 100, 1000}));
    QCOMPARE(mixed.counts, (std::vector<uint64_t>{2, 1}));
    QCOMPARE(mixed.belowLowest, uint64_t(1));
    QCOMPARE(mixed.total, uint64_t(3));
}

void TestPlotData::cdfIsExactAndMonotone()
{
    const std::vector<int64_t> sorted{1, 1, 2, 3, 3, 3, 10};
    auto pairs = [](const std::vector<CdfPoint>& points) {
        std::vector<std::pair<double, double>> out;
        for (const CdfPoint& p : points)
            out.emplace_back(p.ns, p.fraction * 7);
        return out;
    };
    QCOMPARE(pairs(views::cumulativeDistribution(sorted, 100)),
             (std::vector<std::pair<double, double>>{{1, 2}, {2, 3}, {3, 6}, {10, 7}}));
    // Thinned to 2 steps (plus the smallest value): still exact where it has points.
    QCOMPARE(pairs(views::cumulativeDistribution(sorted, 2)),
             (std::vector<std::pair<double, double>>{{1, 2}, {3, 6}, {10, 7}}));

    std::vector<int64_t> many(100'000);
    for (size_t i = 0; i < many.size(); ++i)
        many[i] = int64_t((i * 7919) % 5003); // many repeats
    std::sort(many.begin(), many.end());
    const auto cdf = views::cumulativeDistribution(many, 500);
    QVERIFY(cdf.size() <= 501);
    QCOMPARE(cdf.back().fraction, 1.0);
    QCOMPARE(cdf.back().ns, double(many.back()));
    for (size_t i = 1; i < cdf.size(); ++i) {
        QVERIFY(cdf[i].ns > cdf[i - 1].ns);
        QVERIFY(cdf[i].fraction >= cdf[i - 1].fraction);
    }
    QVERIFY(views::cumulativeDistribution({}).empty());
}

void TestPlotData::describeDurationsMarkers()
{
    std::vector<int64_t> values;
    for (int64_t v = 100; v >= 1; --v)
        values.push_back(v);
    const auto d = views::describeDurations(values);
    QCOMPARE(d.calls, uint64_t(100));
    QCOMPARE(d.minimum, int64_t(1));
    QCOMPARE(d.maximum, int64_t(100));
    QCOMPARE(d.mean, 50.5);
    QCOMPARE(d.p50, 50.5); // numpy: linear between order statistics
    QVERIFY(std::abs(d.p95 - 95.05) < 1e-9);
    QVERIFY(std::abs(d.p99 - 99.01) < 1e-9);
    QCOMPARE(d.bins.total, uint64_t(100));
    QCOMPARE(d.cdf.back().fraction, 1.0);
}

void TestPlotData::gpuTotalsAndThinning()
{
    const Snapshot s = summarize(buildCapture(kSmallGpuRun));
    const auto totals = views::regionGpuTotals(*s.capture, *s.summary, std::nullopt);
    QCOMPARE(totals.size(), size_t(1)); // "host" recorded no GPU time
    QCOMPARE(s.capture->regionName(totals[0].region), std::string("kernel"));
    QCOMPARE(totals[0].calls, uint64_t(5));
    QCOMPARE(totals[0].wallNs, int64_t(100 + 200 + 400 + 1000));
    QCOMPARE(totals[0].gpuCalls, uint64_t(4)); // as the table: closed calls only
    QCOMPARE(totals[0].gpuNs, int64_t(90 + 50 + 400 + 0));
    const auto rank0 = views::regionGpuTotals(*s.capture, *s.summary, 0);
    QCOMPARE(rank0[0].wallNs, int64_t(700));
    QCOMPARE(rank0[0].ratio(), 540.0 / 700.0);

    const auto rows = rowsOf(*s.capture, "kernel");
    const auto all = views::gpuWallPoints(*s.capture, rows, 0);
    QCOMPARE(all.calls, uint64_t(4)); // the unclosed call is left out
    QCOMPARE(all.points.size(), size_t(4));
    QCOMPARE(all.lowest, int64_t(50));
    QCOMPARE(all.highest, int64_t(1000));
    QCOMPARE(all.points[3].event, uint32_t(5)); // rank 1's closed kernel call
    QCOMPARE(all.points[3].gpuNs, int64_t(0));

    // Thinning keeps one call per grid cell: 20 000 identical calls become one point.
    std::string text;
    for (int i = 0; i < 20'000; ++i)
        text += "k 0 " + std::to_string(i * 10) + ' ' + std::to_string(i * 10 + 5) + " gpu=4\n";
    text += "k 0 300000 301000 gpu=900\n"; // an outlier survives
    const Snapshot big = summarize(buildCapture(text));
    const auto thin = views::gpuWallPoints(*big.capture, std::vector<uint32_t>{0});
    QCOMPARE(thin.calls, uint64_t(20'001));
    QCOMPARE(thin.points.size(), size_t(2));
    QCOMPARE(thin.points[1].event, uint32_t(20'000));
}

QTEST_GUILESS_MAIN(TestPlotData)
#include "tst_plot_data.moc"
