// Run comparison: matching, changes, tests and verdicts, with golden values.

#include "model/capture_loader.h"
#include "model/compare/distribution_tests.h"
#include "model/compare/run_comparison.h"
#include "model/report/compare_report.h"
#include "model/stats/nesting.h"
#include "support/capture_builder.h"

#include <QtTest>

#include <cmath>
#include <functional>

using namespace spanscope;
using namespace spanscope::testing;
using model::Verdict;

namespace {

struct Run
{
    std::shared_ptr<model::Capture> capture;
    std::shared_ptr<const model::CaptureSummary> summary;
};

// `calls` calls of `region` on rank 0 with durations from `duration(i)`.
std::string calls(const std::string& region, int n, const std::function<int64_t(int)>& duration, int rank = 0)
{
    std::string text;
    int64_t t = 0;
    for (int i = 0; i < n; ++i) {
        text += region + " " + std::to_string(rank) + " " + std::to_string(t) + " " + std::to_string(t + duration(i)) + "\n";
        t += duration(i) + 10;
    }
    return text;
}

Run run(const std::string& text)
{
    Run r;
    r.capture = buildCapture(text);
    model::computeNesting(*r.capture);
    r.summary = model::summarizeCapture(*r.capture);
    return r;
}

// As run(), with allocation columns as a capture recorded with --alloc has them: call i
// (in event order) made allocs(i) allocations of 64 bytes each.
// Calls that allocated allocs(i) blocks of 64 bytes each; with `iterations`, spans of the
// allocation span API that stated iterations(i) iterations.
Run runWithAllocations(const std::string& text, const std::function<int64_t(int)>& allocs,
                       const std::function<int64_t(int)>& iterations = {})
{
    Run r;
    r.capture = buildCapture(text);
    auto& e = r.capture->events;
    e.allocCounts.resize(e.size());
    e.allocBytes.resize(e.size());
    if (iterations)
        e.allocIterations.resize(e.size());
    for (size_t i = 0; i < e.size(); ++i) {
        e.allocCounts.mutableData()[i] = allocs(int(i));
        e.allocBytes.mutableData()[i] = 64 * allocs(int(i));
        if (iterations)
            e.allocIterations.mutableData()[i] = iterations(int(i));
    }
    model::computeNesting(*r.capture);
    r.summary = model::summarizeCapture(*r.capture);
    return r;
}

model::Comparison compare(const Run& a, const Run& b, model::CompareOptions options = {})
{
    return model::compareRuns({{a.capture.get(), a.summary.get(), "a.h5"}, {b.capture.get(), b.summary.get(), "b.h5"}},
                              options);
}

// A spread of durations 1000..1999 ns in a scrambled order.
int64_t body(int i)
{
    return 1000 + (int64_t(i) * 7919) % 1000;
}

double meanOf(int n, const std::function<int64_t(int)>& duration)
{
    double sum = 0;
    for (int i = 0; i < n; ++i)
        sum += double(duration(i));
    return sum / n;
}

} // namespace

class TestCompare : public QObject
{
    Q_OBJECT

private slots:
    // One PyTorch program on an H200, recorded by PyTorch's profiler (a Kineto trace) and,
    // in a second run, by spanscope's collector (tests/data/pytorch-h200/record.py): every
    // kernel, copy and memset of the trace matches a region of the capture by name and
    // kind, and their mean durations agree (the same work on the same GPU; measured within
    // 3.3 %, allowed 10 %).
    void aProfilerTraceAndALiveCaptureOfOneProgramCompareKernelForKernel()
    {
        const std::string dir = SPANSCOPE_TEST_DATA "/pytorch-h200/";
        auto kineto = model::loadCapture(dir + "kineto-h200.json.gz");
        auto live = model::loadCapture(dir + "collector-h200.sps");
        QVERIFY(kineto.ok() && live.ok());
        const model::Comparison c = model::compareRuns(
            {{kineto.value().capture.get(), kineto.value().summary.get(), "kineto"},
             {live.value().capture.get(), live.value().summary.get(), "collector"}},
            {});
        int gpuRegions = 0;
        for (const model::RegionComparison& r : c.regions) {
            const bool gpu = r.kind == model::RegionKind::Kernel || r.kind == model::RegionKind::Memcpy ||
                             r.kind == model::RegionKind::Memset;
            if (!gpu || !r.runs[0])
                continue;
            ++gpuRegions;
            QVERIFY2(r.runs[1].has_value(), r.name.c_str());
            QVERIFY2(r.changes[0].relative && std::abs(*r.changes[0].relative) <= 0.10,
                     qPrintable(QString::fromStdString(r.name) + ": " +
                                QString::number(r.changes[0].relative.value_or(1e9) * 100) + " %"));
        }
        QCOMPARE(gpuRegions, 9); // 6 kernels, a copy each way, memsets
    }

