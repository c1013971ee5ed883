// The collector as a CUDA injection: the CUDA driver loads CUDA_INJECTION64_PATH when the
// job initializes CUDA and calls InitializeInjection; from there CUPTI's activity API
// records kernels, copies, memsets, API calls, syncs, device memory and overheads into
// buffers of ours, and each finished buffer becomes wire records (cupti_translate.h) in the
// thread buffer of whichever thread CUPTI hands it to (its own worker, or the sender when it
// asks CUPTI to flush). Nothing here runs on the job's threads but CUPTI's own hooks.
//
// Fails soft: without libcupti, a driver or a GPU, the capture's metadata says "CUDA
// activity unavailable: <reason>" and NVTX recording carries on untouched.
#include "cuda_injection.h"

#include "../collector.h"
#include "../collector_alloc.h"
#include "../collector_internal.h"
#include "../clock.h"
#include "cupti_library.h"
#include "cupti_translate.h"
#include "gpu_clock.h"
#include "spanscope/device_window_report.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace spanscope::collector::cuda {

namespace proto = spanscope::protocol;

namespace {

constexpr std::size_t kBufferBytes = 4u << 20;  // one CUPTI activity buffer
constexpr std::size_t kMaxBuffers = 64;         // 256 MiB at most; past it CUPTI drops (counted)
constexpr std::uint64_t kFlushIntervalNs = 250'000'000; // the live view lags the GPU by about this

// The activity kinds recorded. CONCURRENT_KERNEL is the one the capture cannot do without.
struct Kind
{
    CUpti_ActivityKind kind;
    const char* name;
};
constexpr Kind kKinds[] = {
    {CUPTI_ACTIVITY_KIND_DEVICE, "device"},
    {CUPTI_ACTIVITY_KIND_CONTEXT, "context"},
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "concurrent kernel"},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "memcpy"},
    {CUPTI_ACTIVITY_KIND_MEMCPY2, "peer memcpy"},
    {CUPTI_ACTIVITY_KIND_MEMSET, "memset"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, "runtime API"},
    {CUPTI_ACTIVITY_KIND_DRIVER, "driver API"},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "synchronization"},
    {CUPTI_ACTIVITY_KIND_MEMORY2, "memory"},
    {CUPTI_ACTIVITY_KIND_OVERHEAD, "overhead"},
};

// Process-wide state of the CUDA half. Allocated once and never freed: CUPTI's threads may
// call in until the process is gone.
struct CudaState
{
    CuptiLibrary cupti;
    std::atomic<bool> active{false};
    int pid = 0; // the process CUPTI was started in: a child forked without exec must not call it
    bool clockCallback = false; // CUPTI stamps records with CLOCK_MONOTONIC itself

    std::mutex poolMutex;
    std::vector<std::uint8_t*> freeBuffers;
    std::size_t buffers = 0; // allocated, free or in CUPTI's hands

    std::mutex namesMutex;
    std::unordered_map<std::string, std::uint32_t> kernelNames; // mangled -> string id
    std::map<std::pair<int, std::uint32_t>, std::uint32_t> apiNames; // (api, cbid) -> id

    std::mutex clockMutex; // the fallback clock map: the sender feeds it, buffer threads read
    GpuClockMap clock;
    std::uint64_t lastFlushNs = 0; // sender thread only
};

CudaState* g_state = nullptr;

std::uint64_t CUPTIAPI monotonicTimestamp()
{
    return monotonicNs();
}

// Writes translated records into the calling thread's buffer.
class BufferOut final : public ActivityOut
{
public:
    BufferOut(Collector& collector, ThreadBuffer& buffer, CudaState& state)
        : m_collector(collector), m_buffer(buffer), m_state(state)
    {
    }

    std::uint32_t intern(std::string_view text) override { return m_collector.strings().intern(text); }

    std::uint32_t kernelName(const char* mangled) override
    {
        if (!mangled)
            return 0;
        std::lock_guard lock(m_state.namesMutex);
        auto [it, added] = m_state.kernelNames.try_emplace(mangled, 0);
        if (added) // demangled once per kernel: the first sight pays, not every launch
            it->second = intern(demangle(mangled));
        return it->second;
    }

