#include "gpu_summary.h"

#include "allocation_stats.h"
#include "saturating.h"
#include "../gpu/launch_gpu_time.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <type_traits>

namespace spanscope::model {

GpuSummary summarizeGpu(const Capture& capture)
{
    GpuSummary summary;
    std::map<std::tuple<int32_t, int32_t, int64_t>, StreamActivity> streams; // by (rank, device, stream)
    const auto& e = capture.events;
    for (uint32_t r = 0; r < capture.rows.size(); ++r) {
        const RegionRow& row = capture.rows[r];
        const RegionKind kind = capture.regionKind(row.region);
        if (!isGpuActivity(kind))
            continue;
        for (const uint64_t i : capture.rowEvents(row)) {
            const Track& track = capture.track(capture.trackOfEvent(r, i));
            StreamActivity& s = streams[{track.rank, track.device, track.stream}];
            s.device = track.device;
            s.stream = track.stream;
            if (s.name.empty() && track.name.value != 0)
                s.name = capture.strings.text(track.name);
            const int64_t duration = e.end[i] >= e.start[i] ? subtractSaturating(e.end[i], e.start[i]) : 0;
            if (kind == RegionKind::Kernel) {
                ++s.kernels;
                s.kernelNs = addSaturating(s.kernelNs, duration);
            } else if (kind == RegionKind::Memcpy) {
                ++s.memcpys;
                s.memcpyNs = addSaturating(s.memcpyNs, duration);
                const int64_t row = capture.gpuActivities.rowOf(uint32_t(i));
                if (row >= 0)
                    s.memcpyBytes += capture.gpuActivities.copyBytes(size_t(row)).value_or(0);
            } else {
                ++s.memsets;
                s.memsetNs = addSaturating(s.memsetNs, duration);
            }
        }
    }
    for (const auto& [key, stream] : streams) {
        const auto [rank, deviceId, streamId] = key;
        if (summary.devices.empty() || summary.devices.back().device != deviceId
            || summary.devices.back().rank != rank) {
            DeviceActivity device;
            device.rank = rank;
            device.device = deviceId;
            for (const auto& info : capture.devices)
                if (info.device == deviceId)
                    device.name = capture.strings.text(info.name);
            summary.devices.push_back(std::move(device));
        }
        summary.devices.back().streams.push_back(stream);
    }
    summary.launchesMatched = matchedLaunches(capture);
    return summary;
}

std::vector<AllocationTotals> summarizeAllocations(const Capture& capture)
{
    std::map<int32_t, AllocationTotals> totals;
    std::map<int32_t, int64_t> live;
    const auto& a = capture.allocations;
    for (size_t i = 0; i < a.size(); ++i) {
        AllocationTotals& t = totals[a.device(i)];
        t.device = a.device(i);
        const int64_t bytes = a.bytes(i);
        if (bytes > 0) {
            ++t.allocs;
            t.allocBytes = addSaturating(t.allocBytes, bytes);
        } else if (bytes < 0) {
            ++t.frees;
        }
        int64_t& now = live[a.device(i)];
        now = addSaturating(now, bytes);
        t.peakBytes = std::max(t.peakBytes, now);
    }
    // Live captures count every allocation (the table holds only the large ones): the
    // job's totals, which cover threads that never reported one by one too.
    if (!capture.countedAllocations.empty()) {
        AllocationTotals& host = totals[AllocationTable::kHost];
        const CountedAllocations sum = sumCounted(capture, [](const CountedAllocations&) { return true; });
        host = {};
        host.allocs = sum.allocations;
        host.frees = sum.frees;
        host.allocBytes = clampToInt64(sum.bytes);
        auto total = [&](const char* key, auto& value) {
            if (const MetadataValue* v = findMetadata(capture.metadata, key);
                v && v->kind == MetadataValue::Kind::Integer && v->integer >= 0)
                value = std::max<std::decay_t<decltype(value)>>(value, v->integer);
        };
        total("alloc_total_allocations", host.allocs);
        total("alloc_total_frees", host.frees);
        total("alloc_total_bytes", host.allocBytes);
    }
    // A source that reports its allocator's total (PyTorch's "Total Allocated") knows
    // better: it counts memory allocated before the trace began.
    for (const auto& series : capture.counters) {
        const Track& track = capture.track(series.track);
        const std::string& name = capture.strings.text(track.name);
        if (series.empty() || (name != "allocated" && name != "host allocated"))
            continue;
        const auto it = totals.find(track.device);
        if (it != totals.end())
            it->second.peakBytes = toInt64Saturating(series.maximum());
    }
    std::vector<AllocationTotals> result;
    for (const auto& [device, t] : totals)
        result.push_back(t);
    return result;
}

} // namespace spanscope::model
