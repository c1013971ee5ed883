#include "gpu_tables_reader.h"

#include "group_reader.h"

#include <climits>

namespace spanscope::model::io {

namespace {

constexpr const char* kGpu = "/spanscope/gpu";

struct GpuTables
{
    std::vector<RegionKind> regionKinds;
    std::vector<Track> tracks;
    std::vector<std::pair<uint64_t, uint32_t>> placed; // event, row in `tracks`
    GpuActivityTable activities;
    FlowTable flows;
    std::vector<DeviceInfo> devices;
    std::vector<std::pair<uint32_t, int64_t>> syncWaitStreams;
};

bool inRange(int64_t value, int64_t low, int64_t high)
{
    return value >= low && value <= high;
}

std::string read(const H5File& file, Capture& capture, GpuTables& out)
{
    GroupReader g{file, kGpu, {}};
    const auto regionKinds = g.ints("region_kinds");
    const auto trackKinds = g.ints("track_kinds");
    const auto trackRanks = g.ints("track_ranks");
    const auto trackDevices = g.ints("track_devices");
    const auto trackStreams = g.ints("track_streams");
    const auto trackSortKeys = g.ints("track_sort_keys");
    const auto trackNames = g.texts("track_names");
    const auto eventIds = g.counts("event_ids");
    const auto eventTracks = g.ints("event_tracks");
    const auto activityEvents = g.ints("activity_events");
    const auto activityKinds = g.ints("activity_kinds");
    const auto correlations = g.counts("activity_correlations");
    const auto contexts = g.ints("activity_contexts");
    const auto grid = g.ints("activity_grid");
    const auto block = g.ints("activity_block");
    const auto registers = g.ints("activity_registers");
    const auto sharedBytes = g.ints("activity_shared_bytes");
    const auto copyBytes = g.counts("activity_copy_bytes");
    const auto copyKinds = g.ints("activity_copy_kinds");
    const auto flowFrom = g.ints("flow_from");
    const auto flowTo = g.ints("flow_to");
    const auto flowKinds = g.ints("flow_kinds");
    const auto deviceIds = g.ints("device_ids");
    const auto deviceNames = g.texts("device_names");
    const auto memory = g.ints("device_memory_bytes");
    const auto sms = g.ints("device_multiprocessors");
    const auto major = g.ints("device_compute_major");
    const auto minor = g.ints("device_compute_minor");
    const auto warp = g.ints("device_warp_size");
    // Written from format version 3 on only for captures that have them (Kineto's wait_on_stream).
    const bool syncWaits = file.isDataset(std::string(kGpu) + "/sync_wait_events");
    const auto syncWaitEvents = syncWaits ? g.ints("sync_wait_events") : std::vector<int64_t>{};
    const auto syncWaitStreams = syncWaits ? g.ints("sync_wait_streams") : std::vector<int64_t>{};
    if (!g.problem.empty())
        return g.problem;
    if (syncWaitStreams.size() != syncWaitEvents.size())
        return "its synchronization columns differ in length";
    for (size_t i = 0; i < syncWaitEvents.size(); ++i) {
        if (!inRange(syncWaitEvents[i], 0, int64_t(capture.events.size()) - 1) || syncWaitStreams[i] < 0 ||
            (i > 0 && syncWaitEvents[i] <= syncWaitEvents[i - 1]))
            return "a synchronization names an event that does not exist, a negative stream, or is out of order";
        out.syncWaitStreams.emplace_back(uint32_t(syncWaitEvents[i]), syncWaitStreams[i]);
    }
    const size_t t = trackKinds.size(), p = eventIds.size(), a = activityEvents.size(), f = flowFrom.size(),
                 d = deviceIds.size();
    if (regionKinds.size() != capture.regionNames.size())
        return "it has " + std::to_string(regionKinds.size()) + " region kinds for " +
               std::to_string(capture.regionNames.size()) + " regions";
    if (trackRanks.size() != t || trackDevices.size() != t || trackStreams.size() != t ||
        trackSortKeys.size() != t || trackNames.size() != t || eventTracks.size() != p ||
        activityKinds.size() != a || correlations.size() != a || contexts.size() != a || grid.size() != 3 * a ||
        block.size() != 3 * a || registers.size() != a || sharedBytes.size() != a || copyBytes.size() != a ||
        copyKinds.size() != a || flowTo.size() != f || flowKinds.size() != f || deviceNames.size() != d ||
        memory.size() != d || sms.size() != d || major.size() != d || minor.size() != d || warp.size() != d)
        return "its columns differ in length";
    const uint64_t events = capture.events.size();
    for (const int64_t kind : regionKinds) {
        if (!inRange(kind, 0, int64_t(RegionKind::GpuRange)))
            return "a region kind is out of range";
        out.regionKinds.push_back(RegionKind(kind));
    }
    for (size_t i = 0; i < t; ++i) {
        const int64_t kind = trackKinds[i];
        if (kind != int64_t(TrackKind::GpuDevice) && kind != int64_t(TrackKind::GpuStream))
            return "a track is not a GPU track";
        if (!inRange(trackRanks[i], 0, INT32_MAX) || !inRange(trackDevices[i], -1, INT32_MAX))
            return "a track's rank or device is out of range";
        Track track;
        track.kind = TrackKind(kind);
        track.rank = int32_t(trackRanks[i]);
        track.device = int32_t(trackDevices[i]);
        track.stream = trackStreams[i];
        track.sortKey = trackSortKeys[i];
        track.name = capture.strings.intern(trackNames[i]);
        out.tracks.push_back(track);
    }
    for (size_t i = 0; i < p; ++i) {
        if (eventIds[i] >= events || (i > 0 && eventIds[i] <= eventIds[i - 1]))
            return "the events on GPU tracks are out of range or out of order";
        if (!inRange(eventTracks[i], 0, int64_t(t) - 1))
            return "an event names a GPU track that does not exist";
        out.placed.emplace_back(eventIds[i], uint32_t(eventTracks[i]));
    }
    for (size_t i = 0; i < a; ++i) {
        if (!inRange(activityEvents[i], 0, int64_t(events) - 1) || !inRange(contexts[i], 0, UINT32_MAX))
            return "an activity's event or context is out of range";
        const auto event = uint32_t(activityEvents[i]);
        if (activityKinds[i] == 1) {
            KernelLaunchShape shape;
            for (size_t k = 0; k < 3; ++k) {
                if (!inRange(grid[3 * i + k], 0, UINT32_MAX) || !inRange(block[3 * i + k], 0, UINT32_MAX))
                    return "a kernel's grid or block is out of range";
                shape.grid[k] = uint32_t(grid[3 * i + k]);
                shape.block[k] = uint32_t(block[3 * i + k]);
            }
            if (!inRange(registers[i], 0, UINT16_MAX) || !inRange(sharedBytes[i], 0, UINT32_MAX))
                return "a kernel's registers or shared memory are out of range";
            shape.registersPerThread = uint16_t(registers[i]);
            shape.sharedMemoryBytes = uint32_t(sharedBytes[i]);
            out.activities.addKernel(event, correlations[i], uint32_t(contexts[i]), shape);
        } else if (activityKinds[i] == 2) {
            if (!inRange(copyKinds[i], 0, int64_t(CopyKind::PeerToPeer)))
                return "a copy's kind is out of range";
            out.activities.addCopy(event, correlations[i], uint32_t(contexts[i]), copyBytes[i],
                                   CopyKind(copyKinds[i]));
        } else if (activityKinds[i] == 0) {
            out.activities.addOther(event, correlations[i], uint32_t(contexts[i]));
        } else {
            return "an activity's kind is out of range";
        }
    }
    for (size_t i = 0; i < f; ++i) {
        if (!inRange(flowFrom[i], 0, int64_t(events) - 1) || !inRange(flowTo[i], 0, int64_t(events) - 1))
            return "a flow names an event that does not exist";
        if (!inRange(flowKinds[i], 0, int64_t(kFlowKinds) - 1))
            return "a flow's kind is out of range";
        out.flows.add(uint32_t(flowFrom[i]), uint32_t(flowTo[i]), FlowKind(flowKinds[i]));
    }
    for (size_t i = 0; i < d; ++i) {
        if (!inRange(deviceIds[i], 0, INT32_MAX))
            return "a device id is out of range";
        DeviceInfo info;
        info.device = int32_t(deviceIds[i]);
        info.name = capture.strings.intern(deviceNames[i]);
        info.totalMemoryBytes = memory[i];
        auto small = [](int64_t v) { return int32_t(inRange(v, -1, INT32_MAX) ? v : -1); };
        info.multiprocessors = small(sms[i]);
        info.computeMajor = small(major[i]);
        info.computeMinor = small(minor[i]);
        info.warpSize = small(warp[i]);
        out.devices.push_back(info);
    }
    out.activities.finish();
    out.flows.finish();
    return {};
}

} // namespace

TrackId gpuDeviceTrack(Capture& capture, int32_t rank, int32_t device)
{
    for (size_t i = 0; i < capture.tracks.size(); ++i) {
        const Track& t = capture.tracks[i];
        if (t.kind == TrackKind::GpuDevice && t.rank == rank && t.device == device && t.stream < 0 &&
            t.sortKey == 0 && t.inferredLane == 0)
            return TrackId{uint32_t(i)};
    }
    Track t;
    t.kind = TrackKind::GpuDevice;
    t.rank = rank;
    t.device = device;
    return addTrack(capture, t);
}

void readGpuTables(const H5File& file, Capture& capture)
{
    if (!file.isGroup(kGpu))
        return;
    GpuTables tables;
    if (const std::string problem = read(file, capture, tables); !problem.empty()) {
        capture.warnings.push_back(
            {"the GPU tables cannot be read and are left out (GPU work shows as CPU calls): " + problem, kGpu});
        return;
    }
    capture.regionKinds = std::move(tables.regionKinds);
    assignTracks(capture); // CPU calls; GPU work is placed below
    if (capture.events.track.size() != capture.events.size()) {
        // No thread or task columns: assignTracks gave each CPU row one track (its
        // RegionRow::track); the per-call column GPU work needs now holds it for every call.
        capture.events.track.resize(capture.events.size());
        for (const RegionRow& row : capture.rows)
            for (const uint64_t e : capture.rowEvents(row))
                capture.events.track.set(e, row.track.value);
    }
    for (const RegionRow& row : capture.rows) // assignTracks left them: mark them unplaced
        if (capture.regionKind(row.region) != RegionKind::Cpu)
            for (const uint64_t e : capture.rowEvents(row))
                capture.events.track.set(e, TrackId::kNone);
    std::vector<uint32_t> idOf;
    for (const Track& track : tables.tracks)
        idOf.push_back(addTrack(capture, track).value);
    for (const auto& [event, row] : tables.placed)
        capture.events.track.set(event, idOf[row]);
    // GPU work the table did not place (a file another tool edited) goes to its rank's
    // first GPU track rather than nowhere.
    for (size_t r = 0; r < capture.rows.size(); ++r) {
        const RegionRow& row = capture.rows[r];
        if (capture.regionKind(row.region) == RegionKind::Cpu)
            continue;
        for (const uint64_t e : capture.rowEvents(row))
            if (capture.events.track[e] == TrackId::kNone || capture.events.track[e] >= capture.tracks.size()) {
                capture.events.track.set(e, gpuDeviceTrack(capture, row.rank, 0).value);
                if (capture.warnings.empty() || capture.warnings.back().object != kGpu)
                    capture.warnings.push_back({"some GPU work has no GPU track in the file; it is shown on GPU 0",
                                                kGpu});
            }
    }
    capture.gpuActivities = std::move(tables.activities);
    capture.flows = std::move(tables.flows);
    capture.devices = std::move(tables.devices);
    capture.syncWaitStreams = std::move(tables.syncWaitStreams);
}

} // namespace spanscope::model::io
