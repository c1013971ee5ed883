#pragma once
// The `spanscope-cli summary` outputs: an aligned text table, JSON and CSV.
// JSON layout (stable; documented in docs/cli.md):
//   {"file", "schema", "layout", "event_data_available", "num_ranks", "ranks": [...],
//    "metadata": {...}, "warnings": [...], "threads": [...], "domains": [...], "nvtx"?: {...},
//    "regions": [per rank], "pooled": [over ranks, each with "per_thread": [...]]}

#include "../capture.h"
#include "../stats/capture_summary.h"
#include "json_writer.h"

namespace spanscope::model::analysis {
struct GpuAnalysis;
}

#include <string>

namespace spanscope::model::report {

enum class ReportFormat { Text, Json, Csv };

struct SummaryInput
{
    const Capture& capture;
    const CaptureSummary& summary;
    const analysis::GpuAnalysis* gpu = nullptr; // the GPU analyses, where computed
};

struct SummaryOptions
{
    // Text: add a table per (region, rank, thread); CSV: one row per (region, rank, thread)
    // with thread_id and thread_name columns. JSON always has the per-thread figures.
    bool perThread = false;
};

// One file as text (tables for a terminal).
std::string summaryText(const SummaryInput& input, const SummaryOptions& options = {});
// One file as a JSON object, written into `json` (so several files can form an array).
// Each pooled region gets "per_thread" (empty unless the events carry thread ids).
void summaryJson(const SummaryInput& input, JsonWriter& json);
// CSV header line, then one row per (region, rank) for the file, or per (region, rank,
// thread) with options.perThread (files without thread ids: one row per (region, rank) with
// empty thread cells).
std::string summaryCsvHeader(const SummaryOptions& options = {});
std::string summaryCsvRows(const SummaryInput& input, const SummaryOptions& options = {});

} // namespace spanscope::model::report
