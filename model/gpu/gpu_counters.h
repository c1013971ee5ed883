#pragma once
// Counter lanes derived from a capture's GPU work, for the timeline: per GPU device (of a
// rank) its utilization — 1 while any of its streams runs work, 0 while none does, drawn as
// the busy fraction of each pixel column (CounterSeries::Level::Mean) — and per stream its
// queue depth: the work launched and not yet started (+1 at a launch call's start, −1 at its
// activity's start, −1 first at equal times, as docs/gpu-analyses.md counts max_queue).
// Marked derived: never saved or exported, made again whenever a capture is analysed.

#include "../capture.h"

namespace spanscope::model {

// Adds the counters to a capture with GPU work that has none yet (a second call adds
// nothing). Call after the capture's tracks exist, before the timeline index is built.
// O(A log A) for A activities.
void addGpuCounters(Capture& capture);

// Names of the derived counter tracks: "GPU utilization", "stream 7 queue".
inline constexpr const char* kUtilizationCounter = "GPU utilization";

} // namespace spanscope::model
