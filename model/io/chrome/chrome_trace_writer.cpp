#include "chrome_trace_writer.h"

#include "../../report/json_writer.h"
#include "trace_output.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>
#include <set>

namespace spanscope::model::io {

namespace {

using report::JsonWriter;
using chrome::appendMicros;

// pids of CPU processes: far above GPU device numbers, which are pids in Kineto's layout.
constexpr int64_t kCpuPidBase = 1000000;

struct Place
{
    int64_t pid = 0, tid = 0;
    bool async = false; // Task / NVTX tracks: async events with id = track
};

class Exporter
{
public:
    Exporter(const Capture& capture, chrome::TraceOutput& out, const ProgressRange& progress)
        : m_c(capture), m_out(out), m_progress(progress)
    {
    }

    bool run();

private:
    void planTracks();
    std::string& line()
    {
        std::string& b = m_out.buffer();
        b += m_first ? "\n" : ",\n";
        m_first = false;
        return b;
    }
    void metadataEvent(const char* name, int64_t pid, std::optional<int64_t> tid,
                       const std::string& key, const std::string& value, bool quoted = true);
    void writeCalls();
    void writeCall(uint32_t event, uint32_t region, const Place& place, char phase);
    std::string argsOf(uint32_t event, uint32_t region) const;
    void writeFlows();
    void writeInstants();
    void writeCountersAndMemory();
    std::string category(uint32_t region) const;

