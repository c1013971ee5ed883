#include "summary_report.h"

#include "../stats/alloc_operations.h"
#include "../stats/allocation_stats.h"
#include "../stats/gpu_summary.h"
#include "gpu_report.h"
#include "duration_format.h"
#include "text_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <sstream>

namespace spanscope::model::report {

namespace {

std::string displayName(const std::string& name)
{
    return name.empty() ? "(unnamed)" : name;
}

// A region's name, with its kind when it is GPU work: "gemm [kernel]".
std::string regionLabel(const Capture& capture, uint32_t region)
{
    const RegionKind kind = capture.regionKind(region);
    const std::string name = displayName(capture.regionName(region));
    return kind == RegionKind::Cpu ? name : name + " [" + regionKindName(kind) + "]";
}

void writeStats(JsonWriter& json, const RegionStats& s)
{
    json.field("calls", s.calls);
    json.field("unclosed", s.unclosed);
    json.field("summary_only", s.summaryOnly);
    json.field("total_ns", s.total);
    json.field("mean_ns", s.mean);
    json.field("min_ns", s.minimum);
    json.field("max_ns", s.maximum);
    json.field("std_ns", s.stddev);
    if (s.summaryOnly) {
        json.key("first_duration_ns"), json.null();
        json.key("last_duration_ns"), json.null();
    } else {
        json.field("first_duration_ns", s.first);
        json.field("last_duration_ns", s.last);
    }
    json.field("p50_ns", s.p50);
    json.field("p95_ns", s.p95);
    json.field("p99_ns", s.p99);
    json.field("exclusive_ns", s.exclusive);
    if (s.summaryOnly) {
        json.key("start_min_ns"), json.null();
        json.key("end_max_ns"), json.null();
    } else {
        json.field("start_min_ns", s.startMin);
        json.field("end_max_ns", s.endMax);
    }
    json.field("gpu_calls", s.gpuCalls);
    json.field("gpu_total_ns", s.gpuTotal);
    json.field("await_ns", s.awaitTotal);
    json.field("alloc_count", s.allocCount);
    json.field("alloc_bytes", s.allocBytes);
}

void writeFinite(JsonWriter& json, const char* key, double value)
{
    json.key(key);
    if (std::isfinite(value))
        json.value(value);
    else
        json.null();
}

void writeInterval(JsonWriter& json, const char* key, const alloc::Interval& interval)
{
    json.key(key);
    if (!std::isfinite(interval.low) || !std::isfinite(interval.high)) {
        json.null();
        return;
    }
    json.beginArray();
    json.value(interval.low);
    json.value(interval.high);
    json.endArray();
}

// "<prefix>_count", "<prefix>_bytes" and "<prefix>_frees" of the counted allocations `pick`
// selects; null where the capture counted none.
template <typename Pick>
void writeCounted(JsonWriter& json, const std::string& prefix, bool counted, const Capture& capture, Pick pick)
{
    const CountedAllocations sum = counted ? sumCounted(capture, pick) : CountedAllocations{};
    for (const auto& [suffix, value] : {std::pair{"_count", sum.allocations}, std::pair{"_bytes", sum.bytes},
                                        std::pair{"_frees", sum.frees}}) {
        json.key(prefix + suffix);
        if (counted)
            json.value(value);
        else
            json.null();
    }
}

// A row's log2 size bins of live captures: [{"min_bytes", "allocations", "bytes"}] for
// every bin that has allocations (made while one of its calls was innermost), null when
// the capture has no counted allocations.
void writeAllocSizes(JsonWriter& json, const Capture& capture, const RegionRow& row)
{
    json.key("alloc_sizes");
    if (capture.countedAllocations.empty()) {
        json.null();
        return;
    }
    const CountedAllocations sum = sumCounted(capture, [&](const CountedAllocations& counted) {
        return counted.region == int64_t(row.region) && capture.track(counted.track).rank == row.rank;
    });
    json.beginArray();
    for (size_t bin = 0; bin < CountedAllocations::kBins; ++bin) {
        if (!sum.binAllocations[bin])
            continue;
        json.beginObject();
        json.field("min_bytes", uint64_t(bin == 0 ? 0 : uint64_t(1) << bin));
        json.field("allocations", sum.binAllocations[bin]);
        json.field("bytes", sum.binBytes[bin]);
        json.endObject();
    }
    json.endArray();
}

void writeMetadataValue(JsonWriter& json, const MetadataValue& v)
{
    switch (v.kind) {
    case MetadataValue::Kind::Integer: json.value(v.integer); break;
    case MetadataValue::Kind::Float: json.value(v.number); break;
    case MetadataValue::Kind::Bool: json.value(v.flag); break;
    case MetadataValue::Kind::StringList:
        json.beginArray();
        for (const auto& item : v.list)
            json.value(item);
        json.endArray();
        break;
    case MetadataValue::Kind::String:
    case MetadataValue::Kind::Other: json.value(v.text); break;
    }
}

template <typename T>
std::string optionalText(const std::optional<T>& value)
{
    if (!value)
        return {};
    if constexpr (std::is_floating_point_v<T>) {
        char buffer[32];
        const auto r = std::to_chars(buffer, buffer + sizeof buffer, *value);
        return std::string(buffer, r.ptr);
    } else {
        return std::to_string(*value);
    }
}

std::string durationCell(const std::optional<double>& ns)
{
    return ns ? formatDuration(*ns) : "-";
}

std::vector<std::string> statsCells(const RegionStats& s)
{
    const bool hasCalls = s.closedCalls() > 0;
    auto d = [&](double ns) { return hasCalls ? formatDuration(ns) : std::string("-"); };
    std::string calls = std::to_string(s.calls);
    if (s.unclosed)
        calls += " (" + std::to_string(s.unclosed) + " open)";
    return {calls,
            d(double(s.total)),
            d(s.mean),
            d(double(s.minimum)),
            d(double(s.maximum)),
            hasCalls ? durationCell(s.stddev) : "-",
            hasCalls ? durationCell(s.p50) : "-",
            hasCalls ? durationCell(s.p95) : "-",
            hasCalls ? durationCell(s.p99) : "-",
            s.exclusive ? formatDuration(double(*s.exclusive)) : "-",
            s.gpuTotal ? formatDuration(double(*s.gpuTotal)) : "-"};
}

std::vector<std::string> withFirst(std::vector<std::string> first, std::vector<std::string> rest)
{
    first.insert(first.end(), rest.begin(), rest.end());
    return first;
}

// Captures recorded with spanscope-run --alloc: each region's exclusive allocations, and
// the job's totals.
void appendAllocationText(std::ostream& out, const Capture& capture, const CaptureSummary& summary)
{
    const MetadataValue* total = findMetadata(capture.metadata, "alloc_total_allocations");
    if (!capture.events.hasAllocations() && !total)
        return;
    out << "\nAllocations (made while a region's call was innermost on its thread)\n";
    TextTable table({"Region", "Calls", "Allocs", "Bytes", "Allocs/call", "Bytes/call"});
    for (const uint32_t region : summary.regionOrder) {
        const RegionStats& s = summary.pooled(region);
        if (!s.allocCount)
            continue;
        char perCall[32];
        std::snprintf(perCall, sizeof perCall, "%.2f", s.calls ? double(*s.allocCount) / double(s.calls) : 0.0);
        table.add({regionLabel(capture, region), std::to_string(s.calls), std::to_string(*s.allocCount),
                   formatBytes(double(*s.allocBytes)), perCall,
                   formatBytes(s.calls ? double(*s.allocBytes) / double(s.calls) : 0.0)});
    }
    if (capture.events.hasAllocations())
        out << table.render();
    const MetadataValue* bytes = findMetadata(capture.metadata, "alloc_total_bytes");
    const MetadataValue* outside = findMetadata(capture.metadata, "alloc_outside_ranges_allocations");
    const MetadataValue* peak = findMetadata(capture.metadata, "alloc_peak_live_bytes");
    if (total && bytes)
        out << "  job total: " << total->integer << " allocations, " << formatBytes(double(bytes->integer))
            << (outside ? ", " + std::to_string(outside->integer) + " of them outside every range" : std::string())
            << (peak ? ", heap in use at most " + formatBytes(double(peak->integer)) : std::string()) << "\n";
}

const std::vector<std::string> kStatHeader = {"Calls", "Total", "Mean", "Min", "Max", "Std",
                                              "p50",   "p95",   "p99",  "Exclusive", "GPU"};

} // namespace

std::string summaryText(const SummaryInput& input, const SummaryOptions& options)
{
    const auto& capture = input.capture;
    const auto& summary = input.summary;
    std::ostringstream out;
    out << capture.sourcePath << "\n";
    // A Chrome trace has no schema or layout; a trace or file of some ranks of a bigger
    // job (a PyTorch trace of rank 0 of 64) says how many of them it holds.
    if (capture.schema == 0)
        out << "  Chrome trace, ";
    else
        out << "  schema " << capture.schema << ", " << storageLayoutName(capture.layout) << " layout, ";
    if (capture.ranks.size() < size_t(capture.numRanks))
        out << capture.ranks.size() << " of ";
    out << capture.numRanks << (capture.numRanks == 1 ? " rank" : " ranks") << ", "
        << capture.regionNames.size() << (capture.regionNames.size() == 1 ? " region, " : " regions, ") << capture.callCount() << " calls\n";
    if (!capture.eventDataAvailable)
        out << "  summary-only file: no per-call data, percentiles and std unavailable\n";
    for (const auto& warning : capture.warnings)
        out << "  warning: " << warning.message << "\n";
    out << "\n";

    TextTable pooled(withFirst({"Region"}, kStatHeader));
    for (const uint32_t region : summary.regionOrder)
        pooled.add(withFirst({regionLabel(capture, region)}, statsCells(summary.pooled(region))));
    out << pooled.render();

    if (capture.ranks.size() > 1) {
        out << "\nPer rank\n";
        TextTable perRank(withFirst({"Region", "Rank"}, kStatHeader));
        for (const uint32_t r : summary.rowOrder) {
            const auto& row = capture.rows[r];
            perRank.add(withFirst({regionLabel(capture, row.region), std::to_string(row.rank)},
                                  statsCells(summary.perRow[r])));
        }
        out << perRank.render();
    }

    appendGpuText(out, capture, input.gpu);
    appendAllocationText(out, capture, summary);

    if (options.perThread) {
        if (!capture.events.hasThreads() && capture.threads.empty()) {
            out << "\nPer thread: the file recorded no thread ids\n";
        } else {
            out << "\nPer thread\n";
            TextTable perThread(withFirst({"Region", "Rank", "Thread", "Name"}, kStatHeader));
            for (const uint32_t region : summary.regionOrder)
                for (const auto& t : threadBreakdown(capture, summary.rowsOfRegion[region]))
                    perThread.add(
                        withFirst({regionLabel(capture, region), std::to_string(t.rank),
                                   std::to_string(t.threadId), t.threadName},
                                  statsCells(t.stats)));
            out << perThread.render();
        }
    }
    return out.str();
}

void summaryJson(const SummaryInput& input, JsonWriter& json)
{
    const auto& capture = input.capture;
    const auto& summary = input.summary;
    json.beginObject();
    json.field("file", capture.sourcePath);
    json.field("schema", capture.schema);
    json.field("layout", storageLayoutName(capture.layout));
    json.field("event_data_available", capture.eventDataAvailable);
    json.field("num_ranks", int64_t(capture.numRanks));
    json.key("ranks");
    json.beginArray();
    for (const int32_t rank : capture.ranks)
        json.value(int64_t(rank));
    json.endArray();
    json.key("metadata");
    json.beginObject();
    for (const auto& entry : capture.metadata) {
        json.key(entry.key);
        writeMetadataValue(json, entry.value);
    }
    json.endObject();
    json.key("warnings");
    json.beginArray();
    for (const auto& warning : capture.warnings)
        json.value(warning.message);
    json.endArray();

    // Lanes: the file's thread_table rows; for NVTX captures also domains and counts.
    json.key("threads");
    json.beginArray();
    const bool counted = !capture.countedAllocations.empty();
    for (const auto& thread : capture.threads) {
        json.beginObject();
        json.field("rank", int64_t(thread.rank));
        json.field("id", thread.index);
        json.field("native_id", thread.nativeId);
        json.field("name", capture.strings.text(thread.name));
        // Live captures recorded with --alloc: what the thread allocated, and the part of
        // it made outside every range.
        auto onThread = [&](const CountedAllocations& row, bool outside) {
            const Track& track = capture.track(row.track);
            return track.rank == thread.rank && track.thread == thread.index && (!outside || row.region < 0);
        };
        writeCounted(json, "alloc", counted, capture, [&](const CountedAllocations& row) { return onThread(row, false); });
        writeCounted(json, "alloc_outside_ranges", counted, capture,
                     [&](const CountedAllocations& row) { return onThread(row, true); });
        json.endObject();
    }
    json.endArray();
    json.key("alloc_operations");
    json.beginArray();
    for (const alloc::OperationReport& op : allocOperations(capture)) {
        json.beginObject();
        json.field("name", op.name);
        json.field("spans", op.spans);
        json.field("iterations", op.iterations);
        json.field("bytes", op.bytes);
        json.field("allocations", op.allocations);
        writeFinite(json, "bytes_per_iteration", op.bytesPerIteration);
        writeFinite(json, "allocations_per_iteration", op.allocationsPerIteration);
        writeInterval(json, "bytes_interval", op.bytesInterval);
        writeInterval(json, "allocations_interval", op.allocationsInterval);
        json.endObject();
    }
    json.endArray();
    json.key("domains");
    json.beginArray();
    for (const auto& domain : capture.nvtx.domains) {
        json.beginObject();
        json.field("id", int64_t(domain.id));
        json.field("name", capture.strings.text(domain.name));
        json.endObject();
    }
    json.endArray();
    if (!capture.nvtx.empty()) {
        auto count = [&](const char* key) -> std::optional<int64_t> {
            const MetadataValue* v = findMetadata(capture.metadata, key);
            if (v && v->kind == MetadataValue::Kind::Integer)
                return v->integer;
            return std::nullopt;
        };
        json.key("nvtx");
        json.beginObject();
        json.field("marks", int64_t(capture.nvtx.marks.size()));
        json.field("closed_at_end", int64_t(capture.nvtx.closedAtEnd.size()));
        json.field("dropped_records", count("dropped_records"));
        json.field("anomalies", count("nvtx_anomalies"));
        json.endObject();
    }

    writeGpuJson(json, capture, input.gpu);

    json.key("regions");
    json.beginArray();
    for (const uint32_t r : summary.rowOrder) {
        const auto& row = capture.rows[r];
        json.beginObject();
        json.field("name", capture.regionName(row.region));
        json.field("kind", regionKindName(capture.regionKind(row.region)));
        json.field("rank", int64_t(row.rank));
        writeStats(json, summary.perRow[r]);
        json.field("source_file", capture.strings.text(row.sourceFile));
        json.field("source_line", row.sourceLine);
        json.key("tags");
        json.beginArray();
        for (const auto tag : row.tags)
            json.value(capture.strings.text(tag));
        json.endArray();
        writeAllocSizes(json, capture, row);
        json.endObject();
    }
    json.endArray();

    json.key("pooled");
    json.beginArray();
    for (const uint32_t region : summary.regionOrder) {
        json.beginObject();
        json.field("name", capture.regionName(region));
        json.field("kind", regionKindName(capture.regionKind(region)));
        json.field("ranks", uint64_t(summary.rowsOfRegion[region].size()));
        writeStats(json, summary.pooled(region));
        json.field("imbalance_pct", summary.pooled(region).imbalancePercent);
        json.key("per_thread");
        json.beginArray();
        for (const auto& t : threadBreakdown(capture, summary.rowsOfRegion[region])) {
            json.beginObject();
            json.field("rank", int64_t(t.rank));
            json.field("thread_id", t.threadId);
            json.field("thread_name", t.threadName);
            writeStats(json, t.stats);
            json.endObject();
        }
        json.endArray();
        json.endObject();
    }
    json.endArray();
    json.endObject();
}

std::string summaryCsvHeader(const SummaryOptions& options)
{
    return std::string("file,name,rank,") + (options.perThread ? "thread_id,thread_name," : "") +
           "calls,unclosed,total_ns,mean_ns,min_ns,max_ns,std_ns,"
           "first_duration_ns,last_duration_ns,p50_ns,p95_ns,p99_ns,exclusive_ns,"
           "start_min_ns,end_max_ns,gpu_calls,gpu_total_ns,await_ns,alloc_count,alloc_bytes,kind\n";
}

namespace {

// One CSV line: `key` cells (file, name, rank[, thread]), the statistics of `s`, the kind.
void appendCsvRow(std::string& out, std::vector<std::string> cells, const RegionStats& s, RegionKind kind)
{
    const bool perCall = !s.summaryOnly;
    const std::vector<std::string> stats = {std::to_string(s.calls),
                                            std::to_string(s.unclosed),
                                            std::to_string(s.total),
                                            optionalText(std::optional<double>(s.mean)),
                                            std::to_string(s.minimum),
                                            std::to_string(s.maximum),
                                            optionalText(s.stddev),
                                            perCall ? std::to_string(s.first) : std::string(),
                                            perCall ? std::to_string(s.last) : std::string(),
                                            optionalText(s.p50),
                                            optionalText(s.p95),
                                            optionalText(s.p99),
                                            optionalText(s.exclusive),
                                            perCall ? std::to_string(s.startMin) : std::string(),
                                            perCall ? std::to_string(s.endMax) : std::string(),
                                            optionalText(s.gpuCalls),
                                            optionalText(s.gpuTotal),
                                            optionalText(s.awaitTotal),
                                            optionalText(s.allocCount),
                                            optionalText(s.allocBytes),
                                            regionKindName(kind)};
    cells.insert(cells.end(), stats.begin(), stats.end());
    for (size_t c = 0; c < cells.size(); ++c) {
        if (c)
            out += ',';
        out += cells[c];
    }
    out += '\n';
}

} // namespace

std::string summaryCsvRows(const SummaryInput& input, const SummaryOptions& options)
{
    const auto& capture = input.capture;
    const auto& summary = input.summary;
    const std::string file = csvField(capture.sourcePath);
    std::string out;
    if (options.perThread && (capture.events.hasThreads() || !capture.threads.empty())) {
        for (const uint32_t region : summary.regionOrder) {
            const std::string name = csvField(capture.regionName(region));
            for (const auto& t : threadBreakdown(capture, summary.rowsOfRegion[region]))
                appendCsvRow(out,
                             {file, name, std::to_string(t.rank), std::to_string(t.threadId),
                              csvField(t.threadName)},
                             t.stats, capture.regionKind(region));
        }
        return out;
    }
    for (const uint32_t r : summary.rowOrder) {
        const auto& row = capture.rows[r];
        std::vector<std::string> key = {file, csvField(capture.regionName(row.region)),
                                        std::to_string(row.rank)};
        if (options.perThread)
            key.insert(key.end(), {std::string(), std::string()}); // no thread ids in the file
        appendCsvRow(out, std::move(key), summary.perRow[r], capture.regionKind(row.region));
    }
    return out;
}

} // namespace spanscope::model::report
