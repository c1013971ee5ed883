#pragma once
// The `spanscope-cli compare` outputs. JSON layout (stable; documented in docs/cli.md):
//   {"baseline", "candidates": [..], "metric", "threshold_pct", "alpha", "per_rank",
//    "any_significant_slowdown", "regions": [{"name", "rank"?, "runs": [..], "changes": [..]}]}

#include "../compare/run_comparison.h"
#include "json_writer.h"

#include <string>

namespace spanscope::model::report {

std::string comparisonText(const Comparison& comparison);
void comparisonJson(const Comparison& comparison, JsonWriter& json);
// One row per (region[, rank], candidate).
std::string comparisonCsv(const Comparison& comparison);

} // namespace spanscope::model::report
