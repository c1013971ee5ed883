// CUDA activity of a live capture (the collector's CUDA injection, protocol version 4): GPU
// work becomes calls on GPU stream tracks, CUDA API calls become calls of their thread, and
// a launch links to the work it started by CUPTI's correlation id. From there everything
// the tracks model offers for traces (GPU time of CPU ranges, kernels table, flows, GPU
// memory) works for live captures too.
#include "../share_out.h"
#include "../stats/saturating.h"
#include "launch_table.h"
#include "nvtx_assembler.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace spanscope::model::live {

using namespace protocol;

namespace {

int64_t clampNs(int64_t ns)
{
    return std::clamp<int64_t>(ns, -kTimeLimitNs, kTimeLimitNs);
}

CopyKind copyKindOf(uint8_t direction)
{
    switch (static_cast<CopyDirection>(direction)) {
    case CopyDirection::HostToDevice:
        return CopyKind::HostToDevice;
    case CopyDirection::DeviceToHost:
        return CopyKind::DeviceToHost;
    case CopyDirection::DeviceToDevice:
        return CopyKind::DeviceToDevice;
    case CopyDirection::HostToHost:
        return CopyKind::HostToHost;
    case CopyDirection::PeerToPeer:
        return CopyKind::PeerToPeer;
    case CopyDirection::Unknown:
        break;
    }
    return CopyKind::Unknown;
}

// CUpti_ActivitySynchronizationType.
const char* syncName(uint32_t type)
{
    switch (type) {
    case 1:
        return "Event Synchronize";
    case 2:
        return "Stream Wait Event";
    case 3:
        return "Stream Synchronize";
    case 4:
        return "Context Synchronize";
    }
    return "Synchronize";
}

// CUpti_ActivityOverheadKind.
std::string overheadName(uint32_t kind)
{
    switch (kind) {
    case 1:
        return "CUPTI overhead: driver compiler";
    case 1u << 16:
        return "CUPTI overhead: buffer flush";
    case 2u << 16:
        return "CUPTI overhead: instrumentation";
    case 3u << 16:
        return "CUPTI overhead: resource";
    case 4u << 16:
        return "CUPTI overhead: module loading";
    case 5u << 16:
        return "CUPTI overhead: lazy function loading";
    case 6u << 16:
        return "CUPTI overhead: command buffer full";
    case 7u << 16:
        return "CUPTI overhead: activity buffer request";
    case 8u << 16:
        return "CUPTI overhead: unified memory init";
    }
    return "CUPTI overhead: kind " + std::to_string(kind);
}

} // namespace

uint32_t NvtxAssembler::regionOfKind(std::string_view name, RegionKind kind)
{
    if (kind == RegionKind::Cpu)
        return regionNamed(name);
    // Regions are keyed by (name, kind): a kernel and an NVTX range of one name are two.
    // Every kernel asks: the key is built in a kept buffer, so a hit allocates nothing.
    std::string& key = m_ingest->kindKey;
    key.assign(name);
    key += '\x1f';
    key += regionKindName(kind);
    if (auto it = m_ingest->regionOf.find(key); it != m_ingest->regionOf.end())
        return it->second;
    const auto region = uint32_t(m_regionNames.size());
    m_ingest->regionOf.emplace(key, region);
    m_regionNames.push_back(name);
    m_regionKinds.resize(m_regionNames.size(), RegionKind::Cpu);
    m_regionKinds.back() = kind;
    return region;
}

uint32_t NvtxAssembler::gpuTrackOf(int32_t device, int64_t stream, int lane)
{
    // Every piece of work asks, and a job's work alternates between a few streams: the
    // last track asked for is checked before the map.
    const std::tuple key{device, stream, lane};
    auto& last = m_ingest->lastGpuTrack;
    if (last && last->first == key)
        return last->second;
    auto [it, added] = m_ingest->gpuTrackOf.try_emplace(key, uint32_t(m_trackOwners.size()));
    if (added)
        m_trackOwners.push_back({kNoThread, device, stream, lane});
    last = *it;
    return it->second;
}