    std::uint32_t apiName(proto::CudaApiKind api, std::uint32_t cbid) override
    {
        std::lock_guard lock(m_state.namesMutex);
        auto [it, added] = m_state.apiNames.try_emplace({int(api), cbid}, 0);
        if (added) {
            const char* name = nullptr;
            const auto domain =
                api == proto::CudaApiKind::Runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
            if (m_state.cupti.getCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name)
                it->second = intern(withoutVersionSuffix(name));
            else
                it->second = intern((api == proto::CudaApiKind::Runtime ? "runtime call " : "driver call ")
                                    + std::to_string(cbid));
        }
        return it->second;
    }

    std::int64_t hostNs(std::uint64_t cuptiNs) override
    {
        if (m_state.clockCallback)
            return std::int64_t(cuptiNs);
        std::lock_guard lock(m_state.clockMutex);
        return m_state.clock.toHostNs(cuptiNs);
    }

    void write(const void* record, std::size_t size) override
    {
        proto::RecordHeader h;
        std::memcpy(&h, record, sizeof h);
        switch (static_cast<proto::RecordType>(h.type)) {
        case proto::RecordType::GpuKernel:
            return put<proto::GpuKernelRecord>(record, size);
        case proto::RecordType::GpuMemcpy:
            return put<proto::GpuMemcpyRecord>(record, size);
        case proto::RecordType::GpuMemset:
            return put<proto::GpuMemsetRecord>(record, size);
        case proto::RecordType::CudaApi:
            return put<proto::CudaApiRecord>(record, size);
        case proto::RecordType::CudaSync:
            return put<proto::CudaSyncRecord>(record, size);
        case proto::RecordType::GpuMemory:
            return put<proto::GpuMemoryRecord>(record, size);
        case proto::RecordType::CudaOverhead:
            return put<proto::CudaOverheadRecord>(record, size);
        case proto::RecordType::CudaDropped:
            return put<proto::CudaDroppedRecord>(record, size);
        case proto::RecordType::CudaDevice:
        case proto::RecordType::CudaContext:
            // Definitions: with the meta records, so they are never dropped and always
            // come before the work that names them.
            m_collector.appendMeta(record, size);
            return;
        default:
            return;
        }
    }

private:
    template <typename Record> void put(const void* record, std::size_t size)
    {
        if (size != sizeof(Record))
            return;
        m_buffer.emplace<Record>(0, [&](Record& r) { std::memcpy(&r, record, sizeof r); });
    }

    Collector& m_collector;
    ThreadBuffer& m_buffer;
    CudaState& m_state;
};

void CUPTIAPI bufferRequested(std::uint8_t** buffer, std::size_t* size, std::size_t* maxNumRecords)
{
    const CollectorAllocations quiet;
    *buffer = nullptr;
    *size = 0;
    *maxNumRecords = 0; // as many as fit
    CudaState& s = *g_state;
    std::lock_guard lock(s.poolMutex);
    if (!s.freeBuffers.empty()) {
        *buffer = s.freeBuffers.back();
        s.freeBuffers.pop_back();
    } else if (s.buffers < kMaxBuffers) {
        // CUPTI wants 8-byte alignment; a null buffer makes it drop records (and count them).
        *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
        if (*buffer)
            ++s.buffers;
    }
    if (*buffer)
        *size = kBufferBytes;
}

void CUPTIAPI bufferCompleted(CUcontext context, std::uint32_t streamId, std::uint8_t* buffer, std::size_t,
                              std::size_t validSize)
{
    const CollectorAllocations quiet;
    CudaState& s = *g_state;
    Collector* c = Collector::instance();
    ThreadBuffer* out = c && c->enabled() ? c->threadBuffer() : nullptr;
    if (out && buffer) {
        try {
            BufferOut sink(*c, *out, s);
            CUpti_Activity* record = nullptr;
            while (s.cupti.activityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS && record)
                translateActivity(*record, sink);
            std::size_t dropped = 0;
            if (s.cupti.activityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS && dropped > 0) {
                proto::CudaDroppedRecord r{};
                proto::setRecordHeader(r, proto::RecordType::CudaDropped);
                r.count = dropped;
                sink.write(&r, sizeof r);
            }
        } catch (...) {
            // Out of memory interning a name: this buffer's records are lost, the job goes on.
        }
    }
    if (buffer) {
        std::lock_guard lock(s.poolMutex);
        s.freeBuffers.push_back(buffer);
    }
}

