#pragma once
// The numbers behind the GPU-vs-wall plots: per-region wall and GPU totals, and the
// (wall, GPU) duration pairs of one region's calls thinned for a scatter plot. No Qt.
// Pure functions over immutable snapshots; any thread.

#include "model/capture.h"
#include "model/stats/capture_summary.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace spanscope::views {

// One region's wall and GPU time, summed over the rows chosen (one rank or all).
struct RegionGpuTotals
{
    uint32_t region = 0;   // index into Capture::regionNames
    uint64_t calls = 0;    // every recorded call
    uint64_t gpuCalls = 0; // calls with a GPU value
    int64_t wallNs = 0;    // sum of closed-call durations (the table's Total)
    int64_t gpuNs = 0;     // sum of GPU durations (the table's GPU total)

    // GPU / wall: near or above 1 the region waits on the device, near 0 on the host.
    double ratio() const { return wallNs > 0 ? double(gpuNs) / double(wallNs) : 0.0; }
};

// Every region with at least one GPU value, largest wall total first (ties by region id).
// `rank`: only that rank's rows; all ranks when empty. O(rows log rows).
std::vector<RegionGpuTotals> regionGpuTotals(const model::Capture& capture,
                                             const model::CaptureSummary& summary,
                                             std::optional<int32_t> rank);

// One call of a region: where it is in the event columns and its two durations.
struct GpuWallPoint
{
    uint32_t event = 0; // index into Capture::events
    int64_t wallNs = 0; // end - start
    int64_t gpuNs = 0;  // device time
};

struct GpuWallPoints
{
    std::vector<GpuWallPoint> points; // in recorded order
    uint64_t calls = 0;               // closed calls with a GPU value: what the points stand for
    // Smallest positive and largest duration over both axes, ns (1 when none positive).
    int64_t lowest = 1, highest = 1;
};

inline constexpr int kDefaultScatterCells = 400;

// The closed calls of `rows` that have a GPU value, thinned to the first call in each
// cell of a `cells` x `cells` grid over log(duration) on both axes (durations below 1 ns
// count as 1 ns): at most cells² points, the shape and every outlier kept; cells <= 0
// keeps every call. O(n).
GpuWallPoints gpuWallPoints(const model::Capture& capture, std::span<const uint32_t> rows,
                            int cells = kDefaultScatterCells);

} // namespace spanscope::views
