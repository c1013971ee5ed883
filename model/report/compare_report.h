#pragma once
// The `spanscope-cli compare` outputs. JSON layout (stable; documented in docs/cli.md):
//   {"baseline", "candidates": [..], "metric", "threshold_pct", "alpha", "per_rank",
//    "any_significant_slowdown", "regions": [{"name", "rank"?, "runs": [..], "changes": [..]}]}

#include "../compare/run_comparison.h"
#include "json_writer.h"

namespace spanscope::model::analysis {
struct GpuComparison;
}

#include <string>

namespace spanscope::model::report {

// With `gpu` (the runs' GPU analyses side by side, gpu_compare_report.h) the outputs also
// show those; with a GPU metric they show its changes instead of the regions'.
std::string comparisonText(const Comparison& comparison, const analysis::GpuComparison* gpu = nullptr);
void comparisonJson(const Comparison& comparison, JsonWriter& json, const analysis::GpuComparison* gpu = nullptr);
// One row per (region[, rank], candidate).
std::string comparisonCsv(const Comparison& comparison);

} // namespace spanscope::model::report
