#pragma once
// The GPU part of `spanscope-cli compare` (docs/cli.md): each run's utilization, idle,
// launch latency and critical path side by side with their differences, and the changes of
// a GPU metric (gpu_idle, launch_latency, critical_path) with verdicts. Formats a
// comparison model/analysis made.

#include "../analysis/gpu_comparison.h"
#include "json_writer.h"

#include <string>
#include <vector>

namespace spanscope::model::report {

// Tables for a terminal; empty when no run has GPU work.
std::string gpuComparisonText(const analysis::GpuComparison& gpu, const std::vector<std::string>& labels,
                              const CompareOptions& options);
// "gpu": {"metric", "devices": [...], "critical_paths": [...]} as a key of the comparison.
void gpuComparisonJson(const analysis::GpuComparison& gpu, const std::vector<std::string>& labels, JsonWriter& json);
// With a GPU metric: one row per (device or rank, candidate).
std::string gpuComparisonCsv(const analysis::GpuComparison& gpu, const std::vector<std::string>& labels);

} // namespace spanscope::model::report
