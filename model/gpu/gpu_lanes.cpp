#include "gpu_lanes.h"

#include "gpu_counters.h"
#include "queue_depth.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iterator>
#include <string>

namespace spanscope::model {

namespace {

std::atomic<uint64_t> g_busyNs{0};

// Adds the time from its making to its end to g_busyNs.
class BusyTimer
{
public:
    ~BusyTimer()
    {
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - m_start);
        g_busyNs.fetch_add(uint64_t(ns.count()), std::memory_order_relaxed);
    }

private:
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
};

} // namespace

uint64_t gpuLaneBusyNs()
{
    return g_busyNs.load(std::memory_order_relaxed);
}

GpuLaneBuilder::Device& GpuLaneBuilder::device(int32_t rank, int32_t device)
{
    auto [it, added] = m_devices.try_emplace({rank, device});
    if (added) {
        it->second.utilization.derived = true;
        it->second.utilization.level = CounterSeries::Level::Mean; // the busy fraction per pixel
    }
    return it->second;
}

GpuLaneBuilder::Stream& GpuLaneBuilder::stream(Device& device, int64_t stream)
{
    auto [it, added] = device.streams.try_emplace(stream);
    if (added) {
        it->second.queue.derived = true;
        it->second.queue.level = CounterSeries::Level::Maximum; // the longest queue per pixel
    }
    return it->second;
}

void GpuLaneBuilder::addActivity(int32_t rank, int32_t deviceId, int64_t streamId, int64_t start, int64_t end,
                                 int64_t launchStart)
{
    Device& d = device(rank, deviceId);
    if (end > start)
        d.added.push_back({start, end});
    if (launchStart != kNoLaunch && streamId >= 0) {
        Stream& s = stream(d, streamId);
        s.addedLaunches.push_back(launchStart);
        s.addedStarts.push_back(start);
    }
}

void GpuLaneBuilder::relaunch(int32_t rank, int32_t deviceId, int64_t streamId, int64_t activityStart,
                              int64_t before, int64_t after)
{
    if (streamId < 0 || before == after)
        return;
    Stream& s = stream(device(rank, deviceId), streamId);
    if (before != kNoLaunch) {
        s.removedLaunches.push_back(before);
        s.removedStarts.push_back(activityStart);
    }
    if (after != kNoLaunch) {
        s.addedLaunches.push_back(after);
        s.addedStarts.push_back(activityStart);
    }
}

void GpuLaneBuilder::Device::update()
{
    if (!added.empty()) {
        // Work arrives nearly in order: sorted only where it is not.
        auto before = [](const Interval& a, const Interval& b) { return a.start < b.start || (a.start == b.start && a.end < b.end); };
        if (!std::is_sorted(added.begin(), added.end(), before))
            std::sort(added.begin(), added.end(), before);
        // The series is the union's intervals as (start, 1), (end, 0): from the first interval
        // that ends at or after the earliest added start (one touching it merges with it),
        // the union is made again of the intervals there and the added ones.
        const int64_t t0 = added.front().start;
        size_t low = 0, high = utilization.size() / 2;
        while (low < high) {
            const size_t mid = low + (high - low) / 2;
            if (utilization.time(2 * mid + 1) < t0)
                low = mid + 1;
            else
                high = mid;
        }
        IntervalUnion merged;
        size_t a = 0;
        for (size_t k = low; k < utilization.size() / 2; ++k) {
            const int64_t start = utilization.time(2 * k), end = utilization.time(2 * k + 1);
            for (; a < added.size() && added[a].start < start; ++a)
                merged.add(added[a].start, added[a].end);
            merged.add(start, end);
        }
        for (; a < added.size(); ++a)
            merged.add(added[a].start, added[a].end);
        utilization.truncate(2 * low);
        for (const Interval& i : merged.set()) {
            utilization.add(i.start, 1.0);
            utilization.add(i.end, 0.0);
        }
        utilization.finish();
        added.clear();
    }
    for (auto& [id, s] : streams)
        s.update();
}

void GpuLaneBuilder::Stream::update()
{
    if (addedLaunches.empty() && removedLaunches.empty())
        return;
    for (auto* changes : {&addedLaunches, &removedLaunches, &addedStarts, &removedStarts})
        if (!std::is_sorted(changes->begin(), changes->end()))
            std::sort(changes->begin(), changes->end());
    // What was added and removed again since the last update (a launch changed twice, or
    // work relaunched as it came) is neither: the removal would find nothing to remove.
    auto cancel = [](std::vector<int64_t>& added, std::vector<int64_t>& removed) {
        std::vector<int64_t> both;
        std::set_intersection(added.begin(), added.end(), removed.begin(), removed.end(), std::back_inserter(both));
        for (auto* changes : {&added, &removed}) {
            std::vector<int64_t> left;
            std::set_difference(changes->begin(), changes->end(), both.begin(), both.end(), std::back_inserter(left));
            *changes = std::move(left);
        }
    };
    cancel(addedLaunches, removedLaunches);
    cancel(addedStarts, removedStarts);
    int64_t t0 = INT64_MAX;
    for (auto* changes : {&addedLaunches, &removedLaunches, &addedStarts, &removedStarts})
        if (!changes->empty())
            t0 = std::min(t0, changes->front());
    if (t0 == INT64_MAX)
        return;
    auto less = [](int64_t a, int64_t b) { return a < b; };
    auto same = [](int64_t a, int64_t b) { return a == b; };
    updateSorted(launches, removedLaunches, addedLaunches, less, same);
    updateSorted(starts, removedStarts, addedStarts, less, same);
    for (auto* changes : {&addedLaunches, &removedLaunches, &addedStarts, &removedStarts})
        changes->clear();
    // Nothing before t0 changed: the walk goes on from there, with the depth it had then.
    const size_t i = partitionPoint(launches, [t0](int64_t t) { return t < t0; });
    const size_t j = partitionPoint(starts, [t0](int64_t t) { return t < t0; });
    queue.truncate(queue.firstAtOrAfter(t0));
    walkSortedQueueDepth(launches, i, starts, j, int64_t(i) - int64_t(j),
                         [&](int64_t t, int64_t depth) { queue.add(t, double(std::max<int64_t>(0, depth))); });
    queue.finish();
}

void GpuLaneBuilder::update()
{
    const BusyTimer timer;
    for (auto& [key, d] : m_devices)
        d.update();
}

void GpuLaneBuilder::addTo(Capture& capture) const
{
    const BusyTimer timer;
    auto add = [&](int32_t rank, int32_t device, const std::string& name, const char* unit, const CounterSeries& series) {
        Track track;
        track.kind = TrackKind::Counter;
        track.rank = rank;
        track.device = device;
        track.name = capture.strings.intern(name);
        CounterSeries copy = series; // shares its chunks
        copy.track = addTrack(capture, track);
        copy.unit = capture.strings.intern(unit);
        capture.counters.push_back(std::move(copy));
    };
    for (const auto& [key, d] : m_devices) {
        add(key.first, key.second, kUtilizationCounter, "fraction", d.utilization);
        for (const auto& [id, s] : d.streams)
            if (!s.launches.empty())
                add(key.first, key.second, "stream " + std::to_string(id) + " queue", "launches", s.queue);
    }
}

} // namespace spanscope::model