void NvtxAssembler::addCudaCall(int64_t start, int64_t end, uint32_t region, uint32_t thread,
                                const GpuWork& work)
{
    start = clampNs(start);
    end = clampNs(end);
    if (end < start) {
        ++m_counts.endsBeforeStart;
        end = start;
    }
    Call call;
    call.start = start;
    call.end = end;
    call.region = region;
    call.thread = call.endThread = thread;
    call.domain = kCudaDomain;
    call.open = false;
    call.gpu = uint32_t(m_gpuWork.size());
    GpuWork placed = work;
    placed.call = uint32_t(m_calls.size()); // appendCall's index for it
    if (thread == kNoThread) {
        const int64_t stream = work.stream == kNoStream ? -1 : int64_t(work.stream);
        switch (work.kind) {
        case GpuWorkKind::Kernel:
        case GpuWorkKind::Memcpy:
        case GpuWorkKind::Memset:
            placed.track = gpuTrackOf(work.device, stream, 0);
            break;
        case GpuWorkKind::Sync:
            placed.track = gpuTrackOf(work.device, stream, 1);
            break;
        case GpuWorkKind::Window:
            placed.track = gpuTrackOf(work.device, -1, 2);
            break;
        case GpuWorkKind::Api:
        case GpuWorkKind::Overhead:
            placed.track = gpuTrackOf(work.device, -1, 0);
            break;
        }
    }
    m_gpuWork.push_back(placed);
    const uint32_t index = appendCall(call);
    if (thread == kNoThread)
        listWork(call, index, placed.track);
    m_domainNames.try_emplace(kCudaDomain, "CUDA");
    seen(end);
}

void NvtxAssembler::onCudaDevice(const CudaDeviceRecord& r)
{
    if (!m_finished)
        m_cudaDevices[r.device] = {r, std::string(text(r.nameId))};
}

void NvtxAssembler::onCudaContext(const CudaContextRecord& r)
{
    if (!m_finished)
        m_contextDevice[r.context] = r.device;
}

uint32_t NvtxAssembler::kernelShapeIndex(const KernelLaunchShape& shape)
{
    // A job launches millions of kernels with a few shapes: each distinct shape is kept
    // once, so that a snapshot copies a few shapes instead of 32 bytes per kernel. A
    // stream of more distinct shapes than kMaxInternedShapes (hostile, or no two launches
    // alike) keeps the later ones one per kernel, as before.
    auto& shapeOf = m_ingest->shapeOf;
    auto& last = m_ingest->lastShape;
    const KernelShapeKey key{shape.grid[0],  shape.grid[1],  shape.grid[2],
                             shape.block[0], shape.block[1], shape.block[2],
                             shape.registersPerThread, shape.sharedMemoryBytes};
    if (last && last->first == key)
        return last->second;
    if (const auto found = shapeOf.find(key); found != shapeOf.end()) {
        last = *found;
        return found->second;
    }
    const auto index = uint32_t(m_kernelShapes.size());
    m_kernelShapes.push_back(shape);
    if (shapeOf.size() < kMaxInternedShapes) {
        shapeOf.emplace(key, index);
        last = {key, index};
    }
    return index;
}

void NvtxAssembler::onGpuKernel(const GpuKernelRecord& r)
{
    if (m_finished)
        return;
    KernelLaunchShape shape;
    for (int i = 0; i < 3; ++i) {
        shape.grid[i] = uint32_t(std::max(r.grid[i], 0));
        shape.block[i] = uint32_t(std::max(r.block[i], 0));
    }
    shape.registersPerThread = uint16_t(std::min<uint32_t>(r.registersPerThread, UINT16_MAX));
    shape.sharedMemoryBytes = r.sharedMemoryBytes;
    GpuWork work{GpuWorkKind::Kernel, r.device, r.stream, r.context, r.correlation, kernelShapeIndex(shape)};
    const std::string_view name = text(r.nameId);
    addCudaCall(r.startNs, r.endNs,
                regionOfKind(name.empty() ? std::string_view("(unnamed kernel)") : name, RegionKind::Kernel),
                kNoThread, work);
}

void NvtxAssembler::onGpuMemcpy(const GpuMemcpyRecord& r)
{
    if (m_finished)
        return;
    const CopyKind kind = copyKindOf(r.copyKind);
    GpuWork work{GpuWorkKind::Memcpy, r.device, r.stream, r.context, r.correlation, uint32_t(m_copies.size())};
    m_copies.emplace_back(r.bytes, kind);
    copyName(m_ingest->workName, kind, r.srcKind, r.dstKind);
    addCudaCall(r.startNs, r.endNs, regionOfKind(m_ingest->workName, RegionKind::Memcpy), kNoThread, work);
}

