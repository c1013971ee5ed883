// A live row's statistics from its kept durations (stats/duration_runs.h,
// stats/row_durations.h) against the same statistics computed from every call.
#include "model/stats/capture_summary.h"
#include "model/stats/duration_runs.h"
#include "model/stats/nesting.h"
#include "model/stats/percentile.h"
#include "model/stats/row_durations.h"
#include "support/capture_builder.h"
#include "support/same_stats.h"

#include <QTest>
#include <algorithm>
#include <random>
#include <sstream>

using namespace spanscope;
using namespace spanscope::model;

namespace {

std::vector<std::span<const int64_t>> viewsOf(const DurationRuns& runs)
{
    std::vector<std::span<const int64_t>> views;
    runs.viewsInto(views);
    return views;
}

} // namespace

class TestDurationRuns : public QObject
{
    Q_OBJECT

private slots:
    // Values added a batch at a time (empty batches, ties, the extremes of int64 among
    // them): every order statistic and percentile is that of all the values sorted, each
    // run holds more than twice the next, and a set made from another leaves it as it was.
    void percentilesOfRunsAreThoseOfAllValuesSorted()
    {
        std::mt19937_64 random(7);
        for (int round = 0; round < 20; ++round) {
            DurationRuns runs;
            std::vector<int64_t> all;
            for (int batch = 0; batch < 60; ++batch) {
                std::vector<int64_t> added(random() % (round % 2 ? 400 : 40));
                for (int64_t& v : added) {
                    switch (random() % 8) {
                    case 0: v = INT64_MAX; break;
                    case 1: v = round % 3 == 0 ? INT64_MIN : 0; break;
                    case 2: v = int64_t(random() % 5); break; // ties
                    default: // below 2^63, so that taking INT64_MAX / 2 cannot overflow
                        v = int64_t(random() >> (1 + random() % 60)) - (round % 3 == 0 ? INT64_MAX / 2 : 0);
                    }
                }
                const DurationRuns before = runs;
                const auto beforeViews = viewsOf(before);
                runs = runs.with(added);
                all.insert(all.end(), added.begin(), added.end());
                // The set it was made from still holds what it held.
                QCOMPARE(viewsOf(before).size(), beforeViews.size());
                QCOMPARE(before.size(), uint64_t(all.size() - added.size()));
                QCOMPARE(runs.size(), uint64_t(all.size()));
                for (size_t k = 1; k < runs.runs().size(); ++k)
                    QVERIFY(runs.runs()[k - 1]->size() > 2 * runs.runs()[k]->size());
            }
            std::sort(all.begin(), all.end());
            const auto views = viewsOf(runs);
            for (const auto& run : views)
                QVERIFY(std::is_sorted(run.begin(), run.end()));
            for (int probe = 0; probe < 50 && !all.empty(); ++probe) {
                const uint64_t k = probe < 2 ? (probe == 0 ? 0 : all.size() - 1) : random() % all.size();
                QCOMPARE(orderStatistic(views, k), all[k]);
            }
            for (const double p : {0.0, 1.0, 25.0, 50.0, 95.0, 99.0, 99.9, 100.0})
                QCOMPARE(percentileOfRuns(views, p), percentileOfSorted(all, p));
        }
        QCOMPARE(percentileOfRuns({}, 50.0), 0.0);
    }

    // Each row's calls split at random into committed batches and a pending rest, as a
    // live snapshot keeps them: every statistic of every row and region (pooled over two
    // ranks) equals the one computed from the calls, GPU and suspended time included.
    void rowDurationsGiveTheStatisticsOfTheirCalls()
    {
        std::mt19937 random(11);
        for (int round = 0; round < 30; ++round) {
            std::string text;
            for (int call = 0; call < 200; ++call) {
                const int64_t start = random() % 100000;
                // Some never closed (end before start), some of zero length.
                const int64_t end = random() % 10 == 0 ? start - 1 - int64_t(random() % 50)
                                                       : start + int64_t(random() % (random() % 4 == 0 ? 5 : 9000));
                std::ostringstream line;
                line << 'r' << random() % 3 << ' ' << random() % 2 << ' ' << start << ' ' << end
                     << " gpu=" << int64_t(random() % 7) - 2 << " await=" << random() % 4 << '\n';
                text += line.str();
            }
            auto capture = testing::buildCapture(text);
            computeNesting(*capture);
            const auto whole = summarizeCapture(*capture);

            auto kept = std::make_shared<Capture>(*capture);
            for (const RegionRow& row : kept->rows) {
                auto committed = std::make_shared<const CommittedCalls>();
                std::vector<std::pair<int64_t, int64_t>> batch, rest;
                for (uint64_t i = row.firstEvent; i < row.firstEvent + row.count; ++i) {
                    const std::pair<int64_t, int64_t> call{kept->events.start[i], kept->events.end[i]};
                    (random() % 4 == 0 ? rest : batch).push_back(call);
                    if (random() % 16 == 0) {
                        committed = committed->with(batch);
                        batch.clear();
                    }
                }
                kept->rowDurations.push_back(RowDurations::of(committed->with(batch), rest));
            }
            const auto fromDurations = summarizeCapture(*kept);
            const QString difference = testing::summaryDifference(*fromDurations, *whole);
            QVERIFY2(difference.isEmpty(), qPrintable(difference));
        }
    }

    // Durations that do not cover every row are not used: the statistics read the calls.
    void rowsWithoutDurationsAreReadFromTheirCalls()
    {
        auto capture = testing::buildCapture("a 0 0 10\na 0 20 50\nb 0 5 6\n");
        const auto whole = summarizeCapture(*capture);
        // Deliberately wrong durations for row 0: used only where every row has some.
        auto wrong = CommittedCalls().with({{0, 1000}});
        capture->rowDurations = {RowDurations::of(wrong, {}), nullptr};
        const auto partly = summarizeCapture(*capture);
        QCOMPARE(partly->perRow[0].maximum, int64_t(1000)); // row 0 from its durations
        QCOMPARE(partly->perRow[1].maximum, whole->perRow[1].maximum);
        capture->rowDurations.resize(1);
        QCOMPARE(summarizeCapture(*capture)->perRow[0].maximum, int64_t(30)); // not one per row: unused
    }
};

QTEST_GUILESS_MAIN(TestDurationRuns)
#include "tst_duration_runs.moc"
