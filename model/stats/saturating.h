#pragma once
// Nanosecond arithmetic that cannot overflow. Real captures never come near INT64_MAX ns
// (292 years), but a damaged or hostile file or stream can hold any value: a difference
// or sum that would wrap (undefined behaviour, and a negative total on screen) stops at
// the limit instead.
#include <cstdint>
#include <limits>

namespace spanscope::model {

// The widest time a reader keeps, either side of zero: ±2^61 ns, ±73 years. Any sum or
// difference of two such times fits in int64, so arithmetic on times read within it
// cannot overflow. Real timestamps (nanoseconds since the epoch or since boot) are far
// inside it.
inline constexpr int64_t kTimeLimitNs = int64_t(1) << 61;

inline int64_t addSaturating(int64_t a, int64_t b)
{
    int64_t sum;
    if (__builtin_add_overflow(a, b, &sum))
        return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    return sum;
}

// end - start: a duration, or the time between two instants.
inline int64_t subtractSaturating(int64_t end, int64_t start)
{
    int64_t difference;
    if (__builtin_sub_overflow(end, start, &difference))
        return start < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    return difference;
}

// A double (a counter's value) as int64, clamped to its range; NaN gives 0. A plain cast of
// a value at or past 2^63 is undefined behaviour.
inline int64_t toInt64Saturating(double value)
{
    if (!(value == value))
        return 0;
    if (value >= 9223372036854775807.0) // 2^63 as a double
        return std::numeric_limits<int64_t>::max();
    if (value <= -9223372036854775808.0)
        return std::numeric_limits<int64_t>::min();
    return int64_t(value);
}

// Counts from a stream are unsigned: sums stop at the limit, and columns and metadata
// (int64) hold at most INT64_MAX.
inline uint64_t addSaturatingUnsigned(uint64_t sum, uint64_t value)
{
    return value > UINT64_MAX - sum ? UINT64_MAX : sum + value;
}

inline int64_t clampToInt64(uint64_t value)
{
    return value > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(value);
}

} // namespace spanscope::model