void NvtxAssembler::onGpuMemset(const GpuMemsetRecord& r)
{
    if (m_finished)
        return;
    GpuWork work{GpuWorkKind::Memset, r.device, r.stream, r.context, r.correlation};
    memsetName(m_ingest->workName, r.memoryKind);
    addCudaCall(r.startNs, r.endNs, regionOfKind(m_ingest->workName, RegionKind::Memset), kNoThread, work);
}

void NvtxAssembler::onCudaApi(const CudaApiRecord& r)
{
    if (m_finished)
        return;
    const std::string_view name = text(r.nameId);
    GpuWork work{GpuWorkKind::Api, -1, kNoStream, 0, r.correlation, r.api};
    addCudaCall(r.startNs, r.endNs, regionNamed(name.empty() ? std::string_view("(unnamed CUDA call)") : name),
                threadOf(r.tid), work);
}

void NvtxAssembler::onCudaSync(const CudaSyncRecord& r)
{
    if (m_finished)
        return;
    const auto device = m_contextDevice.find(r.context);
    GpuWork work{GpuWorkKind::Sync, device == m_contextDevice.end() ? -1 : device->second, r.stream, r.context,
                 r.correlation};
    addCudaCall(r.startNs, r.endNs, regionOfKind(syncName(r.type), RegionKind::GpuRange), kNoThread, work);
}

void NvtxAssembler::onGpuMemory(const GpuMemoryRecord& r)
{
    if (m_finished)
        return;
    const int64_t bytes = clampToInt64(r.bytes);
    m_gpuMemory.push_back({clampNs(r.timeNs), r.device, r.correlation, r.address, r.operation == 1 ? bytes : -bytes});
    seen(clampNs(r.timeNs));
}

void NvtxAssembler::onCudaStreamName(const CudaStreamNameRecord& r)
{
    if (!m_finished)
        m_streamNames[r.stream] = std::string(text(r.nameId));
}

void NvtxAssembler::onMetadata(const MetadataRecord& r)
{
    if (!m_finished)
        m_cudaMetadata[std::string(text(r.keyId))] = std::string(text(r.valueId));
}

void NvtxAssembler::onDeviceWindow(const DeviceWindowRecord& r)
{
    if (m_finished)
        return;
    // On the device's own clock when the API could place it on the host's (its anchor);
    // otherwise where the host enqueued it, with the device's duration.
    const bool placed = r.deviceStartNs >= 0 && r.deviceEndNs >= r.deviceStartNs;
    const int64_t start = placed ? r.deviceStartNs : r.hostStartNs;
    const int64_t end = placed ? r.deviceEndNs : addSaturating(clampNs(r.hostStartNs), clampNs(r.deviceDurationNs));
    GpuWork work{GpuWorkKind::Window, r.device, kNoStream, 0, 0, uint32_t(m_windowHostTimes.size())};
    m_windowHostTimes.emplace_back(clampNs(r.hostStartNs), clampNs(r.hostEndNs));
    const std::string_view name = text(r.nameId);
    addCudaCall(start, end, regionOfKind(name.empty() ? std::string_view("device window") : name, RegionKind::GpuRange),
                kNoThread, work);
}

void NvtxAssembler::onCudaDropped(const CudaDroppedRecord& r)
{
    m_cudaDropped = addSaturatingUnsigned(m_cudaDropped, r.count);
}

void NvtxAssembler::onCudaOverhead(const CudaOverheadRecord& r)
{
    if (m_finished)
        return;
    GpuWork work{GpuWorkKind::Overhead, r.device, kNoStream, 0, 0};
    if (r.tid != 0)
        addCudaCall(r.startNs, r.endNs, regionNamed(overheadName(r.kind)), threadOf(r.tid), work);
    else
        addCudaCall(r.startNs, r.endNs, regionOfKind(overheadName(r.kind), RegionKind::GpuRange), kNoThread, work);
}

Track NvtxAssembler::gpuTrack(Capture& c, const TrackOwner& owner) const
{
    Track t;
    t.kind = owner.stream < 0 ? TrackKind::GpuDevice : TrackKind::GpuStream;
    t.device = owner.device;
    t.stream = owner.stream;
    t.sortKey = owner.lane;
    std::string name;
    if (owner.stream >= 0)
        if (auto named = m_streamNames.find(uint32_t(owner.stream)); named != m_streamNames.end())
            name = named->second;
    if (owner.lane == 1)
        name = (owner.stream < 0 ? "GPU " + std::to_string(owner.device) : "stream " + std::to_string(owner.stream))
               + " syncs";
    else if (owner.lane == 2)
        name = "device windows";
    if (!name.empty())
        t.name = c.strings.intern(name);
    return t;
}

