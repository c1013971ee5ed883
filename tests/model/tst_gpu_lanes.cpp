// The GPU's derived lanes made as the work comes (model/gpu/gpu_lanes.h) and the counter
// series they grow (model/tables/counter_series.h): exact samples for ties, touching and
// zero-length work and relaunches; and, on random work fed in random batches out of order,
// a builder updated after every batch holds what one fed everything at once holds, while
// the series of earlier updates stay as they were.

#include "model/capture.h"
#include "model/gpu/gpu_lanes.h"
#include "support/counter_checks.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <random>
#include <vector>

using namespace spanscope;
using model::CounterSeries;
using model::GpuLaneBuilder;

namespace {

// (time, value) of every sample.
std::vector<std::pair<int64_t, double>> samples(const CounterSeries& series)
{
    std::vector<std::pair<int64_t, double>> out;
    for (size_t i = 0; i < series.size(); ++i)
        out.emplace_back(series.time(i), series.value(i));
    return out;
}

model::Capture lanesOf(const GpuLaneBuilder& builder)
{
    model::Capture capture;
    builder.addTo(capture);
    return capture;
}

struct Work
{
    int32_t device;
    int64_t stream, start, end, launch;
};

// The lanes by their definitions, written apart from the builder (which files and live
// streams share): per device the union of its non-empty work as (start, 1), (end, 0); per
// stream of launched work the depth after every change at each time, starts leaving before
// launches join. In the builder's order: per device its utilization, then its queues.
std::vector<std::pair<std::string, std::vector<std::pair<int64_t, double>>>> referenceLanes(const std::vector<Work>& work)
{
    std::map<int32_t, std::vector<std::pair<int64_t, int64_t>>> busy;
    std::map<int32_t, std::map<int64_t, std::vector<std::pair<int64_t, int>>>> changes; // (time, 0 start / 1 launch)
    for (const Work& w : work) {
        auto& intervals = busy[w.device];
        if (w.end > w.start)
            intervals.emplace_back(w.start, w.end);
        if (w.stream >= 0 && w.launch != GpuLaneBuilder::kNoLaunch) {
            changes[w.device][w.stream].emplace_back(w.start, 0);
            changes[w.device][w.stream].emplace_back(w.launch, 1);
        }
    }
    std::vector<std::pair<std::string, std::vector<std::pair<int64_t, double>>>> lanes;
    for (auto& [device, intervals] : busy) {
        std::sort(intervals.begin(), intervals.end());
        std::vector<std::pair<int64_t, int64_t>> merged;
        for (const auto& i : intervals) {
            if (!merged.empty() && i.first <= merged.back().second)
                merged.back().second = std::max(merged.back().second, i.second);
            else
                merged.push_back(i);
        }
        std::vector<std::pair<int64_t, double>> samples;
        for (const auto& [start, end] : merged) {
            samples.emplace_back(start, 1.0);
            samples.emplace_back(end, 0.0);
        }
        lanes.emplace_back("GPU utilization", samples);
        for (auto& [stream, events] : changes[device]) {
            std::sort(events.begin(), events.end());
            std::vector<std::pair<int64_t, double>> queue;
            int64_t depth = 0;
            for (size_t i = 0; i < events.size(); ++i) {
                depth += events[i].second == 0 ? -1 : 1;
                if (i + 1 == events.size() || events[i + 1].first != events[i].first)
                    queue.emplace_back(events[i].first, double(std::max<int64_t>(0, depth)));
            }
            lanes.emplace_back("stream " + std::to_string(stream) + " queue", queue);
        }
    }
    return lanes;
}

} // namespace

