// The collector's clock: raw TSC ticks on x86-64 (about 13 ns a read here, against 23 ns for
// clock_gettime), CLOCK_MONOTONIC ns elsewhere. ClockCalibration records map ticks to ns.
// Any thread.
#pragma once

#include <cstdint>
#include <ctime>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace spanscope::collector {

inline std::uint64_t monotonicNs()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::uint64_t(ts.tv_sec) * 1000000000u + std::uint64_t(ts.tv_nsec);
}

// Collector timestamp, in ticks.
inline std::uint64_t ticks()
{
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return monotonicNs();
#endif
}

// True when ticks() is CLOCK_MONOTONIC itself (1e9 ticks per second, no calibration needed).
inline constexpr bool kTicksAreNanoseconds =
#if defined(__x86_64__) || defined(__i386__)
    false;
#else
    true;
#endif

} // namespace spanscope::collector