void NvtxAssembler::addGpuTables(Capture& c, const Column<uint32_t>& order, const Column<uint32_t>& eventOf,
                                 const std::vector<uint32_t>& rowKeys,
                                 const std::vector<std::pair<uint32_t, uint32_t>>& moved, uint64_t keptEvents,
                                 LayoutMemo::GpuTables& tables) const
{
    if (m_gpuWork.empty() && m_gpuMemory.empty() && m_cudaDevices.empty())
        return;
    auto& e = c.events;
    auto isActivity = [](GpuWorkKind kind) {
        return kind == GpuWorkKind::Kernel || kind == GpuWorkKind::Memcpy || kind == GpuWorkKind::Memset;
    };
    // What changes in the tables of the memo's snapshot (none where they are fresh): rows of
    // activities that moved, and launch flows of work that moved, whose launching call
    // moved, or whose id's launch changed (each ending at the work's event then).
    std::vector<uint32_t> removedActivities;
    std::vector<GpuActivityTable::Activity> addedActivities;
    std::vector<FlowTable::Flow> removedFlows, addedFlows;
    std::vector<std::pair<uint32_t, uint32_t>> flowsChanged; // (work, its event then)
    auto activity = [&](const GpuWork& w, uint32_t event) {
        GpuActivityTable::Activity a;
        a.event = event;
        a.correlation = w.correlation;
        a.context = w.context;
        if (w.kind == GpuWorkKind::Kernel)
            a.shape = w.detail;
        if (w.kind == GpuWorkKind::Memcpy) {
            a.copy = true;
            std::tie(a.bytes, a.copyKind) = m_copies[w.detail];
        }
        return a;
    };
    auto launchFlow = [&](const GpuWork& w) {
        if (const uint32_t launch = tables.launches.find(w.correlation); launch != LaunchTable::kNone)
            addedFlows.push_back({eventOf[launch], eventOf[w.call], FlowKind::Launch});
    };
    // The work taken in before that names `correlation` (newest first).
    auto workNaming = [&](uint32_t correlation, auto visit) {
        for (uint32_t w = tables.launches.lastWork(correlation); w != LaunchTable::kNone; w = tables.previousWork[w])
            if (w < tables.work)
                visit(w);
    };
    std::unordered_map<uint32_t, uint32_t> eventThen; // call -> its event in the memo's snapshot, where it moved
    for (const auto& [before, now] : moved) {
        const uint32_t call = order[now];
        eventThen.emplace(call, before);
        const Call& moving = m_calls[call];
        if (moving.gpu == kNotCuda)
            continue;
        const GpuWork& w = m_gpuWork[moving.gpu];
        if (moving.thread == kNoThread && isActivity(w.kind)) {
            removedActivities.push_back(before);
            addedActivities.push_back(activity(w, now));
            flowsChanged.emplace_back(moving.gpu, before);
        } else if (w.kind == GpuWorkKind::Api && tables.launches.find(w.correlation) == call) {
            workNaming(w.correlation, [&](uint32_t work) { flowsChanged.emplace_back(work, UINT32_MAX); });
        }
    }
    // The API calls that arrived since, in arrival order; then the work (its launch is then
    // the one the table settles on).
    LaunchChanges launchChanges; // for the GPU time of CPU calls
    launchChanges.workBefore = tables.work;
    for (size_t w = tables.work; w < m_gpuWork.size(); ++w)
        if (const GpuWork& work = m_gpuWork[w]; work.kind == GpuWorkKind::Api) {
            uint32_t before = LaunchTable::kNone;
            if (tables.launches.offer(work.correlation, work.call, work.detail == uint32_t(CudaApiKind::Runtime), &before))
                launchChanges.ids.emplace_back(work.correlation, before); // relaunched
        }
    // The GPU's derived lanes (model/gpu/gpu_lanes.h) take in what changed: each activity
    // taken in before whose launch changed, from the launch the lanes hold (the `before` of
    // its id's first change in this update) to the one it has now; then the activities that
    // arrived since.
    auto launchStart = [&](uint32_t call) {
        return call == LaunchTable::kNone ? GpuLaneBuilder::kNoLaunch : m_calls[call].start;
    };
    auto laneOf = [&](const GpuWork& w) -> const TrackOwner& { return m_trackOwners[w.track]; };
    std::unordered_set<uint32_t> relaunched;
    for (const auto& change : launchChanges.ids) {
        const uint32_t correlation = change.first; // not bindings: clang 14 lambdas cannot capture those
        workNaming(correlation, [&](uint32_t work) { flowsChanged.emplace_back(work, UINT32_MAX); });
        if (!relaunched.insert(correlation).second)
            continue;
        const int64_t before = launchStart(change.second), now = launchStart(tables.launches.find(correlation));
        workNaming(correlation, [&](uint32_t work) {
            const GpuWork& w = m_gpuWork[work];
            const TrackOwner& lane = laneOf(w);
            tables.lanes.relaunch(0, lane.device, lane.stream, m_calls[w.call].start, before, now);
        });
    }
    // Each piece of work's flow changes once: where it moved, from its event then.
    std::sort(flowsChanged.begin(), flowsChanged.end());
    for (size_t i = 0; i < flowsChanged.size(); ++i) {
        const auto [work, then] = flowsChanged[i];
        if (i > 0 && flowsChanged[i - 1].first == work)
            continue;
        const GpuWork& w = m_gpuWork[work];
        uint32_t before = then;
        if (before == UINT32_MAX) {
            const auto it = eventThen.find(w.call);
            before = it == eventThen.end() ? eventOf[w.call] : it->second;
        }
        for (const size_t row : tables.flows.incoming(before))
            if (tables.flows.kind(row) == FlowKind::Launch)
                removedFlows.push_back({tables.flows.from(row), before, FlowKind::Launch});
        launchFlow(w);
    }
    // The work that arrived since.
    tables.previousWork.resize(m_gpuWork.size(), LaunchTable::kNone);
    for (size_t i = tables.work; i < m_gpuWork.size(); ++i) {
        const GpuWork& w = m_gpuWork[i];
        if (!isActivity(w.kind))
            continue;
        tables.previousWork[i] = tables.launches.addWork(w.correlation, uint32_t(i));
        addedActivities.push_back(activity(w, eventOf[w.call]));
        const TrackOwner& lane = laneOf(w);
        tables.lanes.addActivity(0, lane.device, lane.stream, m_calls[w.call].start, m_calls[w.call].end,
                                 launchStart(tables.launches.find(w.correlation)));
        launchFlow(w);
        if (w.correlation != 0)
            launchChanges.ids.emplace_back(w.correlation, tables.launches.find(w.correlation));
    }
    tables.work = m_gpuWork.size();

    // Device windows: their host times as args.
    if (!m_windowHostTimes.empty()) {
        e.args.resize(e.size(), ArgsRef::kNone);
        for (const GpuWork& w : m_gpuWork) {
            if (w.kind != GpuWorkKind::Window)
                continue;
            const auto [hostStart, hostEnd] = m_windowHostTimes[w.detail];
            const Call& call = m_calls[w.call];
            e.args[eventOf[w.call]] = c.args
                                          .append("{\"host_start_ns\": " + std::to_string(hostStart) + ", \"host_end_ns\": "
                                                  + std::to_string(hostEnd) + ", \"host_ns\": "
                                                  + std::to_string(subtractSaturating(hostEnd, hostStart))
                                                  + ", \"device_ns\": "
                                                  + std::to_string(subtractSaturating(call.end, call.start)) + "}")
                                          .packed;
        }
        c.args.seal();
    }

    for (const auto& [id, device] : m_cudaDevices) {
        DeviceInfo info;
        info.device = id;
        info.name = c.strings.intern(device.name);
        info.totalMemoryBytes = device.record.totalMemoryBytes;
        info.multiprocessors = device.record.multiprocessors;
        info.computeMajor = device.record.computeMajor;
        info.computeMinor = device.record.computeMinor;
        info.warpSize = device.record.warpSize;
        c.devices.push_back(info);
    }

    // GPU memory: each allocation on the thread whose call made it (so the ranges open
    // there own it), and each device's memory in use as a counter.
    if (!m_gpuMemory.empty()) {
        std::vector<GpuMemoryEvent> memory(m_gpuMemory.begin(), m_gpuMemory.end());
        std::stable_sort(memory.begin(), memory.end(),
                         [](const GpuMemoryEvent& a, const GpuMemoryEvent& b) { return a.time < b.time; });
        // Memory no call is known to have made is on its device's own GPU track, made here
        // if the device's work has none (no event is on it).
        std::map<int32_t, TrackId> deviceTracks;
        auto deviceTrack = [&](int32_t device) {
            auto [it, added] = deviceTracks.try_emplace(device);
            if (!added)
                return it->second;
            for (size_t t = 0; t < m_trackOwners.size() && !it->second.valid(); ++t)
                if (m_trackOwners[t].gpu() && m_trackOwners[t].gpuKey() == std::tuple(device, int64_t(-1), 0))
                    it->second = TrackId{uint32_t(t)};
            if (!it->second.valid())
                it->second = addTrack(c, gpuTrack(c, {kNoThread, device, -1, 0}));
            return it->second;
        };
        std::map<int32_t, std::pair<CounterSeries, int64_t>> inUse; // device -> (series, bytes)
        for (const GpuMemoryEvent& m : memory) {
            const uint32_t launch = tables.launches.find(m.correlation);
            const TrackId track = launch != LaunchTable::kNone ? TrackId{e.track[eventOf[launch]]} : deviceTrack(m.device);
            c.allocations.add(m.time, track, m.address, m.bytes, m.device);
            auto& [series, bytes] = inUse[m.device];
            bytes = std::max<int64_t>(0, addSaturating(bytes, m.bytes));
            series.add(m.time, double(bytes));
        }
        c.allocations.finish();
        for (auto& [device, entry] : inUse) {
            entry.first.track = counterTrack(c, 0, device, "allocated");
            entry.first.unit = c.strings.intern("bytes");
            entry.first.finish();
            c.counters.push_back(std::move(entry.first));
        }
    }
    const auto left = tables.flows.update(std::move(removedFlows), addedFlows);
    c.flows = tables.flows; // shares its chunks
    // The activity table and the flows by time, the GPU time of CPU calls (which reads the
    // flows) and the derived lanes, on both cores: none reads what another writes, and each
    // takes milliseconds per update for a busy job.
    shareOut(3, [&](size_t item, int) {
        if (item == 1) {
            addGpuTimes(c, order, eventOf, rowKeys, moved, keptEvents, launchChanges, tables);
            return;
        }
        if (item == 2) {
            tables.lanes.update();
            return;
        }
        std::vector<KernelLaunchShape> shapes(m_kernelShapes.begin(), m_kernelShapes.end());
        tables.activities.setKernelShapes(std::move(shapes));
        tables.activities.update(std::move(removedActivities), std::move(addedActivities));
        tables.flowTimes.update(left, addedFlows, [&](uint32_t event) { return e.start[event]; });
        c.gpuActivities = tables.activities;
        c.flowTimes = tables.flowTimes;
    });
}