class TestGpuLanes : public QObject
{
    Q_OBJECT

private slots:
    // Touching work is one busy interval, zero-length work none; at equal times a start
    // leaves the queue before a launch joins it; a relaunch moves the launch's +1.
    void samplesAreExact()
    {
        GpuLaneBuilder lanes;
        lanes.addActivity(0, 0, 7, 100, 200, 10);
        lanes.addActivity(0, 0, 7, 200, 250, 100); // touches the first; launched as it starts
        lanes.addActivity(0, 0, 7, 300, 300, 150); // zero-length: busy for no time, but queued
        lanes.addActivity(0, 0, -1, 400, 450, 20); // no stream: busy, in no queue
        lanes.update();
        model::Capture c = lanesOf(lanes);
        QCOMPARE(c.counters.size(), size_t(2));
        QCOMPARE(std::string(c.strings.text(c.tracks[c.counters[0].track.value].name)), std::string("GPU utilization"));
        QCOMPARE(std::string(c.strings.text(c.tracks[c.counters[1].track.value].name)), std::string("stream 7 queue"));
        using S = std::vector<std::pair<int64_t, double>>;
        QCOMPARE(samples(c.counters[0]), (S{{100, 1}, {250, 0}, {400, 1}, {450, 0}}));
        // +1 at 10, at 100 the first starts (−1) before the second's launch joins (+1), +1 at
        // 150, −1 at 200 and at 300.
        QCOMPARE(samples(c.counters[1]), (S{{10, 1}, {100, 1}, {150, 2}, {200, 1}, {300, 0}}));
        QCOMPARE(c.counters[0].meanOver(100, 300), 0.75);

        // The second's launch was a driver call; its runtime call started earlier, at 50.
        lanes.relaunch(0, 0, 7, 200, 100, 50);
        lanes.update();
        const model::Capture after = lanesOf(lanes);
        QCOMPARE(samples(after.counters[1]), (S{{10, 1}, {50, 2}, {100, 1}, {150, 2}, {200, 1}, {300, 0}}));
        QCOMPARE(samples(c.counters[1]), (S{{10, 1}, {100, 1}, {150, 2}, {200, 1}, {300, 0}})); // as it was
        // Work without a launch until now gets one; work left with none leaves its queue.
        lanes.relaunch(0, 0, 7, 300, 150, GpuLaneBuilder::kNoLaunch);
        lanes.update();
        QCOMPARE(samples(lanesOf(lanes).counters[1]), (S{{10, 1}, {50, 2}, {100, 1}, {200, 0}}));
    }

    // Times at the ends of int64 (a damaged source's) give figures, not undefined
    // arithmetic (UndefinedBehaviorSanitizer checks the suite): the lanes stay exact, the
    // means over spans wider than int64 saturate.
    void timesAtTheEndsOfInt64AreHeld()
    {
        GpuLaneBuilder lanes;
        lanes.addActivity(0, 0, 1, INT64_MIN, INT64_MAX, INT64_MIN);
        lanes.addActivity(0, 0, 1, 0, 10, INT64_MAX);
        lanes.addActivity(0, 0, 1, INT64_MAX, INT64_MAX, 5);
        lanes.update();
        const model::Capture c = lanesOf(lanes);
        QCOMPARE(c.counters.size(), size_t(2));
        const CounterSeries& busy = c.counters[0];
        QCOMPARE(samples(busy), (std::vector<std::pair<int64_t, double>>{{INT64_MIN, 1.0}, {INT64_MAX, 0.0}}));
        const double mean = busy.meanOver(INT64_MIN, INT64_MAX);
        QVERIFY(mean > 0.99 && mean <= 1.0);
        // Inside it the integral from the first sample saturates: a figure in [0, 1], not exact.
        const double inside = busy.meanOver(-100, 100);
        QVERIFY(inside >= 0.0 && inside <= 1.0);
        // A launch at INT64_MIN is kNoLaunch: that work is in no queue. At INT64_MAX the start
        // leaves before the launch joins; the work launched last started at 0.
        QCOMPARE(samples(c.counters[1]), (std::vector<std::pair<int64_t, double>>{{0, 0.0}, {5, 0.0}, {INT64_MAX, 0.0}}));
    }