    void identicalRunsShowNoChange()
    {
        const auto text = calls("solve", 500, body) + calls("io", 200, [](int i) { return 50 + i % 7; });
        const auto a = run(text), b = run(text);
        const auto c = compare(a, b);
        QCOMPARE(c.regions.size(), size_t(2));
        for (const auto& region : c.regions) {
            const auto& change = region.changes[0];
            QCOMPARE(change.verdict, Verdict::Noise);
            QCOMPARE(change.absolute, 0.0);
            QCOMPARE(*change.relative, 0.0);
            QCOMPARE(*change.speedup, 1.0);
            QVERIFY(*change.pValue > 0.9);
            QCOMPARE(*change.effect, 0.0);
        }
        QVERIFY(!c.anySignificantSlowdown());
    }

    void pureShiftIsSignificant()
    {
        const auto a = run(calls("solve", 500, body));
        const auto b = run(calls("solve", 500, [](int i) { return body(i) + 300; }));
        const auto c = compare(a, b);
        const auto& change = c.regions[0].changes[0];
        const double mean = meanOf(500, body);
        QCOMPARE(change.baseline, mean);
        QCOMPARE(change.candidate, mean + 300);
        QCOMPARE(change.absolute, 300.0);
        QVERIFY(std::fabs(*change.relative - 300.0 / mean) < 1e-12);
        QVERIFY(std::fabs(*change.speedup - mean / (mean + 300)) < 1e-12);
        QVERIFY(*change.pValue < 1e-20);
        QVERIFY(*change.effect > 0.3);
        QCOMPARE(change.verdict, Verdict::Slower);
        QVERIFY(c.anySignificantSlowdown());
        // The other way round it is faster, and no gate trips.
        const auto back = compare(b, a);
        QCOMPARE(back.regions[0].changes[0].verdict, Verdict::Faster);
        QVERIFY(!back.anySignificantSlowdown());
    }

    void smallSignificantChangeUnderThresholdIsNoise()
    {
        const auto a = run(calls("solve", 2000, body));
        const auto b = run(calls("solve", 2000, [](int i) { return body(i) + 30; })); // +2%
        const auto c = compare(a, b);
        QVERIFY(*c.regions[0].changes[0].pValue < 0.01);
        QCOMPARE(c.regions[0].changes[0].verdict, Verdict::Noise); // under 5%
        model::CompareOptions strict;
        strict.thresholdPercent = 1;
        QCOMPARE(compare(a, b, strict).regions[0].changes[0].verdict, Verdict::Slower);
    }

    void tailOnlyChangeCaughtByP95()
    {
        // The same body; in the candidate every 10th call is 10x longer.
        const auto a = run(calls("solve", 2000, body));
        const auto b = run(calls("solve", 2000, [](int i) { return i % 10 == 0 ? body(i) * 10 : body(i); }));
        model::CompareOptions p95;
        p95.metric = model::CompareMetric::P95;
        const auto c = compare(a, b, p95);
        const auto& change = c.regions[0].changes[0];
        QCOMPARE(change.verdict, Verdict::Slower);
        QVERIFY(*change.effect > 0.04); // ~5% of calls above the old p95 become ~14%
        // The median did not move.
        model::CompareOptions p50;
        p50.metric = model::CompareMetric::P50;
        QCOMPARE(compare(a, b, p50).regions[0].changes[0].verdict, Verdict::Noise);
    }

    void disjointRegionSets()
    {
        const auto a = run(calls("old", 10, body) + calls("both", 10, body));
        const auto b = run(calls("both", 10, body) + calls("new", 10, body));
        const auto c = compare(a, b);
        QStringList lines;
        for (const auto& region : c.regions)
            lines << QString::fromStdString(region.name) + " " + model::verdictName(region.changes[0].verdict);
        QCOMPARE(lines, (QStringList{"old removed", "both noise", "new added"}));
        QVERIFY(!c.regions[0].runs[1].has_value());
        QVERIFY(!c.regions[2].runs[0].has_value());
    }

