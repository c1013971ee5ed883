// The GPU side of a saved capture (/spanscope/gpu, docs/capture-format.md): region kinds,
// GPU tracks and which events sit on them, kernel shapes and copy sizes, flows, devices.
// What a live capture of a CUDA job has; other readers ignore the group.

#include "capture_file_writer.h"

namespace spanscope::model::io::writer {

Status Writer::gpuTables()
{
    const std::string base = "/spanscope/gpu/";
    const Capture& c = m_capture;
    std::vector<uint8_t> regionKinds;
    for (size_t r = 0; r < c.regionNames.size(); ++r)
        regionKinds.push_back(uint8_t(c.regionKind(uint32_t(r))));

    // GPU tracks, numbered in the file by their order here.
    std::vector<uint32_t> rowOfTrack(c.tracks.size(), UINT32_MAX);
    std::vector<uint8_t> trackKinds;
    std::vector<uint32_t> trackRanks;
    std::vector<int32_t> trackDevices;
    std::vector<int64_t> trackStreams, trackSortKeys;
    std::vector<std::string> trackNames;
    for (size_t t = 0; t < c.tracks.size(); ++t) {
        const Track& track = c.tracks[t];
        if (!isGpuTrack(track.kind) || track.inferredLane != 0)
            continue;
        rowOfTrack[t] = uint32_t(trackKinds.size());
        trackKinds.push_back(uint8_t(track.kind));
        trackRanks.push_back(uint32_t(track.rank));
        trackDevices.push_back(track.device);
        trackStreams.push_back(track.stream);
        trackSortKeys.push_back(track.sortKey);
        trackNames.push_back(text(track.name));
    }
    std::vector<uint64_t> placedEvents;
    std::vector<uint32_t> placedTracks;
    for (const RegionRow& row : c.rows) {
        if (c.regionKind(row.region) == RegionKind::Cpu)
            continue;
        for (const uint64_t e : c.rowEvents(row)) {
            const TrackId track = c.trackOfEvent(uint32_t(&row - c.rows.data()), e);
            if (track.valid() && rowOfTrack[track.value] != UINT32_MAX) {
                placedEvents.push_back(e);
                placedTracks.push_back(rowOfTrack[track.value]);
            }
        }
    }

    // Activities: 0 other (memsets), 1 kernel, 2 copy; shapes and sizes where they apply.
    const GpuActivityTable& a = c.gpuActivities;
    std::vector<uint32_t> activityEvents, activityContexts, grid, block, registers, sharedBytes;
    std::vector<uint64_t> correlations, copyBytes;
    std::vector<uint8_t> activityKinds, copyKinds;
    for (size_t i = 0; i < a.size(); ++i) {
        activityEvents.push_back(a.event(i));
        correlations.push_back(a.correlation(i));
        activityContexts.push_back(a.context(i));
        const auto shape = a.kernelShape(i);
        const auto bytes = a.copyBytes(i);
        activityKinds.push_back(shape ? 1 : bytes ? 2 : 0);
        const KernelLaunchShape s = shape.value_or(KernelLaunchShape{});
        grid.insert(grid.end(), s.grid, s.grid + 3);
        block.insert(block.end(), s.block, s.block + 3);
        registers.push_back(s.registersPerThread);
        sharedBytes.push_back(s.sharedMemoryBytes);
        copyBytes.push_back(bytes.value_or(0));
        copyKinds.push_back(uint8_t(a.copyKind(i)));
    }
    std::vector<uint32_t> flowFrom, flowTo;
    std::vector<uint8_t> flowKinds;
    for (size_t f = 0; f < c.flows.size(); ++f) {
        flowFrom.push_back(c.flows.from(f));
        flowTo.push_back(c.flows.to(f));
        flowKinds.push_back(uint8_t(c.flows.kind(f)));
    }
    std::vector<uint32_t> syncWaitEvents;
    std::vector<int64_t> syncWaitStreams;
    for (const auto& [event, stream] : c.syncWaitStreams) {
        syncWaitEvents.push_back(event);
        syncWaitStreams.push_back(stream);
    }
    std::vector<int32_t> deviceIds, sms, major, minor, warp;
    std::vector<int64_t> memory;
    std::vector<std::string> deviceNames;
    for (const DeviceInfo& d : c.devices) {
        deviceIds.push_back(d.device);
        deviceNames.push_back(text(d.name));
        memory.push_back(d.totalMemoryBytes);
        sms.push_back(d.multiprocessors);
        major.push_back(d.computeMajor);
        minor.push_back(d.computeMinor);
        warp.push_back(d.warpSize);
    }

    Status s = column(base + "region_kinds", H5T_STD_U8LE, H5T_NATIVE_UINT8, regionKinds);
    if (s)
        s = column(base + "track_kinds", H5T_STD_U8LE, H5T_NATIVE_UINT8, trackKinds);
    if (s)
        s = column(base + "track_ranks", H5T_STD_U32LE, H5T_NATIVE_UINT32, trackRanks);
    if (s)
        s = column(base + "track_devices", H5T_STD_I32LE, H5T_NATIVE_INT32, trackDevices);
    if (s)
        s = column(base + "track_streams", H5T_STD_I64LE, H5T_NATIVE_INT64, trackStreams);
    if (s)
        s = column(base + "track_sort_keys", H5T_STD_I64LE, H5T_NATIVE_INT64, trackSortKeys);
    if (s)
        s = strings(base + "track_names", trackNames);
    if (s)
        s = column(base + "event_ids", H5T_STD_U64LE, H5T_NATIVE_UINT64, placedEvents);
    if (s)
        s = column(base + "event_tracks", H5T_STD_U32LE, H5T_NATIVE_UINT32, placedTracks);
    if (s)
        s = column(base + "activity_events", H5T_STD_U32LE, H5T_NATIVE_UINT32, activityEvents);
    if (s)
        s = column(base + "activity_kinds", H5T_STD_U8LE, H5T_NATIVE_UINT8, activityKinds);
    if (s)
        s = column(base + "activity_correlations", H5T_STD_U64LE, H5T_NATIVE_UINT64, correlations);
    if (s)
        s = column(base + "activity_contexts", H5T_STD_U32LE, H5T_NATIVE_UINT32, activityContexts);
    if (s)
        s = column(base + "activity_grid", H5T_STD_U32LE, H5T_NATIVE_UINT32, grid);
    if (s)
        s = column(base + "activity_block", H5T_STD_U32LE, H5T_NATIVE_UINT32, block);
    if (s)
        s = column(base + "activity_registers", H5T_STD_U32LE, H5T_NATIVE_UINT32, registers);
    if (s)
        s = column(base + "activity_shared_bytes", H5T_STD_U32LE, H5T_NATIVE_UINT32, sharedBytes);
    if (s)
        s = column(base + "activity_copy_bytes", H5T_STD_U64LE, H5T_NATIVE_UINT64, copyBytes);
    if (s)
        s = column(base + "activity_copy_kinds", H5T_STD_U8LE, H5T_NATIVE_UINT8, copyKinds);
    if (s)
        s = column(base + "flow_from", H5T_STD_U32LE, H5T_NATIVE_UINT32, flowFrom);
    if (s)
        s = column(base + "flow_to", H5T_STD_U32LE, H5T_NATIVE_UINT32, flowTo);
    if (s)
        s = column(base + "flow_kinds", H5T_STD_U8LE, H5T_NATIVE_UINT8, flowKinds);
    if (s && !syncWaitEvents.empty())
        s = column(base + "sync_wait_events", H5T_STD_U32LE, H5T_NATIVE_UINT32, syncWaitEvents);
    if (s && !syncWaitEvents.empty())
        s = column(base + "sync_wait_streams", H5T_STD_I64LE, H5T_NATIVE_INT64, syncWaitStreams);
    if (s)
        s = column(base + "device_ids", H5T_STD_I32LE, H5T_NATIVE_INT32, deviceIds);
    if (s)
        s = strings(base + "device_names", deviceNames);
    if (s)
        s = column(base + "device_memory_bytes", H5T_STD_I64LE, H5T_NATIVE_INT64, memory);
    if (s)
        s = column(base + "device_multiprocessors", H5T_STD_I32LE, H5T_NATIVE_INT32, sms);
    if (s)
        s = column(base + "device_compute_major", H5T_STD_I32LE, H5T_NATIVE_INT32, major);
    if (s)
        s = column(base + "device_compute_minor", H5T_STD_I32LE, H5T_NATIVE_INT32, minor);
    if (s)
        s = column(base + "device_warp_size", H5T_STD_I32LE, H5T_NATIVE_INT32, warp);
    return s;
}

} // namespace spanscope::model::io::writer
