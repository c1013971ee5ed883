#pragma once
// "GPU time of a CPU range", for every source that links launches to GPU work (Launch
// flows): the summed duration of the GPU activities launched from inside a call, on the
// same track (a cudaLaunchKernel call counts its own kernel). It fills the capture's GPU
// column, so GPU vs wall, histograms and comparison work the same for every source.

#include "../capture.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace spanscope::model {

// Fills events.gpu: per CPU call, the GPU ns of the launches whose start lies in [start,
// end] of the call on its track, or -1 when there is none; per GPU call (kernels, copies,
// memsets, GPU ranges), its own duration. Does nothing for a capture with neither Launch
// flows nor GPU regions (its GPU column, if any, is the source's own). O(N log L) for N
// calls and L launches; about O(N + L) where each row's calls are sorted by start. Call
// before the capture is published.
void deriveLaunchGpuTime(Capture& capture);
// Whether deriveLaunchGpuTime fills the capture's GPU column: it has calls with tracks of
// their own, and Launch flows or GPU regions. O(flows).
bool hasLaunchGpuTime(const Capture& capture);
// deriveLaunchGpuTime's values for every event, written to gpu[0, events) (a live stream's
// column store, shared with its next snapshots).
void fillLaunchGpuTime(const Capture& capture, int64_t* gpu);

// Per launch call (a `from` of Launch flows), by event ascending: its event, and the
// summed duration of the GPU work it started (ns; 0 for work that never closed).
Column<std::pair<uint32_t, int64_t>> launchTotals(const Capture& capture);

// Launch calls (runtime calls with GPU work) and how many of them a capture has.
uint64_t matchedLaunches(const Capture& capture);

// The first start and last end of the GPU work launched from inside call `event` (on its
// track): the call's projected span on the GPU. nullopt if it launched nothing. O(F) for
// F flows; for a details panel, not for a loop.
std::optional<std::pair<int64_t, int64_t>> projectedGpuSpan(const Capture& capture, uint32_t row, uint32_t event);

} // namespace spanscope::model