    void summaryOnlyInputs()
    {
        auto aggregate = [](int64_t count, int64_t total) {
            Run r;
            r.capture = buildCapture("");
            r.capture->layout = model::StorageLayout::Aggregate;
            r.capture->eventDataAvailable = false;
            r.capture->regionNames.push_back(r.capture->strings.intern("solve"));
            model::RegionRow row;
            row.aggregate = model::AggregateStats{uint64_t(count), total, total / count, total / count, total};
            r.capture->rows.push_back(row);
            r.capture->rowExclusive.assign(1, -1);
            r.summary = model::summarizeCapture(*r.capture);
            return r;
        };
        const auto c = compare(aggregate(10, 1000), aggregate(10, 2000));
        const auto& change = c.regions[0].changes[0];
        QCOMPARE(change.baseline, 100.0);
        QCOMPARE(change.candidate, 200.0);
        QCOMPARE(*change.relative, 1.0);
        QVERIFY(!change.pValue);
        QCOMPARE(change.verdict, Verdict::Unknown); // no per-call data: never gates
        QVERIFY(!c.anySignificantSlowdown());
        model::CompareOptions p95;
        p95.metric = model::CompareMetric::P95;
        QCOMPARE(compare(aggregate(10, 1000), aggregate(10, 2000), p95).regions[0].changes[0].verdict, Verdict::Unknown);
    }

    void perRankAndRegionFilter()
    {
        const auto a = run(calls("solve", 300, body, 0) + calls("solve", 300, body, 1) + calls("io", 50, body));
        const auto b = run(calls("solve", 300, body, 0) + calls("solve", 300, [](int i) { return body(i) * 2; }, 1)
                           + calls("io", 50, body));
        model::CompareOptions options;
        options.perRank = true;
        options.region = std::regex("^sol");
        const auto c = compare(a, b, options);
        QCOMPARE(c.regions.size(), size_t(2));
        QCOMPARE(c.regions[0].rank, 0);
        QCOMPARE(c.regions[0].changes[0].verdict, Verdict::Noise);
        QCOMPARE(c.regions[1].rank, 1);
        QCOMPARE(c.regions[1].changes[0].verdict, Verdict::Slower);
    }

    // One call per run, +98 %: no test can tell, which is not the same as noise; the gate
    // ignores it. Four calls each can never be significant (2 / C(8, 4) = 0.029); six
    // completely separated ones are.
    void allocationMetricsGateOnMoreAllocations()
    {
        const auto text = calls("parse", 200, body);
        const auto a = runWithAllocations(text, [](int i) { return 3 + i % 2; });     // 3.5 per call
        const auto b = runWithAllocations(text, [](int i) { return 5 + i % 2; });     // 5.5 per call
        model::CompareOptions options;
        options.metric = model::CompareMetric::Allocs;
        const auto more = compare(a, b, options);
        const auto& change = more.regions[0].changes[0];
        QCOMPARE(change.baseline, 3.5);
        QCOMPARE(change.candidate, 5.5);
        QCOMPARE(change.verdict, Verdict::Slower);
        QCOMPARE(std::string(model::verdictName(change.verdict, options.metric)), std::string("more"));
        QVERIFY(more.anySignificantSlowdown());
        options.metric = model::CompareMetric::Bytes;
        const auto bytes = compare(b, a, options);
        QCOMPARE(bytes.regions[0].changes[0].baseline, 64 * 5.5);
        QCOMPARE(std::string(model::verdictName(bytes.regions[0].changes[0].verdict, options.metric)),
                 std::string("fewer"));
        QVERIFY(!bytes.anySignificantSlowdown());
        // Durations did not change: the time metrics call it noise.
        QCOMPARE(compare(a, b).regions[0].changes[0].verdict, Verdict::Noise);
        // A run recorded without allocations: nothing to compare.
        options.metric = model::CompareMetric::Allocs;
        QCOMPARE(compare(run(text), b, options).regions[0].changes[0].verdict, Verdict::Unknown);

        const std::string json = [&] {
            model::report::JsonWriter writer;
            model::report::comparisonJson(more, writer);
            return writer.text();
        }();
        QVERIFY2(json.find("\"verdict\": \"more\"") != std::string::npos, json.c_str());
        QVERIFY(json.find("\"baseline_allocations\": 3.5") != std::string::npos);
        const std::string text2 = model::report::comparisonText(more);
        QVERIFY2(text2.find("+2.00") != std::string::npos && text2.find("more") != std::string::npos, text2.c_str());
        const std::string csv = model::report::comparisonCsv(more);
        QVERIFY(csv.rfind("region,rank,baseline,candidate,metric,baseline_allocations,", 0) == 0);
    }

