// The ClockCalibration records of a stream: how the viewer maps the collector's ticks onto
// CLOCK_MONOTONIC, the clock of CUDA activity and every other source.
//
// The viewer maps each record with the latest calibration it has when the record arrives:
// ns = monotonicNs + (ticks - calibration.ticks) * 1e9 / ticksPerSecond. The sender reads a
// calibration after draining the records of each frame it sends, so a record is mapped by a
// pair read after it. Each calibration's rate is the slope from a baseline pair read before
// that record (the first pair, then one at least kBaselineNs older, at most about twice
// that): the mapping is the line through two pairs that bracket the record, off by no more
// than the two reads themselves (tens of ns) and the clocks' drift within the baseline,
// however long the job runs.
//
// Both reads of a pair must be as close as can be: the first pair used to read the ticks,
// then CLOCK_MONOTONIC in the process's first call to clock_gettime (microseconds of symbol
// lookup between the two), and the rate taken 10 ms later was off by parts in ten thousand.
// CUDA launches made a microsecond inside an NVTX range were then placed up to 90 µs before
// it, and the range lost their GPU time.
#pragma once

#include "clock.h"
#include "protocol/spanscope_protocol.h"

#include <cstdint>

namespace spanscope::collector {

// A tick count and the CLOCK_MONOTONIC ns of the same moment.
struct ClockPair
{
    std::uint64_t ticks = 0;
    std::uint64_t ns = 0;
};

// The narrowest of a few brackets (CLOCK_MONOTONIC, ticks, CLOCK_MONOTONIC), the ns taken
// at its middle. An unbracketed pair is off by whatever ran between its two reads: a first
// call's symbol lookup or a preemption costs microseconds.
inline ClockPair readClockPair()
{
    constexpr int kTries = 5;
    ClockPair best;
    std::uint64_t narrowest = UINT64_MAX;
    for (int i = 0; i < kTries; ++i) {
        const std::uint64_t before = monotonicNs();
        const std::uint64_t t = ticks();
        const std::uint64_t after = monotonicNs();
        if (after >= before && after - before < narrowest) {
            narrowest = after - before;
            best = {t, before + (after - before) / 2};
        }
    }
    return best;
}

class ClockCalibrator
{
public:
    // The baseline's least age (ns): longer makes the rate of records that arrive late
    // (a backlog) more exact, shorter follows changes of the clocks' rates more closely.
    static constexpr std::uint64_t kBaselineNs = 200'000'000;

    // The first pair: the baseline until a later one is kBaselineNs old.
    void anchor(ClockPair first) { m_first = m_baseline = m_next = first; }
    std::uint64_t anchorNs() const { return m_first.ns; }

    // The calibration for a pair read now, after the records it is to map.
    protocol::ClockCalibrationRecord calibrate(ClockPair now)
    {
        if (now.ns >= m_next.ns + kBaselineNs) {
            m_baseline = m_next; // kBaselineNs old or more (about twice that at most)
            m_next = now;
        }
        if (kTicksAreNanoseconds)
            m_ticksPerSecond = 1e9;
        else if (now.ns > m_baseline.ns && now.ticks > m_baseline.ticks)
            m_ticksPerSecond = double(now.ticks - m_baseline.ticks) * 1e9 / double(now.ns - m_baseline.ns);
        protocol::ClockCalibrationRecord r{};
        r.header = {static_cast<std::uint16_t>(protocol::RecordType::ClockCalibration), sizeof r};
        r.ticks = now.ticks;
        r.monotonicNs = now.ns;
        r.ticksPerSecond = m_ticksPerSecond;
        return r;
    }

private:
    ClockPair m_first;    // the anchor
    ClockPair m_baseline; // the rate is measured from here
    ClockPair m_next;     // the baseline once it is kBaselineNs old
    // Until two pairs differ (the sender waits 1 ms after the anchor before the first
    // calibration), the nominal rate of a clock that counts ns keeps the mapping defined.
    double m_ticksPerSecond = 1e9;
};

} // namespace spanscope::collector
