#include "gpu_work.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace spanscope::model::analysis {

GpuWork gatherGpuWork(const Capture& capture, const KernelClasses& classes)
{
    GpuWork work;
    work.labelKernels.assign(classes.labels().size(), 0);
    const auto& e = capture.events;
    // Class and label of each activity region, decided once per name.
    std::vector<GpuWorkClass> regionClass(capture.regionNames.size(), GpuWorkClass::Compute);
    std::vector<int16_t> regionLabel(capture.regionNames.size(), -1);
    for (uint32_t region = 0; region < capture.regionNames.size(); ++region) {
        const RegionKind kind = capture.regionKind(region);
        if (!isGpuActivity(kind))
            continue;
        const std::string& name = capture.regionName(region);
        regionClass[region] = kind == RegionKind::Kernel ? classes.classOfKernel(name) : GpuWorkClass::Memory;
        if (kind == RegionKind::Kernel)
            regionLabel[region] = int16_t(classes.labelOf(name));
    }
    const std::vector<uint32_t> launchOf = launchOfActivities(capture);

    struct Item
    {
        int64_t start, end;
        uint32_t event, track, region;
    };
    std::map<std::pair<int32_t, int32_t>, std::vector<Item>> byDevice;
    std::map<std::pair<int32_t, int32_t>, std::map<int64_t, uint32_t>> streamsOf;
    for (uint32_t r = 0; r < capture.rows.size(); ++r) {
        const RegionRow& row = capture.rows[r];
        if (!isGpuActivity(capture.regionKind(row.region)))
            continue;
        for (const uint64_t i : capture.rowEvents(row)) {
            if (e.end[i] < e.start[i])
                continue; // never closed
            const TrackId trackId = capture.trackOfEvent(r, i);
            const Track& track = capture.track(trackId);
            const std::pair<int32_t, int32_t> key{track.rank, track.device};
            streamsOf[key].try_emplace(track.stream, 0);
            byDevice[key].push_back({e.start[i], e.end[i], uint32_t(i), trackId.value, row.region});
        }
    }
    for (auto& [key, items] : byDevice) {
        DeviceWork d;
        d.rank = key.first;
        d.device = key.second;
        auto& streamIndex = streamsOf[key];
        for (auto& [stream, index] : streamIndex) {
            index = uint32_t(d.streams.size());
            d.streams.push_back(stream);
        }
        std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
            if (a.start != b.start)
                return a.start < b.start;
            if (a.end != b.end)
                return a.end < b.end;
            return a.event < b.event;
        });
        const size_t n = items.size();
        d.event.resize(n);
        d.start.resize(n);
        d.end.resize(n);
        d.stream.resize(n);
        d.region.resize(n);
        d.kind.resize(n);
        d.workClass.resize(n);
        d.label.resize(n);
        d.launch.resize(n);
        for (size_t k = 0; k < n; ++k) {
            const Item& item = items[k];
            d.event[k] = item.event;
            d.start[k] = item.start;
            d.end[k] = item.end;
            d.stream[k] = streamIndex[capture.tracks[item.track].stream];
            d.region[k] = item.region;
            d.kind[k] = capture.regionKind(item.region);
            d.workClass[k] = regionClass[item.region];
            d.label[k] = regionLabel[item.region];
            d.launch[k] = launchOf[item.event];
            if (d.label[k] >= 0)
                ++work.labelKernels[size_t(d.label[k])];
        }
        work.devices.push_back(std::move(d));
    }
    return work;
}

} // namespace spanscope::model::analysis
