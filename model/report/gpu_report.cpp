#include "gpu_report.h"

#include "duration_format.h"
#include "text_table.h"
#include "../stats/gpu_summary.h"
#include "../track.h"

#include <cstdio>
#include <sstream>

namespace spanscope::model::report {

using analysis::CriticalPath;
using analysis::DeviceFigures;
using analysis::GpuAnalysis;
using analysis::PathShare;
using analysis::StreamFigures;

namespace {

const DeviceFigures* figuresOf(const GpuAnalysis* analysis, int32_t rank, int32_t device)
{
    if (analysis)
        for (const DeviceFigures& d : analysis->devices)
            if (d.rank == rank && d.device == device)
                return &d;
    return nullptr;
}

const StreamFigures* streamFiguresOf(const DeviceFigures* device, int64_t stream)
{
    if (device)
        for (const StreamFigures& s : device->streams)
            if (s.stream == stream)
                return &s;
    return nullptr;
}

void writeUtilization(JsonWriter& json, const analysis::Utilization& u)
{
    json.key("utilization");
    json.beginObject();
    json.field("span_ns", u.spanNs);
    json.field("compute_ns", u.computeNs);
    json.field("communication_ns", u.communicationNs);
    json.field("memory_ns", u.memoryNs);
    json.field("idle_ns", u.idleNs);
    json.field("communication_total_ns", u.communicationTotalNs);
    json.field("communication_overlapped_ns", u.communicationOverlappedNs);
    json.key("classes");
    json.beginObject();
    for (int c = 0; c < analysis::kGpuWorkClasses; ++c) {
        json.key(analysis::gpuWorkClassName(analysis::GpuWorkClass(c)));
        json.beginObject();
        json.field("count", u.classes[c].count);
        json.field("total_ns", u.classes[c].totalNs);
        json.endObject();
    }
    json.endObject();
    if (!u.labels.empty()) {
        json.key("labels");
        json.beginObject();
        for (const auto& label : u.labels) {
            json.key(label.name);
            json.beginObject();
            json.field("count", label.count);
            json.field("total_ns", label.totalNs);
            json.field("busy_ns", label.busyNs);
            json.endObject();
        }
        json.endObject();
    }
    json.endObject();
}

void writeLatency(JsonWriter& json, const analysis::LaunchLatency& l)
{
    json.key("launch_latency");
    json.beginObject();
    json.field("count", l.count);
    json.field("min_ns", l.minNs);
    json.field("median_ns", l.medianNs);
    json.field("max_ns", l.maxNs);
    json.field("negative", l.negative);
    json.endObject();
}

void writeGaps(JsonWriter& json, const Capture& capture, const DeviceFigures& d)
{
    json.key("largest_gaps");
    json.beginArray();
    for (const analysis::StreamGap& gap : d.largestGaps) {
        json.beginObject();
        json.field("stream", gap.stream);
        json.field("start_ns", gap.startNs);
        json.field("end_ns", gap.endNs);
        json.field("duration_ns", gap.endNs - gap.startNs);
        json.field("wait", analysis::waitKindName(gap.kind));
        json.field("device_idle_ns", gap.deviceIdleNs);
        json.field("before", capture.regionName(gap.beforeRegion));
        json.field("after", capture.regionName(gap.afterRegion));
        json.endObject();
    }
    json.endArray();
}

void writePath(JsonWriter& json, const Capture& capture, const CriticalPath& path, bool withRank)
{
    json.beginObject();
    if (withRank)
        json.field("rank", int64_t(path.rank));
    json.field("length_ns", path.lengthNs);
    json.key("bound_by");
    json.beginObject();
    for (int s = 0; s < analysis::kPathShares; ++s)
        json.field(analysis::pathShareName(PathShare(s)), path.boundBy[s]);
    json.endObject();
    json.key("path");
    json.beginArray();
    for (size_t i = 0; i < path.nodes.size(); ++i) {
        const analysis::PathNode& node = path.nodes[i];
        json.beginObject();
        json.field("time_ns", node.timeNs);
        json.field("point", node.end ? "end" : "start");
        json.field("name", capture.regionName(node.region));
        json.field("kind", regionKindName(capture.regionKind(node.region)));
        json.field("track", node.track.valid() ? trackTitle(capture, node.track) : std::string());
        if (i > 0)
            json.field("via", analysis::pathShareName(node.via));
        json.endObject();
    }
    json.endArray();
    json.endObject();
}

std::string percentOf(int64_t part, int64_t whole)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f%%", whole > 0 ? 100.0 * double(part) / double(whole) : 0.0);
    return text;
}

std::string durationText(int64_t ns)
{
    return formatDuration(double(ns));
}

std::string deviceLabel(const GpuAnalysis& analysis, const DeviceFigures& d)
{
    std::string label = analysis.multiRank ? "rank " + std::to_string(d.rank) + " GPU " : std::string();
    label += std::to_string(d.device);
    if (!d.name.empty())
        label += " " + d.name;
    return label;
}

} // namespace

