#pragma once
// Strong-scaling arithmetic for the scaling plot: each run has a size n (ranks or threads)
// and a time T for a region; against the first run, speedup = T_first / T_n, the ideal is
// n / n_first and efficiency = speedup / ideal. No Qt; pure functions, any thread.

#include "model/capture.h"
#include "model/stats/capture_summary.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace spanscope::views {

struct ScalingPoint
{
    double n = 0;                     // ranks or threads of the run
    double ideal = 0;                 // n / n_first
    std::optional<double> speedup;    // T_first / T_n; none when either time is missing or 0
    std::optional<double> efficiency; // speedup / ideal
};

// One point per run, in run order; `times` are the region's time per run (any unit).
std::vector<ScalingPoint> scalingSeries(std::span<const double> sizes,
                                        std::span<const std::optional<double>> times);

// The run's size by default: metadata `mpi_size` when the file stores a positive one,
// else the capture's rank count (at least 1).
double defaultRunSize(const model::Capture& capture);

// The time to scale by for a region of one run: the largest per-rank total (ns), as the
// slowest rank sets the time to solution. None when the run lacks the region.
std::optional<double> regionWallTime(const model::Capture& capture,
                                     const model::CaptureSummary& summary, const std::string& name);

} // namespace spanscope::views
