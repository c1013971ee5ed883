// The walker's handlers for each kind of event (trace_walker.h): what a complete event,
// an instant, a counter, a flow step, an async event or a metadata event adds to the
// trace's records.
#include "trace_walker.h"

#include "decimal_time.h"

#include "../../stats/saturating.h"

#include <algorithm>

namespace spanscope::model::io::chrome::walk {

namespace {

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

// Kineto's categories, compared without case: PyTorch 1.8 and 1.9 wrote "Kernel",
// "Memcpy", "Memset" and "Runtime" (and "Operator" for CPU ops), later ones "kernel",
// "gpu_memcpy", "gpu_memset", "cuda_runtime" and "cuda_driver".
bool sameCategory(std::string_view cat, std::string_view lowercase)
{
    return cat.size() == lowercase.size()
           && std::equal(cat.begin(), cat.end(), lowercase.begin(), [](char a, char b) {
                  return (a >= 'A' && a <= 'Z' ? char(a - 'A' + 'a') : a) == b;
              });
}

std::optional<RegionKind> gpuKindOfCategory(std::string_view cat)
{
    if (sameCategory(cat, "kernel"))
        return RegionKind::Kernel;
    if (sameCategory(cat, "gpu_memcpy") || sameCategory(cat, "memcpy"))
        return RegionKind::Memcpy;
    if (sameCategory(cat, "gpu_memset") || sameCategory(cat, "memset"))
        return RegionKind::Memset;
    // The CUPTI range profiler's ranges (a kernel each, or the user's ranges) with their
    // metrics as args: measured on the device.
    if (sameCategory(cat, "gpu_user_annotation") || sameCategory(cat, "cuda_profiler_range"))
        return RegionKind::GpuRange;
    return std::nullopt;
}

bool isLaunchCategory(std::string_view cat)
{
    return sameCategory(cat, "cuda_runtime") || sameCategory(cat, "cuda_driver") || sameCategory(cat, "runtime");
}

} // namespace

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
        if (sameCategory(f.cat, "cuda_profiler_range")) {
            // Kineto gives them the device as pid and no stream: device-wide ranges.
            const int64_t on = device.value_or(f.pid);
            if (on >= 0 && on <= INT32_MAX)
                slice.lane = m_records.lane({true, on, -1}, f.pid, f.tid);
            else
                slice.lane = cpuLane(f);
        } else if (device && stream && *device >= 0 && *device <= INT32_MAX)
            slice.lane = m_records.lane({true, *device, *stream}, f.pid, f.tid);
        else
            slice.lane = cpuLane(f); // device = pid, stream = tid, as Kineto writes them
        if (slice.kind != RegionKind::GpuRange)
            m_records.gpuActivities.push_back(activity);
    } else {
        slice.lane = cpuLane(f);
        if (m_records.spanscopeExport && f.args.find("\"spanscope.") != std::string_view::npos)
            readExtras(f.args, index);
        if (sameCategory(f.cat, "cuda_sync"))
            if (const auto stream = integerArg(f.args, "wait_on_stream"); stream && *stream >= 0)
                m_records.syncWaitStreams.emplace_back(index, *stream);
        if (isLaunchCategory(f.cat)) {
            m_records.kineto = true;
            if (const auto correlation = integerArg(f.args, "correlation"); correlation && *correlation > 0)
                m_records.launchCorrelations.emplace_back(index, uint64_t(*correlation));
        }
    }
    m_records.slices.push_back(slice);
}

std::optional<int64_t> Walker::integerArg(std::string_view raw, std::string_view wanted)
{
    sj::document doc;
    sj::object args;
    if (!openArgs(raw, doc, args))
        return std::nullopt;
    for (auto field : args) {
        std::string_view key;
        sj::value value;
        if (field.unescaped_key().get(key) || field.value().get(value))
            break;
        if (key == wanted)
            return integerOf(value);
    }
    return std::nullopt;
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
    // Kineto's launch flows: category "ac2g" since 2023, "async_cpu_to_gpu" in 2022 and
    // "async_gpu" before (PyTorch 1.x).
    const bool launch = f.cat == "ac2g" || f.cat == "async_cpu_to_gpu" || f.cat == "async_gpu";
    record.kind = launch                ? FlowKind::Launch
                  : f.cat == "fwdbwd" ? FlowKind::ForwardBackward
                  : f.cat == "sync"   ? FlowKind::Sync // spanscope's export of a runtime call -> its sync record
                                      : FlowKind::User;
    if (record.kind == FlowKind::Launch)
        if (const auto id = decimalToInt64(f.id); id && *id > 0)
            record.correlation = uint64_t(*id);
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

} // namespace spanscope::model::io::chrome::walk
