#pragma once
// The GPU part of `spanscope-cli summary`: what each device and stream did (counts, time,
// bytes), what the GPU analyses make of it (utilization, launch latency, gaps and their
// causes, queues, largest gaps, the critical path), and allocations per device; as JSON,
// text and CSV tables. Field names are documented in docs/cli.md; scripts depend on them.
// Formats an analysis it is given (model/analysis computes it).

#include "../analysis/gpu_analysis.h"
#include "../capture.h"
#include "json_writer.h"

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace spanscope::model::report {

// "gpu": {"devices", "launches_matched", "kernel_classes", "critical_path",
// "critical_paths"?} and "allocations": [...], as keys of the file's object.
// `analysis` may be null (no analysis figures then).
void writeGpuJson(JsonWriter& json, const Capture& capture, const analysis::GpuAnalysis* analysis);
// The text tables, when the capture has GPU work or allocations.
void appendGpuText(std::ostream& out, const Capture& capture, const analysis::GpuAnalysis* analysis);

// The CSV tables of the GPU analyses (`summary --format csv --table NAME`): one header line
// for the first file, then one row per device, stream, gap or path node of each file.
enum class GpuCsvTable { Devices, Streams, Gaps, CriticalPath };
std::optional<GpuCsvTable> gpuCsvTableFromName(std::string_view name); // "gpu-devices", ...
std::string gpuCsvHeader(GpuCsvTable table);
std::string gpuCsvRows(GpuCsvTable table, const Capture& capture, const analysis::GpuAnalysis& analysis);

} // namespace spanscope::model::report
