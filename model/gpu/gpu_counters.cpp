#include "gpu_counters.h"

#include "activity_launch.h"
#include "gpu_lanes.h"

namespace spanscope::model {

void addGpuCounters(Capture& capture)
{
    for (const CounterSeries& series : capture.counters)
        if (series.derived)
            return; // made already (a live capture's snapshots make their own: gpu_lanes.h)
    const auto& e = capture.events;
    GpuLaneBuilder lanes;
    std::vector<uint32_t> launchOf;
    for (uint32_t r = 0; r < capture.rows.size(); ++r) {
        const RegionRow& row = capture.rows[r];
        if (!isGpuActivity(capture.regionKind(row.region)))
            continue;
        if (launchOf.empty())
            launchOf = launchOfActivities(capture);
        for (const uint64_t i : capture.rowEvents(row)) {
            if (e.end[i] < e.start[i])
                continue; // never closed: no time to show
            const Track& t = capture.track(capture.trackOfEvent(r, i));
            const uint32_t launch = launchOf[i];
            lanes.addActivity(t.rank, t.device, t.stream, e.start[i], e.end[i],
                              launch == kNoLaunch ? GpuLaneBuilder::kNoLaunch : e.start[launch]);
        }
    }
    lanes.update();
    lanes.addTo(capture);
}

} // namespace spanscope::model