// The fallback clock: a (CUPTI, CLOCK_MONOTONIC) pair, the host read bracketing CUPTI's.
void samplePair(CudaState& s)
{
    std::uint64_t cupti = 0;
    const std::uint64_t before = monotonicNs();
    if (s.cupti.getTimestamp(&cupti) != CUPTI_SUCCESS)
        return;
    const std::uint64_t after = monotonicNs();
    std::lock_guard lock(s.clockMutex);
    s.clock.addPair(cupti, before, after);
}

void publishClockResidual(CudaState& s)
{
    Collector* c = Collector::instance();
    if (!c || s.clockCallback)
        return;
    double residual = 0;
    {
        std::lock_guard lock(s.clockMutex);
        residual = s.clock.residualNs();
    }
    c->setMetadata("gpu_clock_residual_ns", std::to_string(std::llround(residual)));
}

// Sender thread, before each flush: every kFlushIntervalNs, CUPTI hands over what it has.
void senderHook()
{
    CudaState& s = *g_state;
    if (!s.active.load(std::memory_order_acquire) || ::getpid() != s.pid)
        return;
    if (Collector* c = Collector::instance(); !c || !c->enabled()) {
        // The viewer detached or the output failed: stop costing the job anything.
        s.active.store(false, std::memory_order_release);
        if (s.cupti.activityDisable)
            for (const Kind& kind : kKinds)
                s.cupti.activityDisable(kind.kind);
        s.cupti.activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); // buffers back to the pool
        return;
    }
    const std::uint64_t now = monotonicNs();
    if (now - s.lastFlushNs < kFlushIntervalNs)
        return;
    s.lastFlushNs = now;
    if (!s.clockCallback) {
        samplePair(s);
        publishClockResidual(s);
    }
    s.cupti.activityFlushAll(0);
}

// At exit, before the collector's own exit flush (registered later, so it runs earlier)
// and before the CUDA runtime tears down: everything CUPTI still holds.
void flushAtExit()
{
    CudaState* s = g_state;
    if (!s || !s->active.load(std::memory_order_acquire) || ::getpid() != s->pid)
        return;
    const CollectorAllocations quiet;
    if (!s->clockCallback) {
        samplePair(*s);
        publishClockResidual(*s);
    }
    s->cupti.activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

bool start(Collector& c)
{
    g_state = new CudaState;
    CudaState& s = *g_state;
    std::string error;
    if (!s.cupti.load(error)) {
        c.setMetadata("cuda_activity", "unavailable: " + error);
        return false;
    }
    // CLOCK_MONOTONIC stamps, the clock every other record ends up on. Must come before
    // any kind is enabled.
    s.clockCallback = s.cupti.activityRegisterTimestampCallback &&
                      s.cupti.activityRegisterTimestampCallback(&monotonicTimestamp) == CUPTI_SUCCESS;
    if (!s.clockCallback)
        samplePair(s);
    if (const CUptiResult r = s.cupti.activityRegisterCallbacks(&bufferRequested, &bufferCompleted);
        r != CUPTI_SUCCESS) {
        c.setMetadata("cuda_activity", "unavailable: cuptiActivityRegisterCallbacks failed: " + s.cupti.describe(r));
        return false;
    }
    // CUPTI names a call's thread by pthread_self() unless told otherwise, while every other
    // record names it by gettid(): the calls would land on tracks of their own, outside the
    // ranges that made them, and those ranges would get none of the GPU time they launched.
    // Must come before any kind is enabled.
    if (!s.cupti.setThreadIdType)
        c.setMetadata("cuda_thread_ids", "pthread ids: this libcupti lacks cuptiSetThreadIdType");
    else if (const CUptiResult r = s.cupti.setThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM); r != CUPTI_SUCCESS)
        c.setMetadata("cuda_thread_ids", "pthread ids: cuptiSetThreadIdType failed: " + s.cupti.describe(r));
    std::string missing;
    for (const Kind& kind : kKinds) {
        const CUptiResult r = s.cupti.activityEnable(kind.kind);
        if (r == CUPTI_SUCCESS)
            continue;
        if (kind.kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
            // The driver loads us, so it is normally there; when it is not (a test, or a
            // program that called us by hand), say so: CUPTI's own error is vague then.
            const bool driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD) != nullptr;
            c.setMetadata("cuda_activity", "unavailable: CUPTI could not record kernels: " + s.cupti.describe(r) +
                                               (driver ? "" : " (no CUDA driver is loaded in this process)"));
            return false;
        }
        missing += (missing.empty() ? "" : ", ") + std::string(kind.name) + " (" + s.cupti.describe(r) + ")";
    }
    if (s.cupti.activityFlushPeriod)
        s.cupti.activityFlushPeriod(unsigned(kFlushIntervalNs / 1'000'000));
    if (s.clockCallback) {
        // CUPTI itself places the GPU's timestamps on this clock; how well cannot be seen
        // from the host (device windows, on the GPU's own clock, are the cross-check).
        c.setMetadata("gpu_clock", "CUPTI timestamps on CLOCK_MONOTONIC (timestamp callback; CUPTI maps "
                                   "GPU times onto it, its error is not measured)");
    } else {
        c.setMetadata("gpu_clock", "CUPTI clock mapped to CLOCK_MONOTONIC by calibration pairs with drift correction");
    }
    const unsigned v = s.cupti.version;
    c.setMetadata("cuda_activity", "recording (CUPTI API version " + std::to_string(v) + ", " + s.cupti.path + ")");
    if (!missing.empty())
        c.setMetadata("cuda_activity_missing", missing);
    s.pid = ::getpid();
    s.active.store(true, std::memory_order_release);
    std::atexit(&flushAtExit);
    c.setSenderHook(&senderHook);
    return true;
}

} // namespace

