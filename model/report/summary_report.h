#pragma once
// The `spanscope-cli summary` outputs: an aligned text table, JSON and CSV.
// JSON layout (stable; documented in docs/cli.md):
//   {"file", "schema", "layout", "event_data_available", "num_ranks", "ranks": [...],
//    "metadata": {...}, "warnings": [...], "threads": [...], "domains": [...], "nvtx"?: {...},
//    "regions": [per rank], "pooled": [over ranks]}

#include "../capture.h"
#include "../stats/capture_summary.h"
#include "json_writer.h"

#include <string>

namespace spanscope::model::report {

enum class ReportFormat { Text, Json, Csv };

struct SummaryInput
{
    const Capture& capture;
    const CaptureSummary& summary;
};

// One file as text (tables for a terminal).
std::string summaryText(const SummaryInput& input);
// One file as a JSON object, written into `json` (so several files can form an array).
void summaryJson(const SummaryInput& input, JsonWriter& json);
// CSV header line, then one row per (region, rank) for the file.
std::string summaryCsvHeader();
std::string summaryCsvRows(const SummaryInput& input);

} // namespace spanscope::model::report