void writeGpuJson(JsonWriter& json, const Capture& capture, const GpuAnalysis* analysis)
{
    const GpuSummary gpu = summarizeGpu(capture);
    const bool multiRank = analysis && analysis->multiRank;
    json.key("gpu");
    json.beginObject();
    json.key("devices");
    json.beginArray();
    for (const auto& device : gpu.devices) {
        const DeviceFigures* figures = figuresOf(analysis, device.rank, device.device);
        json.beginObject();
        if (multiRank)
            json.field("rank", int64_t(device.rank));
        json.field("device", int64_t(device.device));
        json.field("name", device.name);
        if (figures) {
            writeUtilization(json, figures->utilization);
            writeLatency(json, figures->launchLatency);
        }
        json.key("streams");
        json.beginArray();
        for (const auto& s : device.streams) {
            json.beginObject();
            json.field("stream", s.stream);
            json.field("name", s.name);
            json.field("kernels", s.kernels);
            json.field("kernel_ns", s.kernelNs);
            json.field("memcpys", s.memcpys);
            json.field("memcpy_bytes", s.memcpyBytes);
            json.field("memcpy_ns", s.memcpyNs);
            json.field("memsets", s.memsets);
            json.field("memset_ns", s.memsetNs);
            if (const StreamFigures* f = streamFiguresOf(figures, s.stream)) {
                json.field("activities", f->activities);
                json.field("busy_ns", f->busyNs);
                json.field("gaps", f->gaps);
                json.field("gap_ns", f->gapNs);
                json.field("host_wait_ns", f->hostWaitNs);
                json.field("other_wait_ns", f->otherWaitNs);
                json.field("max_queue", f->maxQueue);
            }
            json.endObject();
        }
        json.endArray();
        if (figures)
            writeGaps(json, capture, *figures);
        json.endObject();
    }
    json.endArray();
    json.field("launches_matched", gpu.launchesMatched);
    if (analysis && !analysis->empty()) {
        json.key("kernel_classes");
        json.beginArray();
        for (const std::string& spec : analysis->classSpecs)
            json.value(spec);
        json.endArray();
        if (!analysis->labels.empty()) {
            json.key("labels");
            json.beginArray();
            for (const auto& label : analysis->labels) {
                json.beginObject();
                json.field("name", label.name);
                json.field("pattern", label.pattern);
                json.field("kernels", label.kernels);
                json.endObject();
            }
            json.endArray();
        }
        if (const CriticalPath* longest = analysis->longestPath()) {
            json.key("critical_path");
            writePath(json, capture, *longest, multiRank);
        }
        if (analysis->criticalPaths.size() > 1) {
            json.key("critical_paths");
            json.beginArray();
            for (const CriticalPath& path : analysis->criticalPaths)
                writePath(json, capture, path, true);
            json.endArray();
        }
    }
    json.endObject();

    json.key("allocations");
    json.beginArray();
    for (const auto& a : summarizeAllocations(capture)) {
        json.beginObject();
        json.field("device", memoryDeviceName(a.device));
        json.field("allocs", a.allocs);
        json.field("frees", a.frees);
        json.field("alloc_bytes", a.allocBytes);
        json.field("peak_bytes", a.peakBytes);
        json.endObject();
    }
    json.endArray();
}

