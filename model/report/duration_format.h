#pragma once
// Durations and sizes for people: ns in, "12.3 µs" out; bytes in, "1.50 MiB" out. Only
// used at the display edge.

#include <string>

namespace spanscope::model::report {

// Three significant digits, unit chosen from ns, µs, ms, s.
std::string formatDuration(double ns);

// Three significant digits, unit chosen from B, KiB, MiB, GiB, TiB (powers of 1024).
std::string formatBytes(double bytes);

} // namespace spanscope::model::report