    const Capture& m_c;
    chrome::TraceOutput& m_out;
    const ProgressRange& m_progress;
    bool m_first = true;
    std::vector<Place> m_places; // per track
    std::vector<uint32_t> m_rowOfEvent;
    uint32_t regionOf(uint32_t event) const { return m_c.rows[m_rowOfEvent[event]].region; }
    TrackId trackOf(uint32_t event) const { return m_c.trackOfEvent(m_rowOfEvent[event], event); }
    std::vector<uint64_t> m_launchCorrelation; // per event of a launch call, 0 = none
    std::vector<bool> m_regionLaunches;        // region holds launch calls
    std::set<uint32_t> m_allocationCounters;   // counter tracks written as "[memory]" totals
};

void Exporter::planTracks()
{
    m_places.resize(m_c.tracks.size());
    for (uint32_t i = 0; i < m_c.tracks.size(); ++i) {
        const Track& t = m_c.tracks[i];
        Place& p = m_places[i];
        p.pid = kCpuPidBase + t.rank;
        switch (t.kind) {
        case TrackKind::Process:
        case TrackKind::Counter:
            // A rank's calls on no thread: the process's main thread (tid = pid), which
            // readRegionFile() of an export turns back into the rank's own track.
            p.tid = p.pid;
            if (t.kind == TrackKind::Counter && t.device >= 0)
                p.pid = t.device;
            break;
        case TrackKind::Thread:
            p.tid = t.thread;
            break;
        case TrackKind::Task:
        case TrackKind::NvtxDomain:
            p.async = true;
            break;
        case TrackKind::GpuDevice:
            p.pid = t.device;
            p.tid = -1;
            break;
        case TrackKind::GpuStream:
            p.pid = t.device;
            p.tid = t.stream;
            break;
        }
    }
}

void Exporter::metadataEvent(const char* name, int64_t pid, std::optional<int64_t> tid,
                             const std::string& key, const std::string& value, bool quoted)
{
    std::string& b = line();
    b += "{\"ph\": \"M\", \"name\": \"";
    b += name;
    b += "\", \"pid\": " + std::to_string(pid);
    if (tid)
        b += ", \"tid\": " + std::to_string(*tid);
    b += ", \"args\": {" + JsonWriter::escape(key) + ": " +
         (quoted ? JsonWriter::escape(value) : value) + "}}";
}

std::string Exporter::category(uint32_t region) const
{
    if (region < m_c.regionCategories.size() &&
        !m_c.strings.text(m_c.regionCategories[region]).empty())
        return m_c.strings.text(m_c.regionCategories[region]);
    switch (m_c.regionKind(region)) {
    case RegionKind::Kernel:
        return "kernel";
    case RegionKind::Memcpy:
        return "gpu_memcpy";
    case RegionKind::Memset:
        return "gpu_memset";
    case RegionKind::GpuRange:
        return "gpu_user_annotation";
    case RegionKind::Cpu:
        break;
    }
    if (region < m_regionLaunches.size() && m_regionLaunches[region])
        return "cuda_runtime";
    return m_c.nvtx.ranges() ? "nvtx" : "region";
}

std::string Exporter::argsOf(uint32_t event, uint32_t region) const
{
    const auto& e = m_c.events;
    if (!e.args.empty() && ArgsRef{e.args[event]}.valid())
        return m_c.args.text(ArgsRef{e.args[event]}); // the source's own args, as they were
    std::string args;
    auto add = [&](const char* key, const std::string& value) {
        args += args.empty() ? "{" : ", ";
        args += '"';
        args += key;
        args += "\": ";
        args += value;
    };
    // What only a region file or a live capture knows; Chrome has no field for it.
    if (e.hasGpu() && e.gpu[event] >= 0 && m_c.flows.empty())
        add("spanscope.gpu_ns", std::to_string(e.gpu[event]));
    if (e.hasAwait() && e.awaitNs[event] != 0)
        add("spanscope.await_ns", std::to_string(e.awaitNs[event]));
    if (m_c.nvtx.ranges()) {
        add("domain", std::to_string(m_c.nvtx.domainOf(event)));
        add("category", std::to_string(m_c.nvtx.categoryOf(event)));
    }
    if (event < m_launchCorrelation.size() && m_launchCorrelation[event])
        add("correlation", std::to_string(m_launchCorrelation[event]));
    // The stream a synchronization waited for, as Kineto writes it (the critical path reads it).
    if (const auto it = std::lower_bound(m_c.syncWaitStreams.begin(), m_c.syncWaitStreams.end(),
                                         std::pair<uint32_t, int64_t>{event, INT64_MIN});
        it != m_c.syncWaitStreams.end() && it->first == event)
        add("wait_on_stream", std::to_string(it->second));
    if (isGpuActivity(m_c.regionKind(region)) || m_c.regionKind(region) == RegionKind::GpuRange) {
        const Track& track = m_c.track(trackOf(event));
        add("device", std::to_string(track.device));
        add("stream", std::to_string(track.stream));
        if (const int64_t row = m_c.gpuActivities.rowOf(event); row >= 0) {
            const auto& g = m_c.gpuActivities;
            if (g.correlation(size_t(row)))
                add("correlation", std::to_string(g.correlation(size_t(row))));
            add("context", std::to_string(g.context(size_t(row))));
            if (const auto shape = g.kernelShape(size_t(row))) {
                auto dims = [](const uint32_t* d) {
                    return "[" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " +
                           std::to_string(d[2]) + "]";
                };
                add("grid", dims(shape->grid));
                add("block", dims(shape->block));
                add("registers per thread", std::to_string(shape->registersPerThread));
                add("shared memory", std::to_string(shape->sharedMemoryBytes));
            }
            if (const auto bytes = g.copyBytes(size_t(row)))
                add("bytes", std::to_string(*bytes));
        }
    }
    return args.empty() ? std::string() : args + "}";
}

void Exporter::writeCall(uint32_t event, uint32_t region, const Place& place, char phase)
{
    const auto& e = m_c.events;
    std::string& b = line();
    b += "{\"ph\": \"";
    b += phase;
    b += "\", \"name\": ";
    b += JsonWriter::escape(m_c.regionName(region));
    b += ", \"cat\": ";
    b += JsonWriter::escape(category(region));
    b += ", \"pid\": " + std::to_string(place.pid);
    if (place.async)
        b += ", \"id\": " + std::to_string(m_c.events.track.empty() ? 0 : e.track[event]);
    else
        b += ", \"tid\": " + std::to_string(place.tid);
    b += ", \"ts\": ";
    appendMicros(b, phase == 'e' ? e.end[event] : e.start[event]);
    if (phase == 'X' && e.end[event] >= e.start[event]) { // no "dur": a call that never closed
        b += ", \"dur\": ";
        appendMicros(b, e.end[event] - e.start[event]);
    }
    if (phase != 'e') {
        const std::string args = argsOf(event, region);
        if (!args.empty())
            b += ", \"args\": " + args;
    }
    b += '}';
}

void Exporter::writeCalls()
{
    const auto& e = m_c.events;
    // The rows' calls (events no row holds are no calls: row_events.h), grouped by track,
    // each track by (start asc, end desc): async tracks must list their begins and ends in
    // nesting order.
    std::vector<uint32_t> trackOfCall(e.size(), TrackId::kNone);
    std::vector<uint32_t> order;
    for (uint32_t r = 0; r < m_c.rows.size(); ++r)
        for (const uint64_t i : m_c.rowEvents(r))
            if (i < e.size()) {
                trackOfCall[i] = trackOf(uint32_t(i)).value;
                order.push_back(uint32_t(i));
            }
    const size_t n = order.size();
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        if (trackOfCall[a] != trackOfCall[b])
            return trackOfCall[a] < trackOfCall[b];
        if (e.start[a] != e.start[b])
            return e.start[a] < e.start[b];
        return e.end[a] > e.end[b];
    });
    std::vector<uint32_t> open; // async calls not yet ended, innermost last
    uint32_t openTrack = TrackId::kNone;
    auto closeUntil = [&](int64_t start) {
        while (!open.empty()) {
            const uint32_t top = open.back();
            if (start >= 0 &&
                (e.end[top] > start || (e.end[top] == start && e.start[top] == e.end[top])))
                break;
            writeCall(top, regionOf(top), m_places[openTrack], 'e');
            open.pop_back();
        }
    };
    for (size_t k = 0; k < n; ++k) {
        const uint32_t event = order[k];
        const uint32_t track = trackOfCall[event];
        const Place& place = m_places[track];
        if (track != openTrack) {
            closeUntil(-1);
            openTrack = track;
        }
        if (!place.async) {
            writeCall(event, regionOf(event), place, 'X');
        } else if (e.end[event] < e.start[event]) {
            writeCall(event, regionOf(event), place, 'b'); // never ended: no 'e'
        } else {
            closeUntil(e.start[event]);
            writeCall(event, regionOf(event), place, 'b');
            open.push_back(event);
        }
        if ((k & 65535) == 0) {
            m_out.flushIfFull();
            m_progress.report(0.1 + 0.7 * double(k) / double(std::max<size_t>(n, 1)));
        }
        m_out.flushIfFull();
    }
    closeUntil(-1);
}

