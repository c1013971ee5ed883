// The stream's clock calibrations (collector/clock_calibrator.h): a record's ticks, mapped
// as the viewer maps them (with the latest calibration when the record arrives), land on
// CLOCK_MONOTONIC within the reads' own error, from the first milliseconds of a job to its
// tenth second, while the clocks' relative rate drifts.
#include "collector/clock_calibrator.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

using spanscope::collector::ClockCalibrator;
using spanscope::collector::ClockPair;
using spanscope::protocol::ClockCalibrationRecord;

namespace {

// A TSC against CLOCK_MONOTONIC: 2.1 GHz, 1 ppm faster from the fourth second (NTP slews
// CLOCK_MONOTONIC; the TSC runs on).
struct SimulatedClocks
{
    static constexpr double kRate = 2.1e9;
    static constexpr std::uint64_t kOrigin = 1'000'000'000'000;
    static constexpr std::uint64_t kDriftFrom = kOrigin + 3'000'000'000;
    std::mt19937_64 random{12345};

    double ticksAt(std::uint64_t ns) const
    {
        const double before = double(std::min(ns, kDriftFrom) - kOrigin) * kRate / 1e9;
        const double after = ns > kDriftFrom ? double(ns - kDriftFrom) * kRate * (1 + 1e-6) / 1e9 : 0.0;
        return 1e12 + before + after;
    }
    // A pair as readClockPair() gets it: the ns off by up to `errorNs` either way.
    ClockPair read(std::uint64_t ns, int errorNs)
    {
        std::uniform_int_distribution<int> error(-errorNs, errorNs);
        return {std::uint64_t(std::llround(ticksAt(ns))), std::uint64_t(std::int64_t(ns) + error(random))};
    }
};

// The viewer's mapping (docs/capture-format.md, the protocol's header).
double mapped(const ClockCalibrationRecord& c, std::uint64_t ticks)
{
    return double(c.monotonicNs) + (double(ticks) - double(c.ticks)) * 1e9 / c.ticksPerSecond;
}

} // namespace

class TstClockCalibrator : public QObject
{
    Q_OBJECT

private slots:
    // Calibrations every ~5 ms (one per frame of records) for ten seconds; every record
    // stamped since the one before is mapped with the next.
    void recordsBetweenTwoCalibrationsMapWithinTheReadsError()
    {
        SimulatedClocks clocks;
        ClockCalibrator calibrator;
        std::uint64_t now = SimulatedClocks::kOrigin;
        calibrator.anchor(clocks.read(now, 30));
        std::uniform_int_distribution<std::uint64_t> step(1'000'000, 9'000'000);
        std::uint64_t previous = now;
        now += 10'000'000; // the sender's first calibration comes 10 ms after the anchor
        double worst = 0;
        int records = 0;
        while (now < SimulatedClocks::kOrigin + 10'000'000'000) {
            const ClockCalibrationRecord c = calibrator.calibrate(clocks.read(now, 30));
            std::uniform_int_distribution<std::uint64_t> stamped(previous, now);
            for (int i = 0; i < 16; ++i, ++records) {
                const std::uint64_t t = stamped(clocks.random);
                worst = std::max(worst, std::abs(mapped(c, std::uint64_t(std::llround(clocks.ticksAt(t)))) - double(t)));
            }
            previous = now;
            now += step(clocks.random);
        }
        QVERIFY2(worst <= 150, qPrintable(QString("%1 records, worst error %2 ns").arg(records).arg(worst)));
    }

    // Records that arrive late (a backlog drained after newer ones) are mapped by a newer
    // calibration: half a second late costs them less than a microsecond.
    void aRecordHalfASecondLateMapsWithinAMicrosecond()
    {
        SimulatedClocks clocks;
        ClockCalibrator calibrator;
        std::uint64_t now = SimulatedClocks::kOrigin;
        calibrator.anchor(clocks.read(now, 30));
        double worst = 0;
        for (now += 10'000'000; now < SimulatedClocks::kOrigin + 10'000'000'000; now += 5'000'000) {
            const ClockCalibrationRecord c = calibrator.calibrate(clocks.read(now, 30));
            if (now < SimulatedClocks::kOrigin + 500'000'000)
                continue;
            const std::uint64_t late = now - 500'000'000;
            worst = std::max(worst, std::abs(mapped(c, std::uint64_t(std::llround(clocks.ticksAt(late)))) - double(late)));
        }
        QVERIFY2(worst < 1000, qPrintable(QString("worst error %1 ns").arg(worst)));
    }

    // The rate comes from a baseline at least ClockCalibrator::kBaselineNs old once there is
    // one, and never from one much older: it follows the clocks' drift.
    void theRateFollowsTheClocksDrift()
    {
        SimulatedClocks clocks;
        ClockCalibrator calibrator;
        std::uint64_t now = SimulatedClocks::kOrigin;
        calibrator.anchor(clocks.read(now, 0));
        ClockCalibrationRecord c{};
        for (now += 10'000'000; now < SimulatedClocks::kOrigin + 8'000'000'000; now += 5'000'000)
            c = calibrator.calibrate(clocks.read(now, 0));
        // Five seconds into the drift, the rate is the drifted one.
        QVERIFY2(std::abs(c.ticksPerSecond / SimulatedClocks::kRate - (1 + 1e-6)) < 1e-8,
                 qPrintable(QString::number(c.ticksPerSecond, 'f', 3)));
    }

    // Readings of the real clocks: bracketed pairs are ordered and close to the clock.
    void aPairReadNowIsOnBothClocks()
    {
        const std::uint64_t before = spanscope::collector::monotonicNs();
        const ClockPair p = spanscope::collector::readClockPair();
        const std::uint64_t after = spanscope::collector::monotonicNs();
        QVERIFY(p.ns >= before && p.ns <= after);
        QVERIFY(p.ticks != 0);
    }
};

QTEST_GUILESS_MAIN(TstClockCalibrator)
#include "tst_clock_calibrator.moc"
