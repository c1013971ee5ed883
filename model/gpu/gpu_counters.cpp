#include "gpu_counters.h"

#include "activity_launch.h"

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
    // Indices, not references: adding counters moves the vector.
    for (auto& [key, work] : byDevice) {
        std::sort(work.begin(), work.end(), [](const Work& a, const Work& b) {
            return std::tie(a.start, a.end) < std::tie(b.start, b.end);
        });
        // Utilization: the union of the device's work as 1/0 steps.
        const size_t utilization = capture.counters.size();
        newCounter(capture, key.first, key.second, kUtilizationCounter, "fraction", CounterSeries::Level::Mean);
        int64_t openStart = 0, openEnd = INT64_MIN;
        auto close = [&] {
            if (openEnd > openStart) {
                capture.counters[utilization].add(openStart, 1.0);
                capture.counters[utilization].add(openEnd, 0.0);
            }
        };
        for (const Work& w : work) {
            if (w.end <= w.start)
                continue; // zero-length work covers nothing
            if (openEnd == INT64_MIN || w.start > openEnd) {
                close();
                openStart = w.start;
                openEnd = w.end;
            } else {
                openEnd = std::max(openEnd, w.end);
            }
        }
        close();
        capture.counters[utilization].finish();
        // Queue depth per stream: launches in, starts out (at equal times the start first).
        std::map<int64_t, std::vector<std::pair<int64_t, int>>> steps; // stream -> (time, +1/-1)
        for (const Work& w : work)
            if (w.launchStart != INT64_MIN && w.stream >= 0) {
                auto& s = steps[w.stream];
                s.emplace_back(w.launchStart, +1);
                s.emplace_back(w.start, -1);
            }
        for (auto& [stream, list] : steps) {
            std::sort(list.begin(), list.end()); // (t, -1) before (t, +1)
            CounterSeries& queue = newCounter(capture, key.first, key.second,
                                              "stream " + std::to_string(stream) + " queue", "launches",
                                              CounterSeries::Level::Maximum);
            int64_t depth = 0;
            for (size_t i = 0; i < list.size(); ++i) {
                depth += list[i].second;
                // One sample per time: the depth once every change at that time is applied.
                if (i + 1 == list.size() || list[i + 1].first != list[i].first)
                    queue.add(list[i].first, double(std::max<int64_t>(0, depth)));
            }
            queue.finish();
        }
    }
}

} // namespace spanscope::model
