#include "hostile_h5.h"

#include "support/h5_builder.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

namespace spanscope::fuzz {

namespace {

using testing::DatasetOptions;
using testing::Filter;
using testing::H5Builder;

// A name HDF5 accepts for a link: no '/', no NUL, not "." or empty.
std::string linkName(FuzzInput& in, std::size_t maxBytes)
{
    std::string name = in.bytes(maxBytes);
    for (char& c : name)
        if (c == '/' || c == '\0')
            c = '_';
    return name.empty() || name == "." ? std::string("x") : name;
}

// How a dataset is stored: mostly plain, sometimes chunked and filtered.
DatasetOptions storage(FuzzInput& in, hid_t fileType)
{
    DatasetOptions options;
    options.fileType = fileType;
    const std::uint8_t how = in.byte();
    if (how % 4 == 0) {
        options.chunk = 1 + how / 64;
        constexpr Filter kFilters[] = {Filter::None, Filter::Gzip, Filter::Lzf, Filter::Zstd,
                                       Filter::Bzip2Unavailable};
        options.filter = kFilters[(how / 4) % 5];
    }
    return options;
}

std::size_t hostileLength(FuzzInput& in, std::size_t plausible)
{
    switch (in.byte() % 8) {
    case 0:
        return plausible + 1;
    case 1:
        return plausible > 0 ? plausible - 1 : 0;
    case 2:
        return in.inRange<std::size_t>(0, 40);
    default:
        return plausible;
    }
}

// An integer column at `path`: `plausible` values, some replaced by hostile ones, of a
// length that may differ, stored as any integer type, as doubles, as strings, or absent.
void intColumn(FuzzInput& in, H5Builder& b, const std::string& path,
               const std::vector<std::int64_t>& plausible)
{
    const std::uint8_t how = in.byte();
    if (how % 16 == 15)
        return; // absent
    std::vector<std::int64_t> values(hostileLength(in, plausible.size()));
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = i < plausible.size() && in.byte() % 8 != 0 ? plausible[i] : in.hostileInt();
    static const hid_t kTypes[] = {H5T_STD_I64LE, H5T_STD_I64LE, H5T_STD_U64LE, H5T_STD_U32LE,
                                   H5T_STD_I32LE, H5T_STD_U16LE, H5T_STD_I8LE,  H5T_STD_U8LE,
                                   H5T_STD_I64BE, H5T_STD_U64BE};
    switch ((how / 16) % 12) {
    case 10: {
        std::vector<double> doubles(values.begin(), values.end());
        b.doubles(path, doubles);
        return;
    }
    case 11: {
        std::vector<std::string> texts;
        for (auto v : values)
            texts.push_back(std::to_string(v));
        b.strings(path, texts, storage(in, H5T_STD_I64LE));
        return;
    }
    default:
        b.ints(path, values, storage(in, kTypes[(how / 16) % 10]));
    }
}

// A string column: hostile bytes, any length, sometimes fixed-length, sometimes integers.
void stringColumn(FuzzInput& in, H5Builder& b, const std::string& path, std::size_t plausible)
{
    const std::uint8_t how = in.byte();
    if (how % 16 == 15)
        return;
    std::vector<std::string> values(hostileLength(in, plausible));
    for (auto& v : values)
        v = in.bytes(24);
    if (how % 16 == 14) {
        b.ints(path, std::vector<std::int64_t>(values.size(), 7));
        return;
    }
    DatasetOptions options = storage(in, H5T_STD_I64LE);
    options.fixedLengthStrings = (how / 16) % 2 == 1;
    b.strings(path, values, options);
}

// An attribute the reader expects to be an integer (or a string): usually that, sometimes
// another type, sometimes absent.
void intAttribute(FuzzInput& in, H5Builder& b, const std::string& object, const std::string& name,
                  std::int64_t plausible)
{
    switch (in.byte() % 10) {
    case 0:
        return;
    case 1:
        b.attrString(object, name, in.bytes(12));
        return;
    case 2:
        b.attrDouble(object, name, double(in.hostileInt()) / 3);
        return;
    case 3:
        b.attrInt(object, name, in.hostileInt());
        return;
    default:
        b.attrInt(object, name, plausible);
    }
}

void stringAttribute(FuzzInput& in, H5Builder& b, const std::string& object,
                     const std::string& name, const std::string& plausible)
{
    switch (in.byte() % 10) {
    case 0:
        return;
    case 1:
        b.attrInt(object, name, in.hostileInt());
        return;
    case 2:
        b.attrStrings(object, name, {in.bytes(12), in.bytes(12)});
        return;
    case 3:
        b.attrString(object, name, in.bytes(32));
        return;
    default:
        b.attrString(object, name, plausible);
    }
}

void metadata(FuzzInput& in, H5Builder& b)
{
    b.group("/metadata");
    intAttribute(in, b, "/metadata", "mpi_size", in.inRange(1, 4));
    for (int extra = in.inRange(0, 3); extra > 0; --extra) {
        const std::string name = linkName(in, 12);
        switch (in.byte() % 5) {
        case 0:
            b.attrInt("/metadata", name, in.hostileInt());
            break;
        case 1:
            b.attrDouble("/metadata", name, double(in.hostileInt()));
            break;
        case 2:
            b.attrBool("/metadata", name, in.flag());
            break;
        case 3:
            b.attrStrings("/metadata", name, {in.bytes(16)});
            break;
        default:
            b.attrString("/metadata", name, in.bytes(16));
        }
    }
}

// Ascending start times from a hostile origin with small steps; durations small.
std::vector<std::int64_t> ascending(FuzzInput& in, std::size_t n, std::int64_t origin)
{
    std::vector<std::int64_t> out(n);
    auto t = std::uint64_t(origin); // wraps past INT64_MAX: a hostile file may do that too
    for (auto& v : out)
        v = std::int64_t(t += in.inRange<std::uint64_t>(0, 1000));
    return out;
}

void perRankGroups(FuzzInput& in, H5Builder& b)
{
    for (int ranks = in.inRange(0, 3), r = 0; r < ranks; ++r) {
        const std::string rank = "/" + (in.byte() % 8 == 0 ? "rank_" + linkName(in, 6)
                                                           : "rank_" + std::to_string(in.inRange(0, 4)));
        b.group(rank);
        for (int regions = in.inRange(0, 3); regions > 0; --regions) {
            std::string name = linkName(in, 10);
            if (in.byte() % 4 == 0)
                name += "/" + linkName(in, 6); // nested: "a" and "a/b" may both be regions
            const std::string group = rank + "/regions/" + name;
            b.group(group);
            const std::size_t calls = in.inRange<std::size_t>(0, 12);
            const auto starts = ascending(in, calls, in.hostileInt());
            std::vector<std::int64_t> ends(calls);
            for (std::size_t i = 0; i < calls; ++i)
                ends[i] = std::int64_t(std::uint64_t(starts[i]) + in.inRange<std::uint64_t>(0, 500));
            intColumn(in, b, group + "/start_times", starts);
            intColumn(in, b, group + "/end_times", ends);
            for (const char* optional : {"call_ids", "parent_ids", "gpu_durations"})
                if (in.byte() % 3 == 0)
                    intColumn(in, b, group + "/" + optional, std::vector<std::int64_t>(calls, 1));
            stringAttribute(in, b, group, "source_file", "solver.py");
            intAttribute(in, b, group, "source_lineno", 42);
            stringAttribute(in, b, group, "tags", "[\"io\"]");
        }
    }
}

// What the region part of a file holds, for the tables that refer to it.
struct RegionShape
{
    std::size_t regions = 0, events = 0;
};

RegionShape columnar(FuzzInput& in, H5Builder& b, int schema, bool aggregate)
{
    const std::size_t rows = in.inRange<std::size_t>(0, 8);
    const std::size_t names = std::max<std::size_t>(1, in.inRange<std::size_t>(0, rows + 1));
    std::vector<std::string> regionNames(names);
    for (auto& n : regionNames)
        n = in.bytes(16);
    b.strings("/region_table/names", regionNames, storage(in, H5T_STD_I64LE));

    std::vector<std::int64_t> regionIds(rows), ranks(rows), offsets(rows), counts(rows), lines(rows);
    std::size_t events = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        regionIds[r] = std::int64_t(r % names);
        ranks[r] = in.inRange(0, 3);
        offsets[r] = std::int64_t(events);
        counts[r] = in.inRange(0, 10);
        events += std::size_t(counts[r]);
        lines[r] = in.inRange(-1, 100);
    }
    const std::string index = "/rank_region_index/";
    intColumn(in, b, index + "region_ids", regionIds);
    intColumn(in, b, index + "ranks", ranks);
    intColumn(in, b, index + "event_offsets", offsets);
    intColumn(in, b, index + "event_counts", counts);
    intColumn(in, b, index + "source_lines", lines);
    stringColumn(in, b, index + "source_files", rows);
    stringColumn(in, b, index + "source_texts", rows);
    stringColumn(in, b, index + "tags", rows); // JSON lists, or any bytes
    if (in.flag())
        intColumn(in, b, index + "exclusive_totals", std::vector<std::int64_t>(rows, -1));
    if (in.flag()) {
        std::vector<H5Builder::Summary> summaries(hostileLength(in, rows));
        for (auto& s : summaries)
            s = {in.hostileInt(), in.hostileInt(), in.hostileInt(), in.hostileInt(),
                 in.hostileInt(), in.hostileInt(), in.hostileInt(), std::uint64_t(in.hostileInt()),
                 in.hostileInt(), double(in.hostileInt()), double(in.hostileInt()) / 7};
        b.summaryStatistics(index + "summary_statistics", summaries, in.byte() % 8 == 0);
    }
    if (aggregate) {
        for (const char* column : {"aggregate_counts", "aggregate_totals", "aggregate_minimums",
                                   "aggregate_maximums", "aggregate_exclusives"})
            intColumn(in, b, index + column, counts);
        return {names, 0};
    }
    const auto starts = ascending(in, events, in.hostileInt());
    std::vector<std::int64_t> first(events), second(events);
    for (std::size_t i = 0; i < events; ++i) {
        const std::int64_t duration = in.inRange<std::int64_t>(0, 400);
        const auto start = std::uint64_t(starts[i]);
        first[i] = schema >= 3 && i > 0 ? std::int64_t(start - std::uint64_t(starts[i - 1]))
                                         : starts[i];
        second[i] = schema >= 3 ? duration : std::int64_t(start + std::uint64_t(duration));
    }
    intColumn(in, b, schema >= 3 ? "/events/start_deltas" : "/events/start_times", first);
    intColumn(in, b, schema >= 3 ? "/events/durations" : "/events/end_times", second);
    for (const char* optional :
         {"gpu_durations", "call_ids", "parent_ids", "thread_ids", "task_ids", "await_ns"})
        if (in.byte() % 4 == 0) {
            std::vector<std::int64_t> values(events);
            for (std::size_t i = 0; i < events; ++i)
                values[i] = std::int64_t(i % 3) - 1;
            intColumn(in, b, std::string("/events/") + optional, values);
        }
    return {names, events};
}

RegionShape regionPart(FuzzInput& in, H5Builder& b, bool plausibleOnly)
{
    // spanscope writes schema 3, columnar; scope-profiler has written all three.
    int schema = plausibleOnly ? 3 : 1 + in.inRange(0, 2);
    const std::uint8_t how = plausibleOnly ? 0 : in.byte();
    if (how % 8 == 6)
        b.attrInt("/", "scope_profiler_schema", in.hostileInt());
    else if (how % 8 == 7)
        b.attrString("/", "scope_profiler_schema", in.bytes(8));
    else
        b.attrInt("/", "scope_profiler_schema", schema);
    bool aggregate = false;
    if (schema >= 2) {
        aggregate = !plausibleOnly && in.byte() % 4 == 0;
        const char* layout = aggregate ? "aggregate" : "columnar";
        if (plausibleOnly)
            b.attrString("/", "storage_layout", layout);
        else
            stringAttribute(in, b, "/", "storage_layout", layout);
    }
    metadata(in, b);
    if (schema == 1) {
        perRankGroups(in, b);
        return {};
    }
    return columnar(in, b, schema, aggregate);
}

// The rows of the thread table as (rank, index) pairs, for the tables that name threads.
using ThreadRows = std::vector<std::pair<std::int64_t, std::int64_t>>;

ThreadRows laneTables(FuzzInput& in, H5Builder& b)
{
    const std::size_t threads = in.inRange<std::size_t>(0, 5);
    std::vector<std::int64_t> ranks(threads), index(threads), times(threads);
    for (std::size_t i = 0; i < threads; ++i) {
        ranks[i] = in.inRange(0, 3);
        index[i] = std::int64_t(i);
        times[i] = in.hostileInt();
    }
    if (threads > 0 || in.flag()) {
        for (const char* column : {"ranks", "index"})
            intColumn(in, b, std::string("/thread_table/") + column,
                      std::string(column) == "ranks" ? ranks : index);
        for (const char* column : {"ident", "native_id", "daemon", "start_ns", "end_ns", "cpu_ns"})
            if (in.flag())
                intColumn(in, b, std::string("/thread_table/") + column, times);
        stringColumn(in, b, "/thread_table/name", threads);
    }
    ThreadRows rows;
    for (std::size_t i = 0; i < threads; ++i)
        rows.emplace_back(ranks[i], index[i]);
    const std::size_t tasks = in.inRange<std::size_t>(0, 4);
    if (tasks == 0)
        return rows;
    std::vector<std::int64_t> taskIndex(tasks), threadIndex(tasks);
    for (std::size_t i = 0; i < tasks; ++i) {
        taskIndex[i] = std::int64_t(i);
        threadIndex[i] = in.inRange<std::int64_t>(-1, std::int64_t(threads));
    }
    intColumn(in, b, "/task_table/ranks", std::vector<std::int64_t>(tasks, 0));
    intColumn(in, b, "/task_table/index", taskIndex);
    intColumn(in, b, "/task_table/thread_index", threadIndex);
    for (const char* column : {"created_ns", "done_ns", "steps", "running_ns", "suspended_ns"})
        if (in.flag())
            intColumn(in, b, std::string("/task_table/") + column, taskIndex);
    for (const char* column : {"kind", "name", "coro_name"})
        stringColumn(in, b, std::string("/task_table/") + column, tasks);
    return rows;
}

void nvtxTables(FuzzInput& in, H5Builder& b)
{
    b.group("/spanscope");
    intAttribute(in, b, "/spanscope", "format_version", 1);
    stringAttribute(in, b, "/spanscope", "writer", "spanscope fuzz");
    if (!in.flag())
        return;
    const std::string g = "/spanscope/nvtx/";
    const std::size_t domains = in.inRange<std::size_t>(0, 3);
    std::vector<std::int64_t> domainIds(domains);
    for (std::size_t i = 0; i < domains; ++i)
        domainIds[i] = std::int64_t(i + 1);
    intColumn(in, b, g + "domain_ids", domainIds);
    stringColumn(in, b, g + "domain_names", domains);
    const std::size_t categories = in.inRange<std::size_t>(0, 3);
    intColumn(in, b, g + "category_domains", std::vector<std::int64_t>(categories, 1));
    intColumn(in, b, g + "category_ids", std::vector<std::int64_t>(categories, 7));
    stringColumn(in, b, g + "category_names", categories);
    // Per call: the file's events are few (columnar above); lengths may not match them.
    const std::size_t calls = in.inRange<std::size_t>(0, 24);
    std::vector<std::int64_t> small(calls);
    for (auto& v : small)
        v = in.inRange(0, 3);
    intColumn(in, b, g + "call_domains", small);
    intColumn(in, b, g + "call_categories", small);
    intColumn(in, b, g + "closed_at_end", small);
    const std::size_t marks = in.inRange<std::size_t>(0, 6);
    const auto times = ascending(in, marks, in.hostileInt());
    std::vector<std::int64_t> markSmall(marks);
    for (auto& v : markSmall)
        v = in.inRange(-1, 4);
    intColumn(in, b, g + "mark_times", times);
    for (const char* column : {"mark_threads", "mark_domains", "mark_categories", "mark_events", "mark_ranks"})
        intColumn(in, b, g + column, markSmall);
    stringColumn(in, b, g + "mark_messages", marks);
    if (in.flag()) {
        const std::size_t ends = in.inRange<std::size_t>(0, 4);
        intColumn(in, b, g + "cross_thread_end_events", std::vector<std::int64_t>(ends, 0));
        intColumn(in, b, g + "cross_thread_end_threads", std::vector<std::int64_t>(ends, 1));
    }
}

// An index into a table of `n` rows (0 when it has none: the reader must refuse it then).
std::int64_t indexInto(FuzzInput& in, std::size_t n)
{
    return n == 0 ? 0 : in.inRange<std::int64_t>(0, std::int64_t(n) - 1);
}

// /spanscope/gpu: region kinds, GPU tracks, the events placed on them, kernel and copy
// attributes, flows and devices, for a file of `shape`.
void gpuTables(FuzzInput& in, H5Builder& b, RegionShape shape)
{
    if (!in.flag())
        return;
    const std::string g = "/spanscope/gpu/";
    b.group("/spanscope/gpu");
    std::vector<std::int64_t> kinds(shape.regions);
    for (auto& k : kinds)
        k = in.inRange(0, 3);
    intColumn(in, b, g + "region_kinds", kinds);
    const std::size_t tracks = in.inRange<std::size_t>(0, 3);
    std::vector<std::int64_t> trackKinds(tracks), trackRanks(tracks), small(tracks);
    for (std::size_t i = 0; i < tracks; ++i) {
        trackKinds[i] = in.flag() ? 4 : 5; // GpuDevice, GpuStream
        small[i] = in.inRange(-1, 2);
    }
    intColumn(in, b, g + "track_kinds", trackKinds);
    intColumn(in, b, g + "track_ranks", trackRanks);
    for (const char* column : {"track_devices", "track_streams", "track_sort_keys"})
        intColumn(in, b, g + column, small);
    stringColumn(in, b, g + "track_names", tracks);
    const std::size_t placed = tracks == 0 ? 0 : in.inRange<std::size_t>(0, shape.events);
    std::vector<std::int64_t> eventIds(placed), eventTracks(placed);
    for (std::size_t i = 0; i < placed; ++i) {
        eventIds[i] = std::int64_t(i * shape.events / std::max<std::size_t>(placed, 1));
        eventTracks[i] = indexInto(in, tracks);
    }
    intColumn(in, b, g + "event_ids", eventIds);
    intColumn(in, b, g + "event_tracks", eventTracks);
    const std::size_t activities = in.inRange<std::size_t>(0, shape.events);
    std::vector<std::int64_t> events(activities), activityKinds(activities), values(activities), triples(3 * activities);
    for (std::size_t i = 0; i < activities; ++i) {
        events[i] = indexInto(in, shape.events);
        activityKinds[i] = in.inRange(0, 2); // other, kernel, copy
        values[i] = in.inRange(0, 5);
    }
    for (auto& v : triples)
        v = in.inRange(0, 1024);
    intColumn(in, b, g + "activity_events", events);
    intColumn(in, b, g + "activity_kinds", activityKinds);
    for (const char* column : {"activity_correlations", "activity_contexts", "activity_registers",
                               "activity_shared_bytes", "activity_copy_bytes", "activity_copy_kinds"})
        intColumn(in, b, g + column, values);
    intColumn(in, b, g + "activity_grid", triples);
    intColumn(in, b, g + "activity_block", triples);
    const std::size_t flows = in.inRange<std::size_t>(0, shape.events);
    std::vector<std::int64_t> from(flows), to(flows), flowKinds(flows);
    for (std::size_t i = 0; i < flows; ++i) {
        from[i] = indexInto(in, shape.events);
        to[i] = indexInto(in, shape.events);
        flowKinds[i] = in.inRange(0, 2);
    }
    intColumn(in, b, g + "flow_from", from);
    intColumn(in, b, g + "flow_to", to);
    intColumn(in, b, g + "flow_kinds", flowKinds);
    const std::size_t devices = in.inRange<std::size_t>(0, 2);
    std::vector<std::int64_t> deviceIds(devices), deviceValues(devices);
    for (std::size_t i = 0; i < devices; ++i) {
        deviceIds[i] = std::int64_t(i);
        deviceValues[i] = in.inRange(0, 132);
    }
    intColumn(in, b, g + "device_ids", deviceIds);
    stringColumn(in, b, g + "device_names", devices);
    for (const char* column : {"device_memory_bytes", "device_multiprocessors", "device_compute_major",
                               "device_compute_minor", "device_warp_size"})
        intColumn(in, b, g + column, deviceValues);
}

// /spanscope/counters and /spanscope/alloc: counter series with their samples, single
// allocations and per-(thread, region) counts with their size bins.
void counterAndAllocationTables(FuzzInput& in, H5Builder& b, RegionShape shape, const ThreadRows& threadRows)
{
    if (in.flag()) {
        const std::string g = "/spanscope/counters/";
        b.group("/spanscope/counters");
        const std::size_t counters = in.inRange<std::size_t>(0, 3);
        std::vector<std::int64_t> ranks(counters), devices(counters);
        for (auto& v : devices)
            v = in.inRange(-1, 1);
        intColumn(in, b, g + "ranks", ranks);
        intColumn(in, b, g + "devices", devices);
        stringColumn(in, b, g + "names", counters);
        stringColumn(in, b, g + "units", counters);
        const std::size_t samples = counters == 0 ? 0 : in.inRange<std::size_t>(0, 12);
        std::vector<std::int64_t> sampleCounters(samples);
        for (auto& v : sampleCounters)
            v = indexInto(in, counters);
        intColumn(in, b, g + "sample_counters", sampleCounters);
        intColumn(in, b, g + "sample_times", ascending(in, samples, in.hostileInt()));
        std::vector<double> values(hostileLength(in, samples));
        for (auto& v : values)
            v = double(in.hostileInt()) / double(1 + in.byte());
        b.doubles(g + "sample_values", values);
    }
    if (!in.flag())
        return;
    const std::string g = "/spanscope/alloc/";
    b.group("/spanscope/alloc");
    // Device memory no thread asked for sits on its GPU's track: no thread table needed.
    const std::size_t n = in.inRange<std::size_t>(0, 8);
    std::vector<std::int64_t> ranks(n), threads(n, -1), devices(n), bytes(n);
    for (std::size_t i = 0; i < n; ++i) {
        devices[i] = in.inRange(0, 1);
        bytes[i] = in.byte() % 8 == 0 ? in.hostileInt() : in.inRange<std::int64_t>(-4096, 4096);
    }
    intColumn(in, b, g + "event_ranks", ranks);
    intColumn(in, b, g + "event_threads", threads);
    intColumn(in, b, g + "event_devices", devices);
    intColumn(in, b, g + "event_times", ascending(in, n, in.hostileInt()));
    intColumn(in, b, g + "event_addresses", bytes);
    intColumn(in, b, g + "event_bytes", bytes);
    const std::size_t m = in.inRange<std::size_t>(0, 4);
    std::vector<std::int64_t> countedRanks(m), countedThreads(m), regions(m), counts(m), bins(m * 64);
    for (std::size_t i = 0; i < m; ++i) {
        const std::int64_t t = indexInto(in, threadRows.size());
        if (!threadRows.empty())
            std::tie(countedRanks[i], countedThreads[i]) = threadRows[std::size_t(t)];
        regions[i] = in.inRange<std::int64_t>(-1, std::int64_t(shape.regions) - 1);
        counts[i] = in.inRange(0, 100);
    }
    for (auto& v : bins)
        v = in.byte() % 16 == 0 ? in.inRange(0, 5) : 0;
    intColumn(in, b, g + "counted_ranks", countedRanks);
    intColumn(in, b, g + "counted_threads", countedThreads);
    intColumn(in, b, g + "counted_regions", regions);
    for (const char* column : {"counted_allocations", "counted_bytes", "counted_frees"})
        intColumn(in, b, g + column, counts);
    intColumn(in, b, g + "counted_bin_allocations", bins);
    intColumn(in, b, g + "counted_bin_bytes", bins);
}

} // namespace

void writeHostileRegionFile(FuzzInput& in, const std::string& path)
{
    H5Builder b(path);
    regionPart(in, b, false);
}

void writeHostileCaptureFile(FuzzInput& in, const std::string& path)
{
    H5Builder b(path);
    const RegionShape shape = regionPart(in, b, true);
    const ThreadRows threads = laneTables(in, b);
    nvtxTables(in, b);
    gpuTables(in, b, shape);
    counterAndAllocationTables(in, b, shape, threads);
}

} // namespace spanscope::fuzz
