#include "trace_walk.h"

#include "../../stats/saturating.h"
#include "decimal_time.h"
#include "json_values.h"
#include "trace_header.h"

#include <algorithm>
#include <cstring>
#include <simdjson.h>

namespace spanscope::model::io::chrome {

namespace sj = simdjson::ondemand;

namespace {

constexpr size_t kMaxNameBytes = 64 * 1024; // longer names are cut: a 2 GB "name" stays usable

CopyKind copyKindFromName(std::string_view name)
{
    struct Known
    {
        const char* text;
        CopyKind kind;
    };
    static constexpr Known known[] = {
        {"HtoD", CopyKind::HostToDevice},   {"DtoH", CopyKind::DeviceToHost},
        {"DtoD", CopyKind::DeviceToDevice}, {"HtoH", CopyKind::HostToHost},
        {"PtoP", CopyKind::PeerToPeer},     {"Peer", CopyKind::PeerToPeer}};
    for (const auto& k : known)
        if (name.find(k.text) != std::string_view::npos)
            return k.kind;
    return CopyKind::Unknown;
}

std::optional<RegionKind> gpuKindOfCategory(std::string_view cat)
{
    if (cat == "kernel")
        return RegionKind::Kernel;
    if (cat == "gpu_memcpy")
        return RegionKind::Memcpy;
    if (cat == "gpu_memset")
        return RegionKind::Memset;
    if (cat == "gpu_user_annotation")
        return RegionKind::GpuRange;
    return std::nullopt;
}

bool isLaunchCategory(std::string_view cat)
{
    return cat == "cuda_runtime" || cat == "cuda_driver";
}

// The fields of one event, as found in any order.
struct Fields
{
    std::string_view ph, cat, name, id, bp, scope, idScope, args;
    std::optional<int64_t> ts, dur;
    bool hasPid = false, hasTid = false, hasTs = false, hasDur = false, hasId = false,
         idGlobal = false;
    int64_t pid = 0, tid = 0;
    std::string bad; // why the event cannot be used, empty if it can
};

class Walker
{
public:
    Walker(JsonInput& input, const std::string& path, Capture& capture, TraceRecords& records,
           const ChromeImportOptions& options, const ProgressRange& progress)
        : m_input(input), m_path(path), m_capture(capture), m_records(records), m_options(options),
          m_progress(progress)
    {
    }

    Status run();

private:
    void walkEvents(sj::array events);
    void readFields(sj::object event, Fields& f);
    void handle(const Fields& f, size_t offset);
    int64_t keyOf(sj::value value, bool& ok);
    uint32_t intern(std::string_view text)
    {
        if (text.size() > kMaxNameBytes) {
            std::string cut = std::string(utf8Prefix(text, kMaxNameBytes)) + "\xE2\x80\xA6";
            return m_capture.strings.intern(cut).value;
        }
        return m_capture.strings.intern(text).value;
    }
    uint64_t storeArgs(std::string_view raw)
    {
        if (!m_options.keepArgs || raw.size() <= 2)
            return ArgsRef::kNone;
        return m_capture.args.append(raw).packed;
    }
    // Parses an event's args object (raw text inside the input buffer) with the second
    // parser; false if it is not an object.
    bool openArgs(std::string_view raw, sj::document& doc, sj::object& object);
    void skip(const std::string& why, size_t offset);

    void complete(const Fields& f, size_t offset);
    void instant(const Fields& f);
    void readExtras(std::string_view rawArgs, uint32_t slice);
    void counter(const Fields& f);
    void flow(const Fields& f);
    void async(const Fields& f);
    void metadataEvent(const Fields& f);
    uint32_t cpuLane(const Fields& f)
    {
        return m_records.lane({false, f.pid, f.tid}, f.pid, f.tid);
    }
    const std::string& idKey(const Fields& f, bool processLocal);
    std::string m_key; // idKey()'s buffer

