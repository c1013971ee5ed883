#include "cupti_translate.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <memory>

namespace spanscope::collector::cuda {

namespace proto = spanscope::protocol;

namespace {

template <typename Record> Record blank(proto::RecordType type)
{
    Record r;
    std::memset(&r, 0, sizeof r);
    proto::setRecordHeader(r, type);
    return r;
}

template <typename Record> void emit(ActivityOut& out, const Record& r)
{
    out.write(&r, sizeof r);
}

proto::CopyDirection directionOf(std::uint8_t copyKind)
{
    switch (copyKind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
        return proto::CopyDirection::HostToDevice;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
        return proto::CopyDirection::DeviceToHost;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
        return proto::CopyDirection::DeviceToDevice;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
        return proto::CopyDirection::HostToHost;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
        return proto::CopyDirection::PeerToPeer;
    default:
        return proto::CopyDirection::Unknown;
    }
}

// The fields every record of GPU work has (CUPTI's ids as they are: kNoStream, all ones,
// is never a stream id it hands out).
template <typename Record, typename Activity> void setWork(Record& r, const Activity& a, ActivityOut& out)
{
    r.device = std::int32_t(a.deviceId);
    r.startNs = out.hostNs(a.start);
    r.endNs = out.hostNs(a.end);
    r.context = a.contextId;
    r.stream = a.streamId;
    r.correlation = a.correlationId;
    r.graphId = a.graphId;
}

void kernelActivity(const CUpti_ActivityKernel10& k, ActivityOut& out)
{
    auto r = blank<proto::GpuKernelRecord>(proto::RecordType::GpuKernel);
    setWork(r, k, out);
    r.nameId = out.kernelName(k.name);
    r.grid[0] = k.gridX, r.grid[1] = k.gridY, r.grid[2] = k.gridZ;
    r.block[0] = k.blockX, r.block[1] = k.blockY, r.block[2] = k.blockZ;
    r.registersPerThread = k.registersPerThread;
    r.sharedMemoryBytes = std::uint32_t(k.staticSharedMemory) + std::uint32_t(k.dynamicSharedMemory);
    emit(out, r);
}

void copyActivity(const CUpti_ActivityMemcpy6& m, ActivityOut& out)
{
    auto r = blank<proto::GpuMemcpyRecord>(proto::RecordType::GpuMemcpy);
    setWork(r, m, out);
    r.copyKind = std::uint8_t(directionOf(m.copyKind));
    r.srcKind = m.srcKind;
    r.dstKind = m.dstKind;
    r.bytes = m.bytes;
    r.srcDevice = r.dstDevice = r.device;
    emit(out, r);
}

void peerCopy(const CUpti_ActivityMemcpyPtoP4& m, ActivityOut& out)
{
    auto r = blank<proto::GpuMemcpyRecord>(proto::RecordType::GpuMemcpy);
    setWork(r, m, out);
    r.copyKind = std::uint8_t(proto::CopyDirection::PeerToPeer);
    r.srcKind = m.srcKind;
    r.dstKind = m.dstKind;
    r.bytes = m.bytes;
    r.srcDevice = std::int32_t(m.srcDeviceId);
    r.dstDevice = std::int32_t(m.dstDeviceId);
    emit(out, r);
}

void memsetActivity(const CUpti_ActivityMemset4& m, ActivityOut& out)
{
    auto r = blank<proto::GpuMemsetRecord>(proto::RecordType::GpuMemset);
    setWork(r, m, out);
    r.value = m.value;
    r.bytes = m.bytes;
    r.memoryKind = std::uint8_t(m.memoryKind);
    emit(out, r);
}

void api(const CUpti_ActivityAPI& a, proto::CudaApiKind kind, ActivityOut& out)
{
    auto r = blank<proto::CudaApiRecord>(proto::RecordType::CudaApi);
    r.tid = a.threadId;
    r.startNs = out.hostNs(a.start);
    r.endNs = out.hostNs(a.end);
    r.correlation = a.correlationId;
    r.nameId = out.apiName(kind, a.cbid);
    r.api = std::uint32_t(kind);
    r.returnValue = std::int32_t(a.returnValue);
    emit(out, r);
}

void sync(const CUpti_ActivitySynchronization2& s, ActivityOut& out)
{
    auto r = blank<proto::CudaSyncRecord>(proto::RecordType::CudaSync);
    r.type = std::uint32_t(s.type);
    r.startNs = out.hostNs(s.start);
    r.endNs = out.hostNs(s.end);
    r.context = s.contextId;
    // CUPTI gives a context sync the stream id CUPTI_SYNCHRONIZATION_INVALID_VALUE.
    r.stream = s.type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE ? proto::kNoStream : s.streamId;
    r.correlation = s.correlationId;
    emit(out, r);
}

void memory(const CUpti_ActivityMemory4& m, ActivityOut& out)
{
    if (m.memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION &&
        m.memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
        return;
    auto r = blank<proto::GpuMemoryRecord>(proto::RecordType::GpuMemory);
    r.device = std::int32_t(m.deviceId);
    r.timeNs = out.hostNs(m.timestamp);
    r.address = m.address;
    r.bytes = m.bytes;
    r.context = m.contextId;
    r.stream = m.isAsync ? m.streamId : proto::kNoStream;
    r.correlation = m.correlationId;
    r.operation = m.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION ? 1 : 2;
    r.memoryKind = std::uint8_t(m.memoryKind);
    emit(out, r);
}

void device(const CUpti_ActivityDevice5& d, ActivityOut& out)
{
    auto r = blank<proto::CudaDeviceRecord>(proto::RecordType::CudaDevice);
    r.device = std::int32_t(d.id);
    r.totalMemoryBytes = std::int64_t(d.globalMemorySize);
    r.multiprocessors = std::int32_t(d.numMultiprocessors);
    r.computeMajor = std::int32_t(d.computeCapabilityMajor);
    r.computeMinor = std::int32_t(d.computeCapabilityMinor);
    r.warpSize = std::int32_t(d.numThreadsPerWarp);
    r.nameId = d.name ? out.intern(d.name) : 0;
    emit(out, r);
}

void context(const CUpti_ActivityContext3& c, ActivityOut& out)
{
    auto r = blank<proto::CudaContextRecord>(proto::RecordType::CudaContext);
    r.context = c.contextId;
    r.device = std::int32_t(c.deviceId);
    emit(out, r);
}

void overhead(const CUpti_ActivityOverhead3& o, ActivityOut& out)
{
    auto r = blank<proto::CudaOverheadRecord>(proto::RecordType::CudaOverhead);
    r.startNs = out.hostNs(o.start);
    r.endNs = out.hostNs(o.end);
    r.kind = std::uint32_t(o.overheadKind);
    r.device = -1;
    if (o.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || o.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS)
        r.tid = o.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? o.objectId.pt.threadId : 0;
    else if (o.objectKind == CUPTI_ACTIVITY_OBJECT_DEVICE || o.objectKind == CUPTI_ACTIVITY_OBJECT_CONTEXT ||
             o.objectKind == CUPTI_ACTIVITY_OBJECT_STREAM)
        r.device = std::int32_t(o.objectId.dcs.deviceId);
    emit(out, r);
}

} // namespace

std::uint32_t ActivityOut::kernelName(const char* mangled)
{
    return mangled ? intern(demangle(mangled)) : 0;
}

bool translateActivity(const CUpti_Activity& a, ActivityOut& out)
{
    switch (a.kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        kernelActivity(reinterpret_cast<const CUpti_ActivityKernel10&>(a), out);
        return true;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        copyActivity(reinterpret_cast<const CUpti_ActivityMemcpy6&>(a), out);
        return true;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
        peerCopy(reinterpret_cast<const CUpti_ActivityMemcpyPtoP4&>(a), out);
        return true;
    case CUPTI_ACTIVITY_KIND_MEMSET:
        memsetActivity(reinterpret_cast<const CUpti_ActivityMemset4&>(a), out);
        return true;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
        api(reinterpret_cast<const CUpti_ActivityAPI&>(a), proto::CudaApiKind::Runtime, out);
        return true;
    case CUPTI_ACTIVITY_KIND_DRIVER:
        api(reinterpret_cast<const CUpti_ActivityAPI&>(a), proto::CudaApiKind::Driver, out);
        return true;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        sync(reinterpret_cast<const CUpti_ActivitySynchronization2&>(a), out);
        return true;
    case CUPTI_ACTIVITY_KIND_MEMORY2:
        memory(reinterpret_cast<const CUpti_ActivityMemory4&>(a), out);
        return true;
    case CUPTI_ACTIVITY_KIND_DEVICE:
        device(reinterpret_cast<const CUpti_ActivityDevice5&>(a), out);
        return true;
    case CUPTI_ACTIVITY_KIND_CONTEXT:
        context(reinterpret_cast<const CUpti_ActivityContext3&>(a), out);
        return true;
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
        overhead(reinterpret_cast<const CUpti_ActivityOverhead3&>(a), out);
        return true;
    default:
        return false;
    }
}

std::string demangle(const char* name)
{
    if (!name)
        return {};
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> plain(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
    return status == 0 && plain ? std::string(plain.get()) : std::string(name);
}

std::string_view withoutVersionSuffix(std::string_view name)
{
    const std::size_t at = name.rfind("_v");
    if (at == std::string_view::npos || at + 2 == name.size())
        return name;
    for (std::size_t i = at + 2; i < name.size(); ++i)
        if (name[i] < '0' || name[i] > '9')
            return name;
    return name.substr(0, at);
}

} // namespace spanscope::collector::cuda
