#pragma once
// Whether two captures hold the same counters: in the same order, on tracks of the same
// title, with the same unit, kind and samples. For the GPU's derived lanes, which a live
// stream makes as its work comes and a file makes whole (model/gpu/gpu_lanes.h).

#include "model/capture.h"
#include "model/gpu/gpu_counters.h"
#include "model/track.h"

#include <QTest>
#include <bit>
#include <cstdint>
#include <vector>

namespace spanscope::testing {

inline void checkSameCounters(const model::Capture& got, const model::Capture& want)
{
    QCOMPARE(got.counters.size(), want.counters.size());
    for (size_t i = 0; i < got.counters.size(); ++i) {
        const model::CounterSeries& a = got.counters[i];
        const model::CounterSeries& b = want.counters[i];
        QCOMPARE(QString::fromStdString(model::trackTitle(got, a.track)), QString::fromStdString(model::trackTitle(want, b.track)));
        QCOMPARE(got.strings.text(a.unit), want.strings.text(b.unit));
        QCOMPARE(a.derived, b.derived);
        QVERIFY(a.level == b.level);
        QCOMPARE(a.size(), b.size());
        // Values to the bit (QCOMPARE of doubles is fuzzy): the series are the same, not close.
        auto same = [](double x, double y) { return std::bit_cast<uint64_t>(x) == std::bit_cast<uint64_t>(y); };
        for (size_t s = 0; s < a.size(); ++s) {
            if (a.time(s) != b.time(s) || !same(a.value(s), b.value(s))) // the message only then: millions of samples
                QFAIL(qPrintable(QString("counter %1, sample %2: (%3, %4) vs (%5, %6)")
                                     .arg(i).arg(s).arg(a.time(s)).arg(a.value(s)).arg(b.time(s)).arg(b.value(s))));
        }
        QVERIFY(same(a.maximum(), b.maximum()));
        QVERIFY(same(a.minimum(), b.minimum()));
        if (a.size() > 1) { // the drawn levels over the whole series and a part of it
            const int64_t t0 = a.time(0), t1 = a.time(a.size() - 1);
            QVERIFY(same(a.levelOver(t0, t1 + 1), b.levelOver(t0, t1 + 1)));
            QVERIFY(same(a.levelOver(t0 + (t1 - t0) / 3, t1 + 1), b.levelOver(t0 + (t1 - t0) / 3, t1 + 1)));
        }
    }
}

// A live snapshot's derived lanes, made as its work came, are those the whole walk over the
// snapshot makes (as it does for a file). Returns how many derived lanes it has.
inline size_t checkLanesAsMadeWhole(const model::Capture& snapshot)
{
    model::Capture whole = snapshot;
    std::erase_if(whole.counters, [](const model::CounterSeries& series) { return series.derived; });
    model::addGpuCounters(whole);
    checkSameCounters(snapshot, whole);
    size_t derived = 0;
    for (const model::CounterSeries& series : snapshot.counters)
        derived += series.derived ? 1 : 0;
    return derived;
}

} // namespace spanscope::testing