void Exporter::writeFlows()
{
    const auto& f = m_c.flows;
    const auto& e = m_c.events;
    // In time order (the table's is by event index, which says nothing about the trace):
    // the same calls give the same trace however the capture holds them.
    // Each flow's key is read once (a CUDA job has millions of launch flows, and reading
    // the columns through event indices in every comparison misses the cache).
    using Key = std::tuple<int64_t, int64_t, uint32_t, uint32_t, int64_t, int64_t, int>;
    std::vector<std::pair<Key, size_t>> order(f.size());
    for (size_t row = 0; row < f.size(); ++row)
        order[row] = {Key(e.start[f.from(row)], e.start[f.to(row)], trackOf(f.from(row)).value,
                          trackOf(f.to(row)).value, e.end[f.from(row)], e.end[f.to(row)], int(f.kind(row))),
                      row};
    std::sort(order.begin(), order.end());
    for (size_t k = 0; k < order.size(); ++k) {
        const size_t i = order[k].second;
        const Place& from = m_places[trackOf(f.from(i)).value];
        const Place& to = m_places[trackOf(f.to(i)).value];
        if (from.async || to.async)
            continue; // flows bind to slices of a thread; async events have none
        const char* cat = f.kind(i) == FlowKind::Launch            ? "ac2g"
                          : f.kind(i) == FlowKind::ForwardBackward ? "fwdbwd"
                          : f.kind(i) == FlowKind::Sync            ? "sync"
                                                                   : "flow";
        for (const bool start : {true, false}) {
            const Place& place = start ? from : to;
            std::string& b = line();
            b += start ? "{\"ph\": \"s\"" : "{\"ph\": \"f\", \"bp\": \"e\"";
            b += ", \"id\": " + std::to_string(k + 1) + ", \"cat\": \"" + cat + "\", \"name\": \"" +
                 cat + "\"";
            b += ", \"pid\": " + std::to_string(place.pid) +
                 ", \"tid\": " + std::to_string(place.tid) + ", \"ts\": ";
            appendMicros(b, e.start[start ? f.from(i) : f.to(i)]);
            b += '}';
        }
        m_out.flushIfFull();
    }
}

