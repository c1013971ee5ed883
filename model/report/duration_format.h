#pragma once
// Durations for people: ns in, "12.3 µs" out. Only used at the display edge.

#include <string>

namespace spanscope::model::report {

// Three significant digits, unit chosen from ns, µs, ms, s.
std::string formatDuration(double ns);

} // namespace spanscope::model::report