void appendGpuText(std::ostream& out, const Capture& capture, const GpuAnalysis* analysis)
{
    const GpuSummary gpu = summarizeGpu(capture);
    if (!gpu.devices.empty()) {
        const bool multiRank = analysis && analysis->multiRank;
        out << "\nGPU (" << gpu.launchesMatched << " launches linked to their GPU work)\n";
        std::vector<std::string> header = {"Device", "Stream", "Kernels", "Kernel time", "Copies", "Copied",
                                           "Copy time", "Memsets", "Memset time"};
        if (analysis)
            header.insert(header.end(), {"Busy", "Gaps", "Gap time", "Host wait", "Other wait", "Max queue"});
        TextTable table(header);
        for (const auto& device : gpu.devices) {
            const DeviceFigures* figures = figuresOf(analysis, device.rank, device.device);
            for (const auto& s : device.streams) {
                std::vector<std::string> row = {
                    (multiRank ? "rank " + std::to_string(device.rank) + " GPU " : std::string())
                        + std::to_string(device.device) + (device.name.empty() ? "" : " " + device.name),
                    s.stream < 0 ? std::string("(device)") : std::to_string(s.stream),
                    std::to_string(s.kernels), durationText(s.kernelNs), std::to_string(s.memcpys),
                    formatBytes(double(s.memcpyBytes)), durationText(s.memcpyNs), std::to_string(s.memsets),
                    durationText(s.memsetNs)};
                if (analysis) {
                    const StreamFigures* f = streamFiguresOf(figures, s.stream);
                    if (f)
                        row.insert(row.end(), {durationText(f->busyNs), std::to_string(f->gaps), durationText(f->gapNs),
                                               durationText(f->hostWaitNs), durationText(f->otherWaitNs),
                                               std::to_string(f->maxQueue)});
                    else
                        row.insert(row.end(), 6, "-");
                }
                table.add(std::move(row));
            }
        }
        out << table.render();
    }
    if (analysis && !analysis->empty()) {
        out << "\nGPU utilization (compute + communication + memory + idle = span)\n";
        TextTable util({"Device", "Span", "Compute", "Communication", "Memory", "Idle", "Comm. overlapped",
                        "Launches", "Latency min", "Latency median", "Latency max", "Negative"});
        for (const DeviceFigures& d : analysis->devices) {
            const auto& u = d.utilization;
            const auto& l = d.launchLatency;
            auto share = [&](int64_t ns) { return durationText(ns) + " " + percentOf(ns, u.spanNs); };
            util.add({deviceLabel(*analysis, d), durationText(u.spanNs), share(u.computeNs), share(u.communicationNs),
                      share(u.memoryNs), share(u.idleNs), durationText(u.communicationOverlappedNs),
                      std::to_string(l.count), l.count ? durationText(l.minNs) : "-",
                      l.count ? durationText(l.medianNs) : "-", l.count ? durationText(l.maxNs) : "-",
                      std::to_string(l.negative)});
        }
        out << util.render();
        for (const auto& label : analysis->labels)
            if (label.kernels == 0)
                out << "  the kernel class '" << label.name << "' (" << label.pattern << ") matched no kernel\n";

        for (const DeviceFigures& d : analysis->devices) {
            if (d.largestGaps.empty())
                continue;
            out << "\nLargest gaps, GPU " << deviceLabel(*analysis, d) << " (times from its first activity)\n";
            TextTable gaps({"At", "Stream", "Gap", "Wait", "Device idle", "Before", "After"});
            for (const auto& gap : d.largestGaps)
                gaps.add({"+" + durationText(gap.startNs - d.utilization.firstStartNs), std::to_string(gap.stream),
                          durationText(gap.endNs - gap.startNs), analysis::waitKindName(gap.kind),
                          durationText(gap.deviceIdleNs), capture.regionName(gap.beforeRegion),
                          capture.regionName(gap.afterRegion)});
            out << gaps.render();
        }
        if (!analysis->criticalPaths.empty()) {
            out << "\nCritical path (what bounds the run)\n";
            std::vector<std::string> header = {"Rank", "Length"};
            for (int s = 0; s < analysis::kPathShares; ++s)
                header.push_back(analysis::pathShareName(PathShare(s)));
            TextTable paths(header);
            for (const CriticalPath& path : analysis->criticalPaths) {
                std::vector<std::string> row = {std::to_string(path.rank), durationText(path.lengthNs)};
                for (int s = 0; s < analysis::kPathShares; ++s)
                    row.push_back(percentOf(path.boundBy[s], path.lengthNs));
                paths.add(std::move(row));
            }
            out << paths.render();
        }
    }
    const auto allocations = summarizeAllocations(capture);
    if (!allocations.empty()) {
        out << "\nAllocations\n";
        TextTable table({"Device", "Allocs", "Frees", "Allocated", "Peak"});
        for (const auto& a : allocations)
            table.add({memoryDeviceName(a.device), std::to_string(a.allocs), std::to_string(a.frees),
                       formatBytes(double(a.allocBytes)), formatBytes(double(a.peakBytes))});
        out << table.render();
    }
}