void Exporter::writeInstants()
{
    const auto& in = m_c.instants;
    for (size_t i = 0; i < in.size(); ++i) {
        const Track& track = m_c.track(in.track(i));
        const Place& place = m_places[in.track(i).value];
        std::string& b = line();
        b += "{\"ph\": \"i\", \"s\": \"";
        b += track.kind == TrackKind::Process ? 'p' : 't';
        b += "\", \"name\": " + JsonWriter::escape(m_c.strings.text(in.name(i)));
        b += ", \"pid\": " + std::to_string(place.pid) + ", \"tid\": " + std::to_string(place.tid) +
             ", \"ts\": ";
        appendMicros(b, in.time(i));
        if (in.args(i).valid())
            b += ", \"args\": " + m_c.args.text(in.args(i));
        b += '}';
    }
    // NVTX marks: instants on their thread.
    for (const NvtxMark& mark : m_c.nvtx.marks) {
        std::string& b = line();
        b += "{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"nvtx\", \"name\": " +
             JsonWriter::escape(m_c.strings.text(mark.message));
        b += ", \"pid\": " + std::to_string(kCpuPidBase + mark.rank) +
             ", \"tid\": " + std::to_string(mark.thread) + ", \"ts\": ";
        appendMicros(b, mark.timeNs);
        b += '}';
    }
    m_out.flushIfFull();
}

void Exporter::writeCountersAndMemory()
{
    // PyTorch's allocator totals ride on the "[memory]" events, as in Kineto's own files.
    std::map<std::pair<int32_t, int32_t>, const CounterSeries*> allocated,
        reserved; // (rank, device)
    for (const auto& series : m_c.counters) {
        const Track& track = m_c.track(series.track);
        const std::string& name = m_c.strings.text(track.name);
        if (name == "allocated" || name == "host allocated")
            allocated[{track.rank, track.device}] = &series,
                                   m_allocationCounters.insert(series.track.value);
        else if (name == "reserved" || name == "host reserved")
            reserved[{track.rank, track.device}] = &series,
                                  m_allocationCounters.insert(series.track.value);
    }
    auto valueAt = [](const CounterSeries* series, int64_t t) -> std::optional<int64_t> {
        if (!series)
            return std::nullopt;
        const size_t next = series->firstAtOrAfter(t + 1);
        if (next == 0)
            return std::nullopt;
        return int64_t(series->value(next - 1));
    };
    const auto& a = m_c.allocations;
    for (size_t i = 0; i < a.size(); ++i) {
        const Track& track = m_c.track(a.track(i));
        const Place& place = m_places[a.track(i).value];
        const std::pair<int32_t, int32_t> key{track.rank, a.device(i)};
        std::string& b = line();
        b += "{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\"";
        b += ", \"pid\": " + std::to_string(place.pid) + ", \"tid\": " + std::to_string(place.tid) +
             ", \"ts\": ";
        appendMicros(b, a.time(i));
        b += ", \"args\": {\"Device Type\": " + std::string(a.device(i) < 0 ? "0" : "1");
        b += ", \"Device Id\": " + std::to_string(a.device(i)) +
             ", \"Addr\": " + std::to_string(a.address(i));
        b += ", \"Bytes\": " + std::to_string(a.bytes(i));
        const auto it = allocated.find(key);
        if (const auto total = valueAt(it == allocated.end() ? nullptr : it->second, a.time(i)))
            b += ", \"Total Allocated\": " + std::to_string(*total);
        const auto rt = reserved.find(key);
        if (const auto total = valueAt(rt == reserved.end() ? nullptr : rt->second, a.time(i)))
            b += ", \"Total Reserved\": " + std::to_string(*total);
        b += "}}";
        m_out.flushIfFull();
    }
    for (const auto& series : m_c.counters) {
        if (m_allocationCounters.count(series.track.value) || series.derived)
            continue; // derived ones (GPU utilization, queues) are made again on import
        const Place& place = m_places[series.track.value];
        const std::string name = JsonWriter::escape(m_c.strings.text(m_c.track(series.track).name));
        for (size_t i = 0; i < series.size(); ++i) {
            std::string& b = line();
            b += "{\"ph\": \"C\", \"name\": " + name + ", \"pid\": " + std::to_string(place.pid) +
                 ", \"ts\": ";
            appendMicros(b, series.time(i));
            char value[40];
            std::snprintf(value, sizeof value, "%.17g", series.value(i));
            b += std::string(", \"args\": {\"value\": ") + value + "}}";
            m_out.flushIfFull();
        }
    }
}

