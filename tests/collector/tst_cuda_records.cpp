// The CUDA half without a GPU: CUPTI activity records built from the CUDA 13 headers go
// through the collector's translation, the wire encoding, the decoder and the assembler,
// and come out as GPU tracks, launch flows, GPU time of NVTX ranges and a GPU summary.
#include "cuda/cupti_translate.h"
#include "model/live/nvtx_assembler.h"
#include "model/live/process_merge.h"
#include "model/gpu/gpu_activity.h"
#include "model/gpu/launch_gpu_time.h"
#include "model/stats/gpu_summary.h"
#include "model/capture_loader.h"
#include "model/io/capture_writer.h"
#include "model/io/region_file_reader.h"
#include "model/report/json_writer.h"
#include "model/report/summary_report.h"
#include "protocol/spanscope_decoder.h"
#include "support/counter_checks.h"
#include "support/h5_damage.h"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <QTest>

#include <cstring>
#include <map>
#include <string>

using namespace spanscope;
using namespace spanscope::protocol;
using collector::cuda::ActivityOut;
using collector::cuda::translateActivity;

namespace {

template <typename T> void appendPod(std::string& out, const T& v)
{
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// What the collector would write: string definitions and records, CUPTI's clock shifted by
// kClockOffsetNs onto the host's.
class StreamOut final : public ActivityOut
{
public:
    static constexpr std::int64_t kClockOffsetNs = 1'000'000;

    std::uint32_t intern(std::string_view text) override
    {
        if (text.empty())
            return 0;
        auto [it, added] = m_ids.try_emplace(std::string(text), std::uint32_t(m_ids.size() + 1));
        if (added) {
            StringDefRecord r{};
            r.header = {std::uint16_t(RecordType::StringDef), std::uint16_t(stringDefSize(std::uint32_t(text.size())))};
            r.id = it->second;
            r.length = std::uint32_t(text.size());
            appendPod(bytes, r);
            bytes.append(text);
            bytes.append(r.header.size - sizeof r - text.size(), '\0');
        }
        return it->second;
    }
    std::uint32_t apiName(CudaApiKind api, std::uint32_t cbid) override
    {
        // The names CUPTI's cuptiGetCallbackName gives, version suffix and all.
        if (api == CudaApiKind::Runtime && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
            return intern(collector::cuda::withoutVersionSuffix("cudaLaunchKernel_v7000"));
        if (api == CudaApiKind::Runtime && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020)
            return intern(collector::cuda::withoutVersionSuffix("cudaMemcpyAsync_v3020"));
        if (api == CudaApiKind::Runtime && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020)
            return intern(collector::cuda::withoutVersionSuffix("cudaMalloc_v3020"));
        if (api == CudaApiKind::Driver && cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel)
            return intern("cuLaunchKernel");
        return intern("call " + std::to_string(cbid));
    }
    std::int64_t hostNs(std::uint64_t cuptiNs) override { return std::int64_t(cuptiNs) + kClockOffsetNs; }
    void write(const void* record, std::size_t size) override
    {
        bytes.append(static_cast<const char*>(record), size);
        ++records;
    }

    std::string bytes;
    int records = 0;

private:
    std::map<std::string, std::uint32_t> m_ids;
};

// A CUPTI record as the activity header CUPTI hands out (every record starts with its kind).
template <typename T> const CUpti_Activity& activity(const T& record)
{
    const void* any = &record;
    return *static_cast<const CUpti_Activity*>(any);
}

template <typename T> T zeroed(CUpti_ActivityKind kind)
{
    T t;
    std::memset(&t, 0, sizeof t);
    t.kind = kind;
    return t;
}

CUpti_ActivityKernel10 kernel(const char* name, std::uint64_t start, std::uint64_t end, std::uint32_t stream,
                              std::uint32_t correlation)
{
    auto k = zeroed<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    k.name = name;
    k.start = start;
    k.end = end;
    k.deviceId = 0;
    k.contextId = 1;
    k.streamId = stream;
    k.correlationId = correlation;
    k.gridX = 128, k.gridY = 2, k.gridZ = 1;
    k.blockX = 256, k.blockY = 1, k.blockZ = 1;
    k.registersPerThread = 40;
    k.staticSharedMemory = 1024;
    k.dynamicSharedMemory = 3072;
    return k;
}

CUpti_ActivityAPI runtimeCall(std::uint32_t cbid, std::uint64_t start, std::uint64_t end, std::uint32_t correlation)
{
    auto a = zeroed<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
    a.cbid = cbid;
    a.start = start;
    a.end = end;
    a.processId = 4321;
    a.threadId = 77;
    a.correlationId = correlation;
    return a;
}

std::string frame(FrameType type, const std::string& payload)
{
    FrameHeader h{};
    std::memcpy(h.magic, kMagic, 4);
    h.version = kVersion;
    h.type = std::uint16_t(type);
    h.payloadBytes = std::uint32_t(payload.size());
    std::string out;
    appendPod(out, h);
    return out + payload;
}

// A recorded CUDA job, as the collector writes it: a step range on thread 77 launches a
// kernel and a copy on stream 7 (named "compute") and allocates device memory; a device
// window measures the kernel.
std::string recordedCudaJob()
{
    StreamOut out;
    std::string payload;
    ClockCalibrationRecord cal{};
    setRecordHeader(cal, RecordType::ClockCalibration);
    cal.ticks = 0, cal.monotonicNs = 0, cal.ticksPerSecond = 1e9; // ticks are ns here
    appendPod(out.bytes, cal);
    auto device = zeroed<CUpti_ActivityDevice5>(CUPTI_ACTIVITY_KIND_DEVICE);
    device.id = 0, device.name = "NVIDIA H200", device.globalMemorySize = 141ull << 30;
    device.numMultiprocessors = 132, device.computeCapabilityMajor = 9, device.numThreadsPerWarp = 32;
    auto context = zeroed<CUpti_ActivityContext3>(CUPTI_ACTIVITY_KIND_CONTEXT);
    context.contextId = 1, context.deviceId = 0;
    for (const CUpti_Activity* a : {&activity(device),
                                    &activity(context)})
        translateActivity(*a, out);
    const std::uint32_t step = out.intern("step");
    const std::uint32_t compute = out.intern("compute");
    PushRecord push{};
    setRecordHeader(push, RecordType::Push);
    push.tid = 77, push.timestamp = 1'000'000, push.message = step;
    appendPod(out.bytes, push);
    CudaStreamNameRecord name{};
    setRecordHeader(name, RecordType::CudaStreamName);
    name.stream = 7, name.nameId = compute;
    appendPod(out.bytes, name);
    // CUPTI times (ns) are host times minus kClockOffsetNs.
    const auto launch = runtimeCall(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 10'000, 15'000, 1);
    const auto k = kernel("_Z7stencilv", 20'000, 80'000, 7, 1);
    // The driver call the runtime made for it, under the same correlation id.
    auto driverLaunch = runtimeCall(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 11'000, 14'000, 1);
    driverLaunch.kind = CUPTI_ACTIVITY_KIND_DRIVER;
    const auto copyCall = runtimeCall(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, 16'000, 18'000, 2);
    auto copy = zeroed<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
    copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, copy.bytes = 4096;
    copy.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED, copy.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    copy.start = 80'000, copy.end = 90'000, copy.streamId = 7, copy.contextId = 1, copy.correlationId = 2;
    const auto malloc = runtimeCall(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 5'000, 9'000, 3);
    auto alloc = zeroed<CUpti_ActivityMemory4>(CUPTI_ACTIVITY_KIND_MEMORY2);
    alloc.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
    alloc.address = 0x10000, alloc.bytes = 1 << 20, alloc.timestamp = 8'000, alloc.correlationId = 3;
    auto release = alloc;
    release.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
    release.timestamp = 95'000, release.correlationId = 0;
    auto sync = zeroed<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
    sync.start = 19'000, sync.end = 91'000, sync.contextId = 1, sync.streamId = 7;
    // Records arrive in CUPTI's buffer order, not by time.
    for (const CUpti_Activity* a :
         {&activity(k), &activity(driverLaunch), &activity(launch),
          &activity(copy), &activity(copyCall),
          &activity(malloc), &activity(alloc),
          &activity(release), &activity(sync)})
        translateActivity(*a, out);
    DeviceWindowRecord window{};
    setRecordHeader(window, RecordType::DeviceWindow);
    window.tid = 77, window.hostStartNs = 1'010'500, window.hostEndNs = 1'015'000;
    window.deviceStartNs = 1'020'000, window.deviceEndNs = 1'080'000, window.deviceDurationNs = 60'000;
    window.nameId = out.intern("stencil window");
    appendPod(out.bytes, window);
    PopRecord pop{};
    setRecordHeader(pop, RecordType::Pop);
    pop.tid = 77, pop.timestamp = 1'100'000;
    appendPod(out.bytes, pop);
    MetadataRecord status{};
    setRecordHeader(status, RecordType::Metadata);
    status.keyId = out.intern("cuda_activity");
    status.valueId = out.intern("recording (test)");
    appendPod(out.bytes, status);

    HelloPayload hello{4321, 0, 0};
    std::string hp;
    appendPod(hp, hello);
    const std::string stream = frame(FrameType::Hello, hp) + frame(FrameType::Data, out.bytes) + frame(FrameType::End, {});
    return stream;
}

std::shared_ptr<model::Capture> assemble(const std::string& stream)
{
    model::live::NvtxAssembler assembler;
    Decoder decoder(assembler);
    // In small pieces, as a socket delivers them.
    for (std::size_t at = 0; at < stream.size(); at += 37)
        if (!decoder.feed(stream.data() + at, std::min<std::size_t>(37, stream.size() - at)))
            qFatal("%s", decoder.error().c_str());
    if (!decoder.finish())
        qFatal("%s", decoder.error().c_str());
    assembler.finish();
    return assembler.snapshot();
}

} // namespace

class TstCudaRecords : public QObject
{
    Q_OBJECT

private slots:
    void kernelsKeepTheirShapeAndDemangledName()
    {
        StreamOut out;
        const auto k = kernel("_Z6matmulPKfS0_Pfi", 5000, 9000, 7, 42);
        QVERIFY(translateActivity(activity(k), out));
        QCOMPARE(out.records, 1);
        const std::size_t at = out.bytes.size() - sizeof(GpuKernelRecord);
        GpuKernelRecord r;
        std::memcpy(&r, out.bytes.data() + at, sizeof r);
        QCOMPARE(r.header.type, std::uint16_t(RecordType::GpuKernel));
        QCOMPARE(r.startNs, 5000 + StreamOut::kClockOffsetNs);
        QCOMPARE(r.endNs, 9000 + StreamOut::kClockOffsetNs);
        QCOMPARE(r.stream, 7u);
        QCOMPARE(r.correlation, 42u);
        QCOMPARE(r.grid[0], 128);
        QCOMPARE(r.grid[1], 2);
        QCOMPARE(r.block[0], 256);
        QCOMPARE(r.registersPerThread, 40u);
        QCOMPARE(r.sharedMemoryBytes, 4096u);
        // The name went out as a string definition before the record.
        QVERIFY(out.bytes.find("matmul(float const*, float const*, float*, int)") != std::string::npos);
    }

    void namesAndKindsNotCarried()
    {
        QCOMPARE(collector::cuda::demangle("_Z4gemmIfEvi"), std::string("void gemm<float>(int)"));
        QCOMPARE(collector::cuda::demangle("plain_c_kernel"), std::string("plain_c_kernel"));
        QCOMPARE(std::string(collector::cuda::withoutVersionSuffix("cuLaunchKernel_ptsz")), std::string("cuLaunchKernel_ptsz"));
        QCOMPARE(std::string(collector::cuda::withoutVersionSuffix("cudaMalloc_v3020")), std::string("cudaMalloc"));
        QCOMPARE(std::string(collector::cuda::withoutVersionSuffix("x_v")), std::string("x_v"));
        StreamOut out;
        const auto marker = zeroed<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
        QVERIFY(!translateActivity(activity(marker), out));
        QCOMPARE(out.records, 0);
    }

    void copiesMemsetsSyncsAndMemory()
    {
        StreamOut out;
        auto copy = zeroed<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
        copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
        copy.bytes = 1 << 20;
        copy.start = 100, copy.end = 300, copy.streamId = 9, copy.correlationId = 5;
        auto peer = zeroed<CUpti_ActivityMemcpyPtoP4>(CUPTI_ACTIVITY_KIND_MEMCPY2);
        peer.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
        peer.bytes = 4096, peer.srcDeviceId = 1, peer.dstDeviceId = 2, peer.deviceId = 1;
        auto set = zeroed<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET);
        set.value = 0xab, set.bytes = 64, set.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
        auto sync = zeroed<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
        sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
        sync.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
        auto memory = zeroed<CUpti_ActivityMemory4>(CUPTI_ACTIVITY_KIND_MEMORY2);
        memory.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
        memory.address = 0x7000, memory.bytes = 256;
        auto invalid = memory;
        invalid.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_INVALID;
        for (const CUpti_Activity* a :
             {&activity(copy), &activity(peer),
              &activity(set), &activity(sync),
              &activity(memory), &activity(invalid)})
            QVERIFY(translateActivity(*a, out));
        QCOMPARE(out.records, 5); // the invalid memory operation is skipped
        std::size_t at = 0;
        GpuMemcpyRecord c;
        std::memcpy(&c, out.bytes.data() + at, sizeof c);
        QCOMPARE(c.copyKind, std::uint8_t(CopyDirection::DeviceToHost));
        QCOMPARE(c.bytes, std::uint64_t(1 << 20));
        at += sizeof c;
        GpuMemcpyRecord p;
        std::memcpy(&p, out.bytes.data() + at, sizeof p);
        QCOMPARE(p.copyKind, std::uint8_t(CopyDirection::PeerToPeer));
        QCOMPARE(p.srcDevice, 1);
        QCOMPARE(p.dstDevice, 2);
        at += sizeof p;
        GpuMemsetRecord m;
        std::memcpy(&m, out.bytes.data() + at, sizeof m);
        QCOMPARE(m.value, 0xabu);
        QCOMPARE(m.memoryKind, std::uint8_t(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED));
        // Named as Kineto names them; a kind newer than CUPTI 13's (or a hostile byte) is
        // Unknown, as is 0 from older collectors.
        std::string name;
        model::memsetName(name, m.memoryKind);
        QCOMPARE(name, std::string("Memset (Managed)"));
        model::memsetName(name, 200);
        QCOMPARE(name, std::string("Memset (Unknown)"));
        model::copyName(name, model::CopyKind::DeviceToHost, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 0);
        QCOMPARE(name, std::string("Memcpy DtoH (Device -> Unknown)"));
        at += sizeof m;
        CudaSyncRecord s;
        std::memcpy(&s, out.bytes.data() + at, sizeof s);
        QCOMPARE(s.type, 4u);
        QCOMPARE(s.stream, kNoStream);
        at += sizeof s;
        GpuMemoryRecord g;
        std::memcpy(&g, out.bytes.data() + at, sizeof g);
        QCOMPARE(g.operation, std::uint8_t(2));
        QCOMPARE(g.address, std::uint64_t(0x7000));
    }

    void assembledCaptureHasGpuTracksFlowsAndGpuTime()
    {
        const auto capture = assemble(recordedCudaJob());
        const model::Capture& c = *capture;
        QVERIFY(c.warnings.empty());

        // One kernel and one copy on stream 7 of GPU 0, both launched from step's calls.
        const model::GpuSummary gpu = model::summarizeGpu(c);
        QCOMPARE(gpu.devices.size(), size_t(1));
        QCOMPARE(gpu.devices[0].name, std::string("NVIDIA H200"));
        QCOMPARE(gpu.devices[0].streams.size(), size_t(1));
        const model::StreamActivity& s7 = gpu.devices[0].streams[0];
        QCOMPARE(s7.stream, int64_t(7));
        QCOMPARE(s7.kernels, uint64_t(1));
        QCOMPARE(s7.kernelNs, int64_t(60'000));
        QCOMPARE(s7.memcpys, uint64_t(1));
        QCOMPARE(s7.memcpyBytes, uint64_t(4096));
        QCOMPARE(gpu.launchesMatched, uint64_t(2));
        QCOMPARE(c.flows.size(), size_t(2));

        // The stream track carries the NVTX name; syncs and windows have tracks of their own.
        bool named = false, syncs = false, windows = false;
        for (const model::Track& t : c.tracks) {
            named |= t.kind == model::TrackKind::GpuStream && t.stream == 7 && c.strings.text(t.name) == "compute";
            syncs |= t.stream == 7 && c.strings.text(t.name) == "stream 7 syncs";
            windows |= t.kind == model::TrackKind::GpuDevice && c.strings.text(t.name) == "device windows";
        }
        QVERIFY(named);
        QVERIFY(syncs);
        QVERIFY(windows);

        // step's GPU time: its kernel and its copy (the seed's rule: work belongs to the range
        // open on the launching thread at launch time).
        auto regionEvent = [&](const std::string& name, model::RegionKind kind) -> int64_t {
            for (const auto& row : c.rows)
                if (c.regionName(row.region) == name && c.regionKind(row.region) == kind)
                    return int64_t(row.firstEvent);
            return -1;
        };
        const int64_t stepEvent = regionEvent("step", model::RegionKind::Cpu);
        QVERIFY(stepEvent >= 0);
        QCOMPARE(c.events.gpu[size_t(stepEvent)], int64_t(70'000));
        const int64_t launchEvent = regionEvent("cudaLaunchKernel", model::RegionKind::Cpu);
        QVERIFY(launchEvent >= 0);
        QCOMPARE(c.events.gpu[size_t(launchEvent)], int64_t(60'000));
        QCOMPARE(c.threadOfEvent(0, uint64_t(launchEvent)), c.threadOfEvent(0, uint64_t(stepEvent)));
        // The work is the runtime call's, not the driver call's that shares its id.
        const int64_t driverEvent = regionEvent("cuLaunchKernel", model::RegionKind::Cpu);
        QVERIFY(driverEvent >= 0);
        QCOMPARE(c.events.gpu[size_t(driverEvent)], int64_t(-1));
        QVERIFY(c.flows.outgoing(uint32_t(driverEvent)).empty());
        QCOMPARE(c.flows.outgoing(uint32_t(launchEvent)).size(), size_t(1));
        // The copy is named as PyTorch's profiler (Kineto) names it, so the two compare.
        QVERIFY(regionEvent("Memcpy HtoD (Pinned -> Device)", model::RegionKind::Memcpy) >= 0);
        const int64_t kernelEvent = regionEvent("stencil()", model::RegionKind::Kernel);
        QVERIFY(kernelEvent >= 0);
        QCOMPARE(c.events.start[size_t(kernelEvent)], int64_t(1'020'000));
        const auto row = c.gpuActivities.rowOf(uint32_t(kernelEvent));
        QVERIFY(row >= 0);
        QCOMPARE(c.gpuActivities.kernelShape(size_t(row))->block[0], 256u);
        QCOMPARE(c.gpuActivities.kernelShape(size_t(row))->sharedMemoryBytes, 4096u);

        // The window: on the device's clock, with the host's times alongside.
        const int64_t windowEvent = regionEvent("stencil window", model::RegionKind::GpuRange);
        QVERIFY(windowEvent >= 0);
        QCOMPARE(c.events.end[size_t(windowEvent)] - c.events.start[size_t(windowEvent)], int64_t(60'000));
        QCOMPARE(c.events.gpu[size_t(windowEvent)], int64_t(60'000));
        const std::string args = c.args.text(model::ArgsRef{c.events.args[size_t(windowEvent)]});
        QVERIFY2(args.find("\"host_ns\": 4500") != std::string::npos, args.c_str());

        // Device memory: the allocation belongs to cudaMalloc's thread, the counter peaks at 1 MiB.
        const auto allocations = model::summarizeAllocations(c);
        bool device0 = false;
        for (const auto& a : allocations)
            if (a.device == 0) {
                device0 = true;
                QCOMPARE(a.allocs, uint64_t(1));
                QCOMPARE(a.frees, uint64_t(1));
                QCOMPARE(a.peakBytes, int64_t(1 << 20));
            }
        QVERIFY(device0);
        QCOMPARE(c.track(c.allocations.track(0)).kind, model::TrackKind::Thread);

        const model::MetadataValue* cudaStatus = model::findMetadata(c.metadata, "cuda_activity");
        QVERIFY(cudaStatus);
        QCOMPARE(cudaStatus->text, std::string("recording (test)"));
    }

    // A live CUDA capture saved as a region file reads back with everything the summary,
    // the kernels table and the flows show; so does the raw stream opened as a file.
    void savedAndRawCapturesReadBackTheSame()
    {
        QTemporaryDir dir;
        const std::string stream = recordedCudaJob();
        const auto live = assemble(stream);
        // SPANSCOPE_KEEP_SPS=FILE keeps the recording (FILE) and the saved capture (FILE.h5),
        // to open them in the viewer and look, or to seed the fuzzers.
        const QByteArray keep = qgetenv("SPANSCOPE_KEEP_SPS");
        const std::string h5 = keep.isEmpty() ? dir.filePath("cuda.h5").toStdString() : keep.toStdString() + ".h5";
        const auto saved = model::io::writeCaptureFile(*live, h5);
        QVERIFY2(saved.ok(), saved.ok() ? "" : saved.error().toString().c_str());
        const std::string sps = keep.isEmpty() ? dir.filePath("cuda.sps").toStdString() : keep.toStdString();
        {
            QFile f(QString::fromStdString(sps));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(stream.data(), qint64(stream.size()));
        }
        auto summaryOf = [](const model::LoadedCapture& loaded) {
            model::report::JsonWriter json;
            model::report::summaryJson({*loaded.capture, *loaded.summary}, json);
            return QJsonDocument::fromJson(QByteArray::fromStdString(json.text())).object();
        };
        auto liveLoaded = model::analyzeCapture(live, {nullptr, 0, 1}, {});
        QVERIFY(liveLoaded);
        const QJsonObject before = summaryOf(*liveLoaded);
        model::LoadOptions withLanes; // and the GPU's derived lanes, made again from the file
        withLanes.timeline = true;
        for (const std::string& path : {h5, sps}) {
            auto loaded = model::loadCapture(path, nullptr, withLanes);
            QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
            const QJsonObject after = summaryOf(loaded.value());
            for (const char* key : {"regions", "pooled", "gpu", "allocations", "threads"})
                QVERIFY2(before.value(key) == after.value(key), (path + ": " + key).c_str());
            const model::Capture& c = *loaded.value().capture;
            QCOMPARE(c.flows.size(), live->flows.size());
            QCOMPARE(c.gpuActivities.size(), live->gpuActivities.size());
            QCOMPARE(c.devices.size(), size_t(1));
            QCOMPARE(c.strings.text(c.devices[0].name), std::string("NVIDIA H200"));
            QCOMPARE(c.tracks.size(), live->tracks.size());
            for (size_t t = 0; t < c.tracks.size(); ++t)
                QCOMPARE(model::trackTitle(c, model::TrackId{uint32_t(t)}),
                         model::trackTitle(*live, model::TrackId{uint32_t(t)}));
            // The lanes the live snapshot made as its work came are the file's, made whole.
            testing::checkSameCounters(c, *live);
            if (QTest::currentTestFailed())
                return;
        }
        QCOMPARE(summaryOf(*liveLoaded).value("gpu").toObject().value("launches_matched").toInt(), 2);

        // A damaged GPU table is a warning; the calls stay.
        testing::rewriteDataset(h5, "/spanscope/gpu/flow_from", {0, 999999});
        auto damaged = model::io::readRegionFile(h5);
        QVERIFY(damaged.ok());
        bool warned = false;
        for (const auto& w : damaged.value()->warnings)
            warned |= w.message.find("the GPU tables cannot be read and are left out") == 0 &&
                      w.message.find("a flow names an event that does not exist") != std::string::npos;
        QVERIFY(warned);
        QCOMPARE(damaged.value()->events.size(), live->events.size());
        QVERIFY(damaged.value()->flows.empty());
    }

    // Two CUDA processes of one job: each keeps its GPU tracks, launches and devices.
    void mergedProcessesKeepTheirGpuWork()
    {
        const auto a = assemble(recordedCudaJob()), b = assemble(recordedCudaJob());
        const auto merged = model::live::mergeProcesses({{11, a}, {22, b}});
        QCOMPARE(merged->gpuActivities.size(), 2 * a->gpuActivities.size());
        QCOMPARE(merged->flows.size(), 2 * a->flows.size());
        QCOMPARE(merged->devices.size(), size_t(1));
        const model::GpuSummary gpu = model::summarizeGpu(*merged);
        QCOMPARE(gpu.launchesMatched, uint64_t(4));
        // A device's work is per process (rank): each process's GPU 0 with its own stream.
        QCOMPARE(gpu.devices.size(), size_t(2));
        for (const auto& device : gpu.devices) {
            QCOMPARE(device.device, gpu.devices[0].device);
            QCOMPARE(device.streams.size(), size_t(1));
            QCOMPARE(device.streams[0].kernels, uint64_t(1));
        }
        QVERIFY(gpu.devices[0].rank != gpu.devices[1].rank);
        for (size_t f = 0; f < merged->flows.size(); ++f) {
            // A launch and its work are in the same process.
            uint32_t rowFrom = 0, rowTo = 0;
            for (uint32_t r = 0; r < merged->rows.size(); ++r) {
                const auto& row = merged->rows[r];
                if (merged->flows.from(f) >= row.firstEvent && merged->flows.from(f) < row.firstEvent + row.count)
                    rowFrom = r;
                if (merged->flows.to(f) >= row.firstEvent && merged->flows.to(f) < row.firstEvent + row.count)
                    rowTo = r;
            }
            QCOMPARE(merged->rows[rowFrom].rank, merged->rows[rowTo].rank);
            QVERIFY(model::isGpuActivity(merged->regionKind(merged->rows[rowTo].region)));
        }
        for (const auto& row : merged->rows)
            if (model::isGpuActivity(merged->regionKind(row.region)))
                QCOMPARE(merged->track(merged->trackOfEvent(0, row.firstEvent)).kind, model::TrackKind::GpuStream);
    }

    // A stream cut in the middle of a frame opens with what came before the cut.
    void cutRawStreamOpensWithAWarning()
    {
        QTemporaryDir dir;
        const std::string stream = recordedCudaJob();
        const std::string path = dir.filePath("cut.sps").toStdString();
        {
            QFile f(QString::fromStdString(path));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(stream.data(), qint64(stream.size() - 100));
        }
        auto loaded = model::loadCapture(path);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        bool warned = false;
        for (const auto& w : loaded.value().capture->warnings)
            warned |= w.message.find("damaged or cut short") != std::string::npos;
        QVERIFY(warned);
        QVERIFY(loaded.value().capture->events.size() > 0);
    }

    // Hostile GPU records: ends before starts, times past the limit, unknown contexts.
    void hostileRecordsAreClampedAndCounted()
    {
        model::live::NvtxAssembler assembler;
        assembler.onHello({1, 0, 0});
        GpuKernelRecord k{};
        setRecordHeader(k, RecordType::GpuKernel);
        k.startNs = INT64_MAX, k.endNs = INT64_MIN, k.stream = kNoStream, k.device = -5;
        assembler.onGpuKernel(k);
        CudaSyncRecord s{};
        setRecordHeader(s, RecordType::CudaSync);
        s.context = 99, s.startNs = 10, s.endNs = 20;
        assembler.onCudaSync(s);
        GpuMemoryRecord m{};
        setRecordHeader(m, RecordType::GpuMemory);
        m.operation = 2, m.bytes = UINT64_MAX;
        assembler.onGpuMemory(m);
        CudaDroppedRecord d{};
        setRecordHeader(d, RecordType::CudaDropped);
        d.count = UINT64_MAX;
        assembler.onCudaDropped(d);
        assembler.onCudaDropped(d);
        assembler.finish();
        const auto c = assembler.snapshot();
        QCOMPARE(assembler.counts().endsBeforeStart, uint64_t(1));
        bool warned = false;
        for (const auto& w : c->warnings)
            warned |= w.message.find("CUPTI dropped") != std::string::npos;
        QVERIFY(warned);
        for (size_t e = 0; e < c->events.size(); ++e)
            QVERIFY(c->events.end[e] >= c->events.start[e]);
    }
};

QTEST_GUILESS_MAIN(TstCudaRecords)
#include "tst_cuda_records.moc"