void NvtxAssembler::addGpuMetadata(Capture& c) const
{
    for (const auto& [key, value] : m_cudaMetadata) {
        MetadataValue v;
        v.text = value;
        c.metadata.push_back({key, v});
    }
    if (m_cudaMetadata.empty() && m_gpuWork.empty())
        return;
    MetadataValue dropped;
    dropped.kind = MetadataValue::Kind::Integer;
    dropped.integer = clampToInt64(m_cudaDropped);
    c.metadata.push_back({"cupti_dropped_records", dropped});
    if (m_cudaDropped > 0)
        c.warnings.push_back({"CUPTI dropped " + std::to_string(m_cudaDropped)
                                  + " activity records (its buffers were full); GPU work is missing",
                              {}});
    if (auto status = m_cudaMetadata.find("cuda_activity");
        status != m_cudaMetadata.end() && status->second.rfind("unavailable", 0) == 0)
        c.warnings.push_back({"CUDA activity " + status->second + "; NVTX ranges were recorded as usual", {}});
    if (auto ids = m_cudaMetadata.find("cuda_thread_ids"); ids != m_cudaMetadata.end())
        c.warnings.push_back({"CUDA calls were recorded under CUPTI's " + ids->second
                                  + ": they sit on threads of their own, and NVTX ranges get no GPU time from them",
                              {}});
}

} // namespace spanscope::model::live