    // A series cut back and grown holds what one finished whole holds, its level of detail
    // and integral included; a copy made before keeps its samples.
    void aSeriesGrownInPlaceEqualsOneFinishedWhole()
    {
        std::mt19937 random(11);
        for (const auto level : {CounterSeries::Level::Maximum, CounterSeries::Level::Mean}) {
            CounterSeries grown;
            grown.level = level;
            std::vector<std::pair<int64_t, double>> want;
            int64_t t = 0;
            for (int round = 0; round < 26; ++round) {
                const CounterSeries before = grown;
                const auto beforeSamples = want;
                // Cut back a little (or, now and then, to the start), then add, sometimes
                // out of order (the whole series is then ordered again).
                const size_t keep = round % 13 == 12 ? 0 : want.size() - std::min<size_t>(want.size(), random() % 300);
                grown.truncate(keep);
                want.resize(keep);
                t = want.empty() ? 0 : want.back().first;
                const int added = int(random() % 12000); // ~150,000 samples by the end: many chunks
                for (int i = 0; i < added; ++i) {
                    t += int64_t(random() % 3); // equal times too
                    const int64_t at = round % 7 == 3 && i == added / 2 ? t / 2 : t;
                    const double value = double(random() % 100);
                    grown.add(at, value);
                    want.emplace_back(at, value);
                }
                grown.finish();
                std::stable_sort(want.begin(), want.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
                CounterSeries whole;
                whole.level = level;
                for (const auto& [time, value] : want)
                    whole.add(time, value);
                whole.finish();
                model::Capture a, b;
                a.counters.push_back(grown);
                b.counters.push_back(whole);
                testing::checkSameCounters(a, b);
                QCOMPARE(samples(before), beforeSamples);
                if (QTest::currentTestFailed())
                    return;
                for (int probe = 0; probe < 20 && grown.size() > 1; ++probe) {
                    const int64_t t0 = int64_t(random() % uint64_t(t + 1)), t1 = t0 + 1 + int64_t(random() % 5000);
                    const double x = grown.levelOver(t0, t1), y = whole.levelOver(t0, t1);
                    QVERIFY((std::isnan(x) && std::isnan(y)) || x == y);
                    const size_t i = random() % grown.size(), j = std::min(grown.size(), i + 1 + random() % 4000);
                    QCOMPARE(grown.maxIn(i, j), whole.maxIn(i, j));
                    QCOMPARE(grown.minIn(i, j), whole.minIn(i, j));
                }
            }
        }
    }

    // Random work on two devices and four streams (some with no stream), fed in random
    // batches in no order, with launches that come late or change: the lanes after every
    // update are those of a builder given the work as it then is, at once.
    void lanesMadeAsWorkComesEqualLanesMadeWhole()
    {
        for (const unsigned seed : {1u, 2u, 3u, 4u}) {
            std::mt19937 random(seed);
            std::vector<Work> work;
            for (int i = 0; i < 4000; ++i) {
                const int64_t start = int64_t(random() % 20000);
                const int64_t end = start + int64_t(random() % 4 == 0 ? 0 : random() % 60); // zero-length too
                const int64_t launch = random() % 5 == 0 ? GpuLaneBuilder::kNoLaunch : start - int64_t(random() % 300) + 20;
                work.push_back({int32_t(random() % 2), int64_t(random() % 5) - 1, start, end, launch});
            }
            GpuLaneBuilder grown;
            std::vector<Work> given;
            std::vector<model::Capture> earlier; // what earlier updates showed, and copies of it
            std::vector<model::Capture> earlierCopies;
            size_t next = 0;
            while (next < work.size()) {
                const size_t batch = std::min(work.size() - next, size_t(1 + random() % 600));
                for (size_t k = 0; k < batch; ++k, ++next) {
                    const Work& w = work[next];
                    grown.addActivity(0, w.device, w.stream, w.start, w.end, w.launch);
                    given.push_back(w);
                }
                // Some launches given before change: found late, or replaced by a better call.
                for (int k = 0; k < 20 && !given.empty(); ++k) {
                    Work& w = given[random() % given.size()];
                    const int64_t after = random() % 4 == 0 ? GpuLaneBuilder::kNoLaunch : w.start - int64_t(random() % 200);
                    grown.relaunch(0, w.device, w.stream, w.start, w.launch, after);
                    w.launch = after;
                }
                grown.update();
                GpuLaneBuilder whole;
                std::vector<Work> shuffled = given;
                std::shuffle(shuffled.begin(), shuffled.end(), random);
                for (const Work& w : shuffled)
                    whole.addActivity(0, w.device, w.stream, w.start, w.end, w.launch);
                whole.update();
                const model::Capture shown = lanesOf(grown);
                testing::checkSameCounters(shown, lanesOf(whole));
                const auto reference = referenceLanes(given);
                QCOMPARE(shown.counters.size(), reference.size());
                for (size_t i = 0; i < reference.size(); ++i) {
                    QCOMPARE(std::string(shown.strings.text(shown.tracks[shown.counters[i].track.value].name)),
                             reference[i].first);
                    QVERIFY2(samples(shown.counters[i]) == reference[i].second, reference[i].first.c_str());
                }
                if (QTest::currentTestFailed())
                    return;
                earlier.push_back(shown);
                model::Capture copy;
                for (const CounterSeries& series : shown.counters) { // sample by sample: owns its values
                    CounterSeries owned;
                    owned.track = series.track;
                    owned.unit = series.unit;
                    owned.level = series.level;
                    owned.derived = series.derived;
                    for (size_t i = 0; i < series.size(); ++i)
                        owned.add(series.time(i), series.value(i));
                    owned.finish();
                    copy.counters.push_back(owned);
                }
                copy.tracks = shown.tracks;
                copy.strings = shown.strings;
                earlierCopies.push_back(std::move(copy));
            }
            QVERIFY(earlier.size() > 5);
            for (size_t i = 0; i < earlier.size(); ++i)
                testing::checkSameCounters(earlier[i], earlierCopies[i]);
        }
    }
};

QTEST_GUILESS_MAIN(TestGpuLanes)
#include "tst_gpu_lanes.moc"