bool initializeInjection() noexcept
{
    static std::once_flag once;
    static bool started = false;
    try {
        std::call_once(once, [] {
            const CollectorAllocations quiet;
            Collector* c = Collector::start();
            if (c && c->enabled())
                started = start(*c);
        });
    } catch (...) {
        return false;
    }
    return started;
}

void nameStream(void* stream, std::string_view name) noexcept
{
    CudaState* s = g_state;
    Collector* c = Collector::instance();
    if (!s || !c || !s->active.load(std::memory_order_acquire) || !s->cupti.getStreamIdEx || ::getpid() != s->pid)
        return;
    const CollectorAllocations quiet;
    std::uint32_t id = 0;
    // No context: CUPTI finds the stream's own. perThreadStream 0: a handle, not the
    // per-thread default stream.
    if (s->cupti.getStreamIdEx(nullptr, static_cast<CUstream>(stream), 0, &id) != CUPTI_SUCCESS)
        return;
    proto::CudaStreamNameRecord r{};
    proto::setRecordHeader(r, proto::RecordType::CudaStreamName);
    r.stream = id;
    r.nameId = c->strings().intern(name);
    if (r.nameId != 0)
        c->appendMeta(&r, sizeof r);
}

} // namespace spanscope::collector::cuda

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void)
{
    // The driver ignores the result; 1 says "initialized" as NVIDIA's samples do.
    return spanscope::collector::cuda::initializeInjection() ? 1 : 0;
}

extern "C" __attribute__((visibility("default"))) void
spanscope_report_device_window(const spanscope_device_window_report* report)
{
    using namespace spanscope::collector;
    namespace proto = spanscope::protocol;
    if (!report || report->size < sizeof(spanscope_device_window_report))
        return;
    Collector* c = Collector::instance();
    if (!c || !c->enabled())
        return;
    const CollectorAllocations quiet;
    ThreadBuffer* b = c->threadBuffer();
    if (!b)
        return;
    try {
        const std::uint32_t nameId = report->name ? c->strings().intern(report->name) : 0;
        b->emplace<proto::DeviceWindowRecord>(0, [&](proto::DeviceWindowRecord& r) {
            proto::setRecordHeader(r, proto::RecordType::DeviceWindow);
            r.tid = b->tid();
            r.hostStartNs = report->hostStartNs;
            r.hostEndNs = report->hostEndNs;
            r.deviceStartNs = report->deviceStartNs;
            r.deviceEndNs = report->deviceEndNs;
            r.deviceDurationNs = report->deviceDurationNs;
            r.device = report->device;
            r.nameId = nameId;
            r.stream = report->stream;
        });
    } catch (...) {
    }
}