    JsonInput& m_input;
    const std::string& m_path;
    Capture& m_capture;
    TraceRecords& m_records;
    const ChromeImportOptions& m_options;
    const ProgressRange& m_progress;
    sj::parser m_parser, m_argsParser;
    std::unordered_map<std::string, int64_t> m_stringKeys;
    uint64_t m_events = 0;
    bool m_cancelled = false;
};

int64_t Walker::keyOf(sj::value value, bool& ok)
{
    std::string_view text;
    ok = scalarText(value, text);
    if (!ok)
        return 0;
    if (const auto number = decimalToInt64(text))
        return *number;
    // A string pid/tid ("Spans", "") gets a synthetic key far from any real id.
    auto [it, added] =
        m_stringKeys.try_emplace(std::string(text), INT64_MIN / 2 + int64_t(m_stringKeys.size()));
    if (added)
        m_records.stringPids[std::to_string(it->second)] = std::string(text);
    return it->second;
}

bool Walker::openArgs(std::string_view raw, sj::document& doc, sj::object& object)
{
    if (raw.empty())
        return false;
    const char* end = m_input.data() + m_input.capacity();
    const size_t capacity = size_t(end - raw.data());
    if (m_argsParser.iterate(raw.data(), raw.size(), capacity).get(doc))
        return false;
    return !doc.get_object().get(object);
}

void Walker::skip(const std::string& why, size_t offset)
{
    if (m_records.skippedEvents++ == 0)
        m_records.firstSkipped = why + " (event at byte " + std::to_string(offset) + ")";
}

void Walker::readFields(sj::object event, Fields& f)
{
    for (auto field : event) {
        // Keys compared where they lie (no unescaping): the format's keys have no escapes.
        sj::raw_json_string key;
        if (field.key().get(key)) {
            f.bad = "a key is not a valid string";
            return;
        }
        sj::value value;
        if (field.value().get(value)) {
            f.bad = "a value is not valid JSON";
            return;
        }
        // Dispatch on the key's first letter: a handful of comparisons at most per field.
        const char first = *key.raw();
        if (first == 'p' && key == "ph") {
            if (!stringText(value, f.ph))
                f.bad = "'ph' is not a string";
        } else if (first == 'n' && key == "name") {
            if (!scalarText(value, f.name))
                f.bad = "'name' is not a string";
        } else if (first == 'c' && key == "cat") {
            if (!scalarText(value, f.cat))
                f.bad = "'cat' is not a string";
        } else if (first == 'p' && key == "pid") {
            f.pid = keyOf(value, f.hasPid);
            if (!f.hasPid)
                f.bad = "'pid' is neither a number nor a string";
        } else if (first == 't' && key == "tid") {
            f.tid = keyOf(value, f.hasTid);
            if (!f.hasTid)
                f.bad = "'tid' is neither a number nor a string";
        } else if ((first == 't' && key == "ts") || (first == 'd' && key == "dur")) {
            const bool ts = first == 't';
            std::string_view text;
            std::optional<int64_t> ns;
            if (scalarText(value, text))
                ns = decimalMicrosToNs(text);
            // Bounded, so that every later sum or difference of two times fits.
            if (ns && (*ns > kTimeLimitNs || *ns < -kTimeLimitNs))
                ns.reset();
            if (!ns)
                f.bad = ts ? "'ts' is not a number of microseconds within ±73 years"
                           : "'dur' is not a number of microseconds within ±73 years";
            (ts ? f.ts : f.dur) = ns;
        } else if (first == 'a' && key == "args") {
            sj::object args;
            std::string_view raw;
            if (!value.get_object().get(args) && !args.raw_json().get(raw))
                f.args = trimmed(raw);
        } else if (first == 'i' && key == "id") {
            f.hasId = scalarText(value, f.id);
        } else if (first == 'i' && key == "id2") {
            sj::object id2;
            if (!value.get_object().get(id2))
                for (auto part : id2) {
                    std::string_view which;
                    sj::value idValue;
                    if (part.unescaped_key().get(which) || part.value().get(idValue))
                        break;
                    if (scalarText(idValue, f.id)) {
                        f.hasId = true;
                        f.idGlobal = which == "global";
                    }
                }
        } else if (first == 'b' && key == "bp") {
            if (!stringText(value, f.bp))
                f.bp = {};
        } else if (first == 's' && key == "s") {
            if (!stringText(value, f.scope))
                f.scope = {};
        } else if (first == 's' && key == "scope") {
            if (!scalarText(value, f.idScope))
                f.idScope = {};
        }
        if (!f.bad.empty())
            return;
    }
}

void Walker::walkEvents(sj::array events)
{
    const char* begin = m_input.data();
    for (auto element : events) {
        sj::value value;
        if (element.get(value))
            throw simdjson::simdjson_error(element.error());
        const char* at = value.raw_json_token().data();
        const size_t offset = size_t(at - begin);
        sj::object event;
        if (value.get_object().get(event)) {
            skip("an event is not an object", offset);
            continue;
        }
        Fields f;
        readFields(event, f);
        if (!f.bad.empty()) {
            skip(f.bad, offset);
            continue;
        }
        handle(f, offset);
        if ((++m_events & 4095) == 0) {
            m_progress.report(double(offset) / double(std::max<size_t>(1, m_input.size)));
            if (m_progress.cancelled()) {
                m_cancelled = true;
                return;
            }
        }
    }
}

void Walker::handle(const Fields& f, size_t offset)
{
    if (f.ph.empty()) {
        skip("an event has no 'ph'", offset);
        return;
    }
    const char phase = f.ph.size() == 1 ? f.ph[0] : '?';
    if (phase != 'M' && !f.ts) {
        skip("an event has no 'ts'", offset);
        return;
    }
    switch (phase) {
    case 'X':
        complete(f, offset);
        return;
    case 'B':
    case 'E': {
        RawBeginEnd record;
        record.ts = *f.ts;
        record.begin = phase == 'B';
        record.name = intern(f.name);
        record.cat = intern(f.cat);
        record.lane = cpuLane(f);
        record.args = storeArgs(f.args);
        record.order = m_records.nextOrder++;
        m_records.beginEnds.push_back(record);
        return;
    }
    case 'i':
    case 'I':
    case 'R':
        instant(f);
        return;
    case 'C':
        counter(f);
        return;
    case 's':
    case 't':
    case 'f':
        flow(f);
        return;
    case 'b':
    case 'e':
    case 'n':
    case 'S':
    case 'F':
        async(f);
        return;
    case 'M':
        metadataEvent(f);
        return;
    default:
        ++m_records.unknownPhases[std::string(f.ph.substr(0, 8))];
        return;
    }
}

void Walker::complete(const Fields& f, size_t offset)
{
    if (f.cat == "Trace") { // Kineto's span of the whole profiling window: not a region
        ++m_records.profilerSpans;
        return;
    }
    RawSlice slice;
    slice.start = *f.ts;
    if (f.dur && *f.dur >= 0)
        slice.end = slice.start + *f.dur; // both within ±kTimeLimitNs: cannot overflow
    else if (!f.dur)
        slice.end = slice.start - 1; // never closed: no duration recorded
    else {
        skip("'dur' is negative", offset);
        return;
    }
    slice.name = intern(f.name);
    slice.cat = intern(f.cat);
    slice.args = storeArgs(f.args);
    const auto gpuKind = gpuKindOfCategory(f.cat);
    const uint32_t index = uint32_t(m_records.slices.size());
    if (gpuKind) {
        m_records.kineto = true;
        slice.kind = *gpuKind;
        m_records.devicePids.insert(f.pid);
        std::optional<int64_t> device, stream;
        RawGpuActivity activity;
        activity.slice = index;
        KernelLaunchShape shape;
        bool shaped = false;
        sj::document doc;
        sj::object args;
        if (openArgs(f.args, doc, args)) {
            for (auto field : args) {
                sj::raw_json_string key;
                sj::value value;
                if (field.key().get(key) || field.value().get(value))
                    break;
                if (key == "device")
                    device = integerOf(value);
                else if (key == "stream")
                    stream = integerOf(value);
                else if (key == "correlation")
                    activity.correlation = uint64_t(integerOf(value).value_or(0));
                else if (key == "context")
                    activity.context = uint32_t(integerOf(value).value_or(0));
                else if (key == "registers per thread")
                    shape.registersPerThread =
                        uint16_t(std::clamp<int64_t>(integerOf(value).value_or(0), 0, 65535)),
                    shaped = true;
                else if (key == "shared memory")
                    shape.sharedMemoryBytes =
                        uint32_t(std::clamp<int64_t>(integerOf(value).value_or(0), 0, UINT32_MAX)),
                    shaped = true;
                else if (key == "bytes")
                    activity.copyBytes =
                        uint64_t(std::max<int64_t>(0, integerOf(value).value_or(0)));
                else if (key == "grid" || key == "block") {
                    sj::array dims;
                    if (value.get_array().get(dims))
                        continue;
                    uint32_t* target = key == "grid" ? shape.grid : shape.block;
                    size_t k = 0;
                    for (auto dim : dims) {
                        sj::value v;
                        if (dim.get(v))
                            break;
                        if (k < 3)
                            target[k++] = uint32_t(
                                std::clamp<int64_t>(integerOf(v).value_or(0), 0, UINT32_MAX));
                    }
                    shaped = true;
                }
            }
        }
        if (slice.kind == RegionKind::Kernel && shaped)
            activity.kernel = shape;
        if (slice.kind == RegionKind::Memcpy)
            activity.copyKind = copyKindFromName(f.name);
        if (slice.kind != RegionKind::Memcpy && slice.kind != RegionKind::Memset)
            activity.copyBytes.reset();
        else if (!activity.copyBytes)
            activity.copyBytes = 0;
        if (device && stream && *device >= 0 && *device <= INT32_MAX)
            slice.lane = m_records.lane({true, *device, *stream}, f.pid, f.tid);
        else
            slice.lane = cpuLane(f); // device = pid, stream = tid, as Kineto writes them
        if (slice.kind != RegionKind::GpuRange)
            m_records.gpuActivities.push_back(activity);
    } else {
        slice.lane = cpuLane(f);
        if (m_records.spanscopeExport && f.args.find("\"spanscope.") != std::string_view::npos)
            readExtras(f.args, index);
        if (isLaunchCategory(f.cat)) {
            m_records.kineto = true;
            sj::document doc;
            sj::object args;
            if (openArgs(f.args, doc, args))
                for (auto field : args) {
                    std::string_view key;
                    sj::value value;
                    if (field.unescaped_key().get(key) || field.value().get(value))
                        break;
                    if (key == "correlation") {
                        if (const auto correlation = integerOf(value);
                            correlation && *correlation > 0)
                            m_records.launchCorrelations.emplace_back(index,
                                                                      uint64_t(*correlation));
                        break;
                    }
                }
        }
    }
    m_records.slices.push_back(slice);
}

void Walker::readExtras(std::string_view raw, uint32_t slice)
{
    sj::document doc;
    sj::object args;
    if (!openArgs(raw, doc, args))
        return;
    RawCallExtras extras;
    extras.slice = slice;
    for (auto field : args) {
        sj::raw_json_string key;
        sj::value value;
        if (field.key().get(key) || field.value().get(value))
            break;
        if (key == "spanscope.gpu_ns")
            extras.gpuNs = integerOf(value).value_or(-1);
        else if (key == "spanscope.await_ns")
            extras.awaitNs = integerOf(value).value_or(0);
    }
    m_records.extras.push_back(extras);
}

void Walker::instant(const Fields& f)
{
    if (f.name == "[memory]") {
        RawMemory memory;
        memory.ts = *f.ts;
        memory.lane = cpuLane(f);
        int64_t deviceType = 0, deviceId = 0;
        sj::document doc;
        sj::object args;
        if (openArgs(f.args, doc, args))
            for (auto field : args) {
                sj::raw_json_string key;
                sj::value value;
                if (field.key().get(key) || field.value().get(value))
                    break;
                if (key == "Device Type")
                    deviceType = integerOf(value).value_or(0);
                else if (key == "Device Id")
                    deviceId = integerOf(value).value_or(0);
                else if (key == "Addr")
                    memory.address = uint64_t(integerOf(value).value_or(0));
                else if (key == "Bytes")
                    memory.bytes = integerOf(value).value_or(0);
                else if (key == "Total Allocated")
                    memory.totalAllocated = integerOf(value);
                else if (key == "Total Reserved")
                    memory.totalReserved = integerOf(value);
            }
        // c10::DeviceType: 1 is CUDA (ROCm builds report their GPUs as CUDA too).
        memory.device = deviceType == 1 && deviceId >= 0 && deviceId <= INT32_MAX
                            ? int32_t(deviceId)
                            : AllocationTable::kHost;
        m_records.memory.push_back(memory);
        return;
    }
    RawInstant record;
    record.ts = *f.ts;
    record.name = intern(f.name);
    record.lane = cpuLane(f);
    record.scope = f.scope == "g" ? 'g' : f.scope == "p" ? 'p' : 't';
    record.args = storeArgs(f.args);
    m_records.instants.push_back(record);
}

void Walker::counter(const Fields& f)
{
    sj::document doc;
    sj::object args;
    if (!openArgs(f.args, doc, args))
        return;
    std::string prefix(f.name);
    if (f.hasId)
        prefix += " " + std::string(f.id);
    for (auto field : args) {
        std::string_view key;
        sj::value value;
        if (field.unescaped_key().get(key) || field.value().get(value))
            break;
        const auto number = numberOf(value);
        if (!number)
            continue;
        // A single "value" series is the counter itself (spanscope's exports write it so).
        const std::string series = key == "value" ? prefix : prefix + " " + std::string(key);
        m_records.counters[{f.pid, series}].push_back({*f.ts, *number});
    }
}

const std::string& Walker::idKey(const Fields& f, bool processLocal)
{
    // `cat` and `scope` separate the id spaces of different sources; async ids are also
    // process-local unless id2.global says otherwise. Built in a reused buffer.
    std::string& key = m_key;
    key.assign(f.cat);
    key += '\x1f';
    key += f.idScope;
    key += '\x1f';
    key += f.id;
    if (processLocal && !f.idGlobal) {
        key += '\x1f';
        key += std::to_string(f.pid);
    }
    return key;
}

void Walker::flow(const Fields& f)
{
    if (!f.hasId) {
        ++m_records.unknownPhases["flow without id"];
        return;
    }
    RawFlow record;
    record.ts = *f.ts;
    record.phase = f.ph[0];
    record.lane = cpuLane(f);
    record.order = m_records.nextOrder++;
    // Chrome: a start or step binds to the slice enclosing it; a finish to the next slice
    // to begin, unless "bp": "e" binds it to the enclosing one.
    record.enclosing = record.phase != 'f' || f.bp == "e";
    record.kind = f.cat == "ac2g"     ? FlowKind::Launch
                  : f.cat == "fwdbwd" ? FlowKind::ForwardBackward
                                      : FlowKind::User;
    // Flow ids link events across processes (a CPU launch to its kernel on the GPU "pid").
    std::string& key = m_key;
    idKey(f, false);
    key += '\x1f';
    key += f.name;
    record.key = hashText(key);
    m_records.flows.push_back(record);
}

void Walker::async(const Fields& f)
{
    if (!f.hasId) {
        ++m_records.unknownPhases["async without id"];
        return;
    }
    RawAsync record;
    record.ts = *f.ts;
    record.phase = f.ph[0] == 'S' ? 'b' : f.ph[0] == 'F' ? 'e' : f.ph[0];
    record.name = intern(f.name);
    record.cat = intern(f.cat);
    record.pid = f.pid;
    record.args = storeArgs(f.args);
    record.order = m_records.nextOrder++;
    record.key = TraceRecords::keyOf(m_records.asyncKeys, m_records.asyncKeyOf, idKey(f, true));
    m_records.asyncs.push_back(record);
}

void Walker::metadataEvent(const Fields& f)
{
    sj::document doc;
    sj::object args;
    if (!openArgs(f.args, doc, args))
        return;
    for (auto field : args) {
        sj::raw_json_string key;
        sj::value value;
        if (field.key().get(key) || field.value().get(value))
            break;
        std::string_view text;
        const bool isText = scalarText(value, text);
        if (f.name == "process_name" && key == "name" && isText)
            m_records.processes[f.pid].name = std::string(text);
        else if (f.name == "process_labels" && key == "labels" && isText)
            m_records.processes[f.pid].labels = std::string(text);
        else if (f.name == "process_sort_index" && key == "sort_index")
            m_records.processes[f.pid].sortIndex = integerOf(value);
        else if (f.name == "spanscope_rank" && key == "rank")
            m_records.processes[f.pid].rank = integerOf(value);
        else if (f.name == "thread_name" && key == "name" && isText)
            m_records.threads[{f.pid, f.tid}].name = std::string(text);
        else if (f.name == "thread_sort_index" && key == "sort_index")
            m_records.threads[{f.pid, f.tid}].sortIndex = integerOf(value);
    }
}

// The Chrome array form may end without its ']' (a tracer that was stopped mid-write).
void closeOpenArray(JsonInput& input)
{
    std::string_view text = input.text();
    size_t first = 0;
    while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first])))
        ++first;
    if (first >= text.size() || text[first] != '[')
        return;
    size_t last = text.size();
    while (last > first && std::isspace(static_cast<unsigned char>(text[last - 1])))
        --last;
    if (text[last - 1] == ']')
        return;
    char* data = input.data();
    if (data[last - 1] == ',')
        data[last - 1] = ' ';
    data[input.size] = ']';
    ++input.size;
}

