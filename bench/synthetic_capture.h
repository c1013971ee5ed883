#pragma once
// Synthetic captures for the benchmarks, built in memory (no file): `ranks` ranks, each a
// sequence of `step` calls holding 9 back-to-back child calls, the third child holding 3
// `kernel` calls, so rows have depths 0..2 and a realistic mix of widths. `scale` scales
// the child durations (1.0 = as generated) so two runs can differ.

#include "model/capture.h"

#include <cstdint>
#include <memory>

namespace spanscope::bench {

std::shared_ptr<model::Capture> syntheticCapture(int64_t calls, int ranks, double scale = 1.0);

} // namespace spanscope::bench