bool Exporter::run()
{
    planTracks();
    m_rowOfEvent.assign(m_c.events.size(), 0);
    for (uint32_t r = 0; r < m_c.rows.size(); ++r)
        for (const uint64_t i : m_c.rowEvents(r))
            if (i < m_rowOfEvent.size())
                m_rowOfEvent[i] = r;
    m_regionLaunches.assign(m_c.regionNames.size(), false);
    for (size_t i = 0; i < m_c.flows.size(); ++i)
        if (m_c.flows.kind(i) == FlowKind::Launch) {
            const uint32_t from = m_c.flows.from(i);
            m_regionLaunches[regionOf(from)] = true;
            if (const int64_t row = m_c.gpuActivities.rowOf(m_c.flows.to(i)); row >= 0) {
                m_launchCorrelation.resize(m_c.events.size(), 0);
                m_launchCorrelation[from] = m_c.gpuActivities.correlation(size_t(row));
            }
        }

    std::string& head = m_out.buffer();
    head += "{\"displayTimeUnit\": \"ns\",\n\"spanscope\": {\"format_version\": 1, \"source\": " +
            JsonWriter::escape(m_c.sourcePath) + ", \"rows\": [";
    // Where each region was defined, and its tags: region files know, Chrome has no field.
    bool firstRow = true;
    for (const RegionRow& row : m_c.rows) {
        if (row.sourceFile.value == 0 && row.sourceText.value == 0 && row.sourceLine < 0 &&
            row.tags.empty())
            continue;
        head += firstRow ? "\n" : ",\n";
        firstRow = false;
        head += "{\"name\": " + JsonWriter::escape(m_c.regionName(row.region)) + ", \"kind\": \"" +
                regionKindName(m_c.regionKind(row.region)) +
                "\", \"rank\": " + std::to_string(row.rank) +
                ", \"source_file\": " + JsonWriter::escape(m_c.strings.text(row.sourceFile)) +
                ", \"source_text\": " + JsonWriter::escape(m_c.strings.text(row.sourceText)) +
                ", \"source_line\": " + std::to_string(row.sourceLine) + ", \"tags\": [";
        for (size_t k = 0; k < row.tags.size(); ++k)
            head += (k ? ", " : "") + JsonWriter::escape(m_c.strings.text(row.tags[k]));
        head += "]}";
    }
    head += "]},\n";
    head += "\"distributedInfo\": {\"world_size\": " + std::to_string(m_c.numRanks);
    if (m_c.ranks.size() == 1)
        head += ", \"rank\": " + std::to_string(m_c.ranks.front());
    head += "},\n\"otherData\": {";
    bool firstEntry = true;
    for (const auto& entry : m_c.metadata) {
        head += firstEntry ? "" : ", ";
        firstEntry = false;
        head += JsonWriter::escape(entry.key) + ": ";
        switch (entry.value.kind) {
        case MetadataValue::Kind::Integer:
            head += std::to_string(entry.value.integer);
            break;
        case MetadataValue::Kind::Bool:
            head += entry.value.flag ? "true" : "false";
            break;
        case MetadataValue::Kind::StringList: {
            head += '[';
            for (size_t k = 0; k < entry.value.list.size(); ++k)
                head += (k ? ", " : "") + JsonWriter::escape(entry.value.list[k]);
            head += ']';
            break;
        }
        default:
            head += JsonWriter::escape(entry.value.display());
            break;
        }
    }
    head += "},\n\"deviceProperties\": [";
    for (size_t i = 0; i < m_c.devices.size(); ++i) {
        const DeviceInfo& d = m_c.devices[i];
        head += (i ? ", " : "") + std::string("{\"id\": ") + std::to_string(d.device) +
                ", \"name\": " + JsonWriter::escape(m_c.strings.text(d.name)) +
                ", \"totalGlobalMem\": " + std::to_string(d.totalMemoryBytes) +
                ", \"numSms\": " + std::to_string(d.multiprocessors) +
                ", \"computeMajor\": " + std::to_string(d.computeMajor) +
                ", \"computeMinor\": " + std::to_string(d.computeMinor) +
                ", \"warpSize\": " + std::to_string(d.warpSize) + "}";
    }
    head += "],\n\"traceEvents\": [";

    // Names: ranks as processes, GPUs as processes labelled "GPU n", tracks as threads.
    std::set<int32_t> ranks(m_c.ranks.begin(), m_c.ranks.end());
    std::set<int32_t> devices;
    for (const Track& t : m_c.tracks) {
        ranks.insert(t.rank);
        if (t.device >= 0 && t.kind != TrackKind::Counter)
            devices.insert(t.device);
    }
    for (const int32_t rank : ranks) {
        metadataEvent("process_name", kCpuPidBase + rank, std::nullopt, "name",
                      "rank " + std::to_string(rank));
        metadataEvent("process_sort_index", kCpuPidBase + rank, std::nullopt, "sort_index",
                      std::to_string(rank), false);
        metadataEvent("spanscope_rank", kCpuPidBase + rank, std::nullopt, "rank",
                      std::to_string(rank), false);
    }
    for (const int32_t device : devices) {
        metadataEvent("process_name", device, std::nullopt, "name",
                      "GPU " + std::to_string(device));
        metadataEvent("process_labels", device, std::nullopt, "labels",
                      "GPU " + std::to_string(device));
        metadataEvent("process_sort_index", device, std::nullopt, "sort_index",
                      std::to_string(kCpuPidBase * 2 + device), false);
    }
    for (uint32_t i = 0; i < m_c.tracks.size(); ++i) {
        const Track& t = m_c.tracks[i];
        const Place& place = m_places[i];
        if (place.async || t.kind == TrackKind::Counter)
            continue;
        std::string name;
        if (t.kind == TrackKind::Thread) {
            const ThreadInfo* info = m_c.thread(t.rank, t.thread);
            name = !m_c.strings.text(t.name).empty() ? m_c.strings.text(t.name)
                   : info                            ? m_c.strings.text(info->name)
                                                     : std::string();
        } else if (isGpuTrack(t.kind) && t.sortKey != 0) {
            // A GPU lane beside the stream's own (its syncs, device windows) shares the
            // stream's Chrome thread; its name would replace the stream's. The importer
            // names such lanes itself.
        } else if (t.kind != TrackKind::Process) {
            name = m_c.strings.text(t.name);
        }
        if (!name.empty())
            metadataEvent("thread_name", place.pid, place.tid, "name", name);
        if (t.kind == TrackKind::Thread || t.kind == TrackKind::GpuStream)
            metadataEvent("thread_sort_index", place.pid, place.tid, "sort_index",
                          std::to_string(t.sortKey), false);
    }
    m_progress.report(0.1);
    writeCalls();
    if (m_progress.cancelled())
        return false;
    writeFlows();
    writeInstants();
    writeCountersAndMemory();
    m_out.buffer() += "\n]}\n";
    return true;
}

} // namespace