Status Walker::run()
{
    // Kineto writes about one event per 250 bytes, a bit more than half of them complete
    // events and a third flow ends. Room for more than that up front spares the copies of
    // growing vectors; a generous guess costs only untouched address space.
    const size_t expected = m_input.size / 200 + 16;
    m_records.slices.reserve(expected);
    m_records.flows.reserve(expected / 2);
    m_records.gpuActivities.reserve(expected / 3);
    m_records.launchCorrelations.reserve(expected / 3);
    closeOpenArray(m_input);
    const size_t before = m_records.slices.size();
    const char* begin = m_input.data();
    sj::document doc;
    auto iterateError = m_parser.iterate(m_input.data(), m_input.size, m_input.capacity()).get(doc);
    // A file cut short: parse what precedes the cut, and say so.
    const bool incomplete =
        iterateError == simdjson::UNCLOSED_STRING ||
        iterateError == simdjson::INCOMPLETE_ARRAY_OR_OBJECT ||
        (!iterateError && doc.type().error() == simdjson::INCOMPLETE_ARRAY_OR_OBJECT);
    if (incomplete) {
        const size_t fullSize = m_input.size;
        if (const auto cut = closeTruncatedJson(m_input)) {
            iterateError =
                m_parser.iterate(m_input.data(), m_input.size, m_input.capacity()).get(doc);
            if (!iterateError)
                m_records.warnings.push_back(
                    {"the file is cut short: it ends inside a value at byte " +
                         std::to_string(fullSize) + "; what came before byte " +
                         std::to_string(*cut) + " was read",
                     {}});
        }
    }
    if (iterateError)
        return Error{ErrorCode::Corrupt,
                     std::string("is not JSON: ") + simdjson::error_message(iterateError),
                     m_path,
                     {}};
    try {
        sj::json_type type = doc.type();
        if (type == sj::json_type::array) {
            walkEvents(doc.get_array());
        } else if (type == sj::json_type::object) {
            bool sawEvents = false;
            for (auto field : doc.get_object()) {
                std::string_view key = field.unescaped_key();
                sj::value value = field.value();
                if (key == "traceEvents") {
                    sawEvents = true;
                    walkEvents(value.get_array());
                    if (m_cancelled)
                        break;
                } else {
                    readTopLevel(key, value, m_capture, m_records);
                }
            }
            if (!sawEvents)
                return Error{ErrorCode::InvalidSchema,
                             "has no \"traceEvents\" array: this JSON is not a Chrome trace",
                             m_path,
                             {}};
        } else {
            return Error{ErrorCode::InvalidSchema,
                         "is JSON but neither an object nor an array of trace events",
                         m_path,
                         {}};
        }
    } catch (const simdjson::simdjson_error& error) {
        size_t offset = 0;
        const char* location = nullptr;
        if (!doc.current_location().get(location) && location >= begin)
            offset = size_t(location - begin);
        const uint64_t kept = m_events;
        if (kept == 0 && m_records.slices.size() == before)
            return Error{ErrorCode::Corrupt,
                         "is not a valid trace: " + std::string(error.what()) + " at byte " +
                             std::to_string(offset),
                         m_path,
                         {}};
        m_records.warnings.push_back({"the JSON is damaged or cut short near byte " +
                                          std::to_string(offset) + " (" + error.what() + "); the " +
                                          std::to_string(kept) + " events before it were read",
                                      {}});
    }
    if (m_cancelled)
        return Error{ErrorCode::Cancelled, "loading was cancelled", m_path, {}};
    return Ok{};
}

} // namespace

Status walkTrace(JsonInput& input, const std::string& path, Capture& capture, TraceRecords& records,
                 const ChromeImportOptions& options, const ProgressRange& progress)
{
    Walker walker(input, path, capture, records, options, progress);
    return walker.run();
}

} // namespace spanscope::model::io::chrome
