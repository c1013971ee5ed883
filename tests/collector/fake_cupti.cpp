// A stand-in for libcupti on a machine without a GPU (SPANSCOPE_CUPTI names it): the
// activity API the collector calls, delivering the records a kernel launch makes. It
// behaves as the real library does where the collector depends on it: buffers are asked
// for and handed back through the registered callbacks when flushed, timestamps come from
// the registered timestamp callback, and an API record names its thread by pthread_self()
// unless cuptiSetThreadIdType chose the system's thread ids (gettid), as CUPTI does.
//
// The program under test launches through fake_cupti_launch(), which this library exports.
#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <cupti_runtime_cbid.h>
#include <cupti_version.h>

#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace {

std::mutex g_mutex;
CUpti_BuffersCallbackRequestFunc g_request = nullptr;
CUpti_BuffersCallbackCompleteFunc g_complete = nullptr;
CUpti_TimestampCallbackFunc g_timestamp = nullptr;
CUpti_ActivityThreadIdType g_threadIdType = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
bool g_apiEnabled = false, g_kernelsEnabled = false;
std::vector<std::uint8_t> g_pending; // records not yet handed over, back to back
std::uint32_t g_nextCorrelation = 1;

const char kKernelName[] = "_Z10fakeKernelv";

std::uint64_t now()
{
    if (g_timestamp)
        return g_timestamp();
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return std::uint64_t(t.tv_sec) * 1'000'000'000u + std::uint64_t(t.tv_nsec);
}

std::size_t sizeOfRecord(CUpti_ActivityKind kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
        return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        return sizeof(CUpti_ActivityKernel10);
    default:
        return 0;
    }
}

template <typename Record> void queue(const Record& r)
{
    const std::size_t at = g_pending.size();
    g_pending.resize(at + sizeof r);
    std::memcpy(g_pending.data() + at, &r, sizeof r);
}

std::uint32_t threadId()
{
    return g_threadIdType == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM ? std::uint32_t(::syscall(SYS_gettid))
                                                                  : std::uint32_t(::pthread_self());
}

} // namespace

extern "C" {

// One cudaLaunchKernel on the calling thread whose kernel runs `gpuNs` on stream 7.
__attribute__((visibility("default"))) void fake_cupti_launch(std::uint64_t gpuNs)
{
    CUpti_ActivityAPI call{};
    call.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    call.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
    call.start = now();
    std::lock_guard lock(g_mutex);
    call.correlationId = g_nextCorrelation++;
    call.processId = std::uint32_t(::getpid());
    call.threadId = threadId();
    call.end = now();
    if (g_apiEnabled)
        queue(call);
    if (!g_kernelsEnabled)
        return;
    CUpti_ActivityKernel10 kernel{};
    kernel.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    kernel.start = call.end + 1000;
    kernel.end = kernel.start + gpuNs;
    kernel.correlationId = call.correlationId;
    kernel.streamId = 7;
    kernel.gridX = kernel.gridY = kernel.gridZ = 1;
    kernel.blockX = 32;
    kernel.blockY = kernel.blockZ = 1;
    kernel.name = kKernelName;
    queue(kernel);
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                                    CUpti_BuffersCallbackCompleteFunc complete)
{
    std::lock_guard lock(g_mutex);
    g_request = request;
    g_complete = complete;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc callback)
{
    std::lock_guard lock(g_mutex);
    g_timestamp = callback;
    return CUPTI_SUCCESS;
}

// FAKE_CUPTI_NO_SYSTEM_THREAD_IDS=1: a platform without them.
CUptiResult CUPTIAPI cuptiSetThreadIdType(CUpti_ActivityThreadIdType type)
{
    if (type == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM && std::getenv("FAKE_CUPTI_NO_SYSTEM_THREAD_IDS"))
        return CUPTI_ERROR_NOT_SUPPORTED;
    std::lock_guard lock(g_mutex);
    g_threadIdType = type;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind)
{
    std::lock_guard lock(g_mutex);
    g_apiEnabled |= kind == CUPTI_ACTIVITY_KIND_RUNTIME;
    g_kernelsEnabled |= kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind)
{
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlushPeriod(uint32_t)
{
    return CUPTI_SUCCESS;
}

// Hands every pending record over in buffers of the collector's.
CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t)
{
    std::vector<std::uint8_t> records;
    CUpti_BuffersCallbackRequestFunc request = nullptr;
    CUpti_BuffersCallbackCompleteFunc complete = nullptr;
    {
        std::lock_guard lock(g_mutex);
        records.swap(g_pending);
        request = g_request;
        complete = g_complete;
    }
    std::size_t at = 0;
    while (at < records.size() && request && complete) {
        uint8_t* buffer = nullptr;
        size_t size = 0, maxRecords = 0;
        request(&buffer, &size, &maxRecords);
        if (!buffer)
            return CUPTI_ERROR_UNKNOWN;
        std::size_t used = 0;
        while (at < records.size()) {
            CUpti_ActivityKind kind{};
            std::memcpy(&kind, records.data() + at, sizeof kind);
            const std::size_t n = sizeOfRecord(kind);
            if (used + n > size)
                break;
            std::memcpy(buffer + used, records.data() + at, n);
            used += n;
            at += n;
        }
        if (used == 0)
            return CUPTI_ERROR_UNKNOWN; // a buffer too small for one record
        complete(nullptr, 0, buffer, size, used);
    }
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t* buffer, size_t validBufferSizeBytes, CUpti_Activity** record)
{
    std::size_t at = 0;
    if (*record) {
        const auto* current = reinterpret_cast<const std::uint8_t*>(*record);
        at = std::size_t(current - buffer) + sizeOfRecord((*record)->kind);
    }
    if (at >= validBufferSizeBytes)
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *record = reinterpret_cast<CUpti_Activity*>(buffer + at);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped)
{
    *dropped = 0;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult, const char** text)
{
    *text = "CUPTI_FAKE_RESULT";
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetVersion(uint32_t* version)
{
    *version = CUPTI_API_VERSION;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t* timestamp)
{
    *timestamp = now();
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char** name)
{
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API || cbid != CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
        return CUPTI_ERROR_INVALID_PARAMETER;
    *name = "cudaLaunchKernel_v7000";
    return CUPTI_SUCCESS;
}

} // extern "C"