    // Spans of the span API compare per iteration: twice the allocations over twice the
    // iterations is no change; more per iteration is "more".
    void operationsComparePerIteration()
    {
        const auto text = calls("fill", 60, body); // (a live capture names it "alloc: fill")
        const auto base = runWithAllocations(text, [](int i) { return 10 + 10 * (i % 3); }, [](int i) { return 10 + 10 * (i % 3); });
        const auto doubled = runWithAllocations(text, [](int i) { return 20 + 20 * (i % 3); }, [](int i) { return 10 + 10 * (i % 3); });
        const auto longer = runWithAllocations(text, [](int i) { return 40 + 40 * (i % 3); }, [](int i) { return 40 + 40 * (i % 3); });
        model::CompareOptions options;
        options.metric = model::CompareMetric::Allocs;
        const auto same = compare(base, longer, options).regions[0].changes[0];
        QCOMPARE(same.baseline, 1.0);
        QCOMPARE(same.candidate, 1.0);
        QCOMPARE(same.verdict, Verdict::Noise);
        const auto more = compare(base, doubled, options).regions[0].changes[0];
        QCOMPARE(more.candidate, 2.0);
        QCOMPARE(more.verdict, Verdict::Slower);
        // iterations(0) everywhere: no per-iteration figure at all.
        const auto none = runWithAllocations(text, [](int) { return 5; }, [](int) { return 0; });
        QCOMPARE(compare(none, base, options).regions[0].changes[0].verdict, Verdict::Unknown);
    }

    void tooFewCallsAreInsufficientNotNoise()
    {
        const auto one = compare(run(calls("main", 1, [](int) { return 1000; })),
                                 run(calls("main", 1, [](int) { return 1980; })));
        const auto& change = one.regions[0].changes[0];
        QCOMPARE(change.verdict, Verdict::Insufficient);
        QCOMPARE(QString(model::verdictName(change.verdict)), QString("insufficient"));
        QVERIFY(*change.relative > 0.97);
        QVERIFY(!one.anySignificantSlowdown());

        const auto slow = [](int i) { return 2000 + i; };
        const auto fast = [](int i) { return 1000 + i; };
        QCOMPARE(compare(run(calls("s", 4, fast)), run(calls("s", 4, slow))).regions[0].changes[0].verdict,
                 Verdict::Insufficient);
        QCOMPARE(compare(run(calls("s", 6, fast)), run(calls("s", 6, slow))).regions[0].changes[0].verdict,
                 Verdict::Slower);
        QCOMPARE(model::smallestAttainablePValue(1, 1), 1.0);
        QVERIFY(std::abs(model::smallestAttainablePValue(4, 4) - 2.0 / 70) < 1e-12);
        QVERIFY(std::abs(model::smallestAttainablePValue(5, 5) - 2.0 / 252) < 1e-12);
        QCOMPARE(model::smallestAttainablePValue(0, 3), 1.0);
    }

    void mannWhitneyGolden()
    {
        // Baseline 1,2,3; candidate 4,5,6: U = 9 (every pair), delta = 1.
        const auto all = model::mannWhitney({1, 2, 3}, {4, 5, 6});
        QCOMPARE(all.effect, 1.0);
        // Ties count half: U = 4.5 of 9 -> delta 0, p = 1.
        const auto tied = model::mannWhitney({5, 5, 5}, {5, 5, 5});
        QCOMPARE(tied.effect, 0.0);
        QCOMPARE(tied.pValue, 1.0);
        // Thinning keeps the test cheap and its answer.
        std::vector<int64_t> big(1'000'000), shifted(1'000'000);
        for (int i = 0; i < 1'000'000; ++i) {
            big[size_t(i)] = body(i);
            shifted[size_t(i)] = body(i) + 100;
        }
        const auto thinned = model::mannWhitney(big, shifted, 10'000);
        QCOMPARE(thinned.baselineN, uint64_t(10'000));
        QVERIFY(thinned.pValue < 1e-10);
    }

    void reportsCarryEveryField()
    {
        const auto a = run(calls("solve", 100, body));
        const auto b = run(calls("solve", 100, [](int i) { return body(i) * 2; }));
        const auto c = compare(a, b);
        model::report::JsonWriter json;
        model::report::comparisonJson(c, json);
        const QString text = QString::fromStdString(json.text());
        for (const char* key : {"\"baseline\": \"a.h5\"", "\"candidates\"", "\"metric\": \"mean\"", "\"threshold_pct\": 5",
                                "\"any_significant_slowdown\": true", "\"verdict\": \"slower\"", "\"p_value\"",
                                "\"effect\"", "\"speedup\"", "\"relative\": 1"})
            QVERIFY2(text.contains(key), key);
        const auto csv = model::report::comparisonCsv(c);
        QVERIFY(csv.rfind("region,rank,baseline,candidate,metric,", 0) == 0);
        const double mean = meanOf(100, body);
        const std::string expected = "solve,,a.h5,b.h5,mean," + QString::number(mean).toStdString() + ","
                                     + QString::number(2 * mean).toStdString() + ","
                                     + QString::number(mean).toStdString() + ",1,0.5,";
        QVERIFY2(csv.find(expected) != std::string::npos, csv.c_str());
        const auto table = model::report::comparisonText(c);
        QVERIFY(table.find("+100.0%") != std::string::npos);
        QVERIFY(table.find("slower") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCompare)
#include "tst_compare.moc"
