#pragma once
// Chrome trace timestamps are decimal microseconds ("1669783687464181",
// "4203669604595.407", "1.5e3"). They are turned into integer nanoseconds from their text,
// exactly: value x 1000 rounded half to even. Never through a double: an epoch timestamp
// in µs (~1.7e15) as a double is good only to 0.25 µs.

#include <cstdint>
#include <optional>
#include <string_view>

namespace spanscope::model::io {

// The number `text` (JSON number syntax, surrounding spaces allowed) in µs as ns, or
// nullopt when it is not a number or the result does not fit in int64.
std::optional<int64_t> decimalMicrosToNs(std::string_view text);

// The JSON number `text` as an exact integer (no fraction, or a zero one), or nullopt.
std::optional<int64_t> decimalToInt64(std::string_view text);

} // namespace spanscope::model::io
