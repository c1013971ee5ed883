#include "gpu_counters.h"

#include "activity_launch.h"
#include "interval_set.h"
#include "queue_depth.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace spanscope::model {

namespace {

struct Work
{
    int64_t start, end, launchStart; // launchStart: INT64_MIN without a launch
    int64_t stream;
};

CounterSeries& newCounter(Capture& capture, int32_t rank, int32_t device, const std::string& name, const char* unit,
                          CounterSeries::Level level)
{
    Track track;
    track.kind = TrackKind::Counter;
    track.rank = rank;
    track.device = device;
    track.name = capture.strings.intern(name);
    CounterSeries series;
    series.track = addTrack(capture, track);
    series.unit = capture.strings.intern(unit);
    series.derived = true;
    series.level = level;
    capture.counters.push_back(std::move(series));
    return capture.counters.back();
}

} // namespace

void addGpuCounters(Capture& capture)
{
    for (const CounterSeries& series : capture.counters)
        if (series.derived)
            return;
    const auto& e = capture.events;
    std::map<std::pair<int32_t, int32_t>, std::vector<Work>> byDevice;
    std::vector<uint32_t> launchOf;
    for (uint32_t r = 0; r < capture.rows.size(); ++r) {
        const RegionRow& row = capture.rows[r];
        if (!isGpuActivity(capture.regionKind(row.region)))
            continue;
        if (launchOf.empty())
            launchOf = launchOfActivities(capture);
        for (const uint64_t i : capture.rowEvents(row)) {
            if (e.end[i] < e.start[i])
                continue;
            const Track& t = capture.track(capture.trackOfEvent(r, i));
            const uint32_t launch = launchOf[i];
            byDevice[{t.rank, t.device}].push_back(
                {e.start[i], e.end[i], launch == kNoLaunch ? INT64_MIN : e.start[launch], t.stream});
        }
    }
    // Each counter is filled before the next is added (adding one moves the others).
    for (auto& [key, work] : byDevice) {
        std::sort(work.begin(), work.end(), [](const Work& a, const Work& b) {
            return std::tie(a.start, a.end) < std::tie(b.start, b.end);
        });
        // Utilization: the union of the device's work as 1/0 steps.
        IntervalUnion busy;
        for (const Work& w : work)
            busy.add(w.start, w.end);
        CounterSeries& utilization =
            newCounter(capture, key.first, key.second, kUtilizationCounter, "fraction", CounterSeries::Level::Mean);
        for (const Interval& i : busy.set()) {
            utilization.add(i.start, 1.0);
            utilization.add(i.end, 0.0);
        }
        utilization.finish();
        // Queue depth per stream, as the analyses count max_queue.
        struct Launches
        {
            std::vector<int64_t> launchStarts, activityStarts; // activities by start (work is)
        };
        std::map<int64_t, Launches> streams;
        for (const Work& w : work)
            if (w.launchStart != INT64_MIN && w.stream >= 0) {
                Launches& s = streams[w.stream];
                s.launchStarts.push_back(w.launchStart);
                s.activityStarts.push_back(w.start);
            }
        for (auto& [stream, s] : streams) {
            CounterSeries& queue = newCounter(capture, key.first, key.second,
                                              "stream " + std::to_string(stream) + " queue", "launches",
                                              CounterSeries::Level::Maximum);
            walkQueueDepth(s.launchStarts, s.activityStarts, [&](int64_t t, int64_t depth) {
                queue.add(t, double(std::max<int64_t>(0, depth)));
            });
            queue.finish();
        }
    }
}

} // namespace spanscope::model