Status writeChromeTrace(const Capture& capture, const std::string& path,
                        const ProgressRange& progress)
{
    namespace fs = std::filesystem;
    const std::string temp = path + ".tmp-" + std::to_string(::getpid());
    const bool gzip = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    chrome::TraceOutput out(temp, gzip);
    if (!out.error().empty())
        return Error{ErrorCode::Io,
                     "cannot create " + temp + " (" + out.error() + "); is the directory writable?",
                     path,
                     {}};
    bool finished = false;
    try {
        finished = Exporter(capture, out, progress).run();
    } catch (const std::bad_alloc&) {
        out.close();
        std::error_code ec;
        fs::remove(temp, ec);
        return Error{ErrorCode::Io, "not enough memory to export the trace", path, {}};
    }
    const bool closed = out.close();
    std::error_code ec;
    if (!finished) {
        fs::remove(temp, ec);
        return Error{ErrorCode::Cancelled, "the export was cancelled", path, {}};
    }
    if (!closed) {
        fs::remove(temp, ec);
        return Error{ErrorCode::Io, out.error(), path, {}};
    }
    fs::rename(temp, path, ec);
    if (ec) {
        fs::remove(temp, ec);
        return Error{
            ErrorCode::Io, "cannot move the finished file into place: " + ec.message(), path, {}};
    }
    progress.report(1.0);
    return Ok{};
}

} // namespace spanscope::model::io