std::optional<GpuCsvTable> gpuCsvTableFromName(std::string_view name)
{
    if (name == "gpu-devices")
        return GpuCsvTable::Devices;
    if (name == "gpu-streams")
        return GpuCsvTable::Streams;
    if (name == "gpu-gaps")
        return GpuCsvTable::Gaps;
    if (name == "critical-path")
        return GpuCsvTable::CriticalPath;
    return std::nullopt;
}

std::string gpuCsvHeader(GpuCsvTable table)
{
    switch (table) {
    case GpuCsvTable::Devices:
        return "file,rank,device,name,span_ns,compute_ns,communication_ns,memory_ns,idle_ns,"
               "communication_total_ns,communication_overlapped_ns,compute_count,compute_total_ns,"
               "communication_count,communication_total_kernel_ns,memory_count,memory_total_ns,"
               "launch_count,latency_min_ns,latency_median_ns,latency_max_ns,latency_negative\n";
    case GpuCsvTable::Streams:
        return "file,rank,device,stream,name,activities,busy_ns,gaps,gap_ns,host_wait_ns,other_wait_ns,max_queue\n";
    case GpuCsvTable::Gaps:
        return "file,rank,device,stream,start_ns,end_ns,duration_ns,wait,device_idle_ns,before,after\n";
    case GpuCsvTable::CriticalPath:
        return "file,rank,index,time_ns,point,name,kind,track,via\n";
    }
    return {};
}

std::string gpuCsvRows(GpuCsvTable table, const Capture& capture, const GpuAnalysis& analysis)
{
    std::ostringstream out;
    const std::string file = csvField(capture.sourcePath);
    auto line = [&](const std::vector<std::string>& cells) {
        out << file;
        for (const std::string& cell : cells)
            out << ',' << cell;
        out << '\n';
    };
    auto n = [](auto v) { return std::to_string(v); };
    for (const DeviceFigures& d : analysis.devices) {
        const auto& u = d.utilization;
        const auto& l = d.launchLatency;
        if (table == GpuCsvTable::Devices)
            line({n(d.rank), n(d.device), csvField(d.name), n(u.spanNs), n(u.computeNs), n(u.communicationNs),
                  n(u.memoryNs), n(u.idleNs), n(u.communicationTotalNs), n(u.communicationOverlappedNs),
                  n(u.classes[0].count), n(u.classes[0].totalNs), n(u.classes[1].count), n(u.classes[1].totalNs),
                  n(u.classes[2].count), n(u.classes[2].totalNs), n(l.count), n(l.minNs), n(l.medianNs),
                  n(l.maxNs), n(l.negative)});
        else if (table == GpuCsvTable::Streams)
            for (const StreamFigures& s : d.streams)
                line({n(d.rank), n(d.device), n(s.stream), csvField(s.name), n(s.activities), n(s.busyNs),
                      n(s.gaps), n(s.gapNs), n(s.hostWaitNs), n(s.otherWaitNs), n(s.maxQueue)});
        else if (table == GpuCsvTable::Gaps)
            for (const auto& gap : d.largestGaps)
                line({n(d.rank), n(d.device), n(gap.stream), n(gap.startNs), n(gap.endNs),
                      n(gap.endNs - gap.startNs), analysis::waitKindName(gap.kind), n(gap.deviceIdleNs),
                      csvField(capture.regionName(gap.beforeRegion)), csvField(capture.regionName(gap.afterRegion))});
    }
    if (table == GpuCsvTable::CriticalPath)
        for (const CriticalPath& path : analysis.criticalPaths)
            for (size_t i = 0; i < path.nodes.size(); ++i) {
                const auto& node = path.nodes[i];
                line({n(path.rank), n(i), n(node.timeNs), node.end ? "end" : "start",
                      csvField(capture.regionName(node.region)), regionKindName(capture.regionKind(node.region)),
                      csvField(node.track.valid() ? trackTitle(capture, node.track) : std::string()),
                      i > 0 ? analysis::pathShareName(node.via) : ""});
            }
    return out.str();
}

} // namespace spanscope::model::report
