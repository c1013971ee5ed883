#include "launch_gpu_time.h"

#include "../stats/saturating.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <vector>

namespace spanscope::model {

namespace {

// Per launch call (a `from` of Launch flows; flows are sorted by `from`): its event and
// the summed duration of the work it started.
std::vector<std::pair<uint32_t, int64_t>> launchTotals(const Capture& capture)
{
    std::vector<std::pair<uint32_t, int64_t>> totals;
    const auto& flows = capture.flows;
    const auto& e = capture.events;
    for (size_t i = 0; i < flows.size(); ++i) {
        if (flows.kind(i) != FlowKind::Launch)
            continue;
        const uint32_t to = flows.to(i);
        const int64_t duration = e.end[to] >= e.start[to] ? subtractSaturating(e.end[to], e.start[to]) : 0;
        if (!totals.empty() && totals.back().first == flows.from(i))
            totals.back().second = addSaturating(totals.back().second, duration);
        else
            totals.emplace_back(flows.from(i), duration);
    }
    return totals;
}

uint32_t trackOf(const Capture& capture, uint32_t event)
{
    return capture.events.track.empty() ? TrackId::kNone : capture.events.track[event];
}

} // namespace

uint64_t matchedLaunches(const Capture& capture)
{
    return launchTotals(capture).size();
}

void deriveLaunchGpuTime(Capture& capture)
{
    auto& e = capture.events;
    bool gpuRegions = false;
    for (const RegionKind kind : capture.regionKinds)
        gpuRegions |= kind != RegionKind::Cpu;
    const auto totals = launchTotals(capture);
    if ((totals.empty() && !gpuRegions) || e.track.empty())
        return;
    e.gpu.assign(e.size(), -1);
    // GPU work is all GPU time: a kernel's GPU time is its duration.
    for (const RegionRow& row : capture.rows)
        if (capture.regionKind(row.region) != RegionKind::Cpu)
            for (uint64_t i = row.offset; i < row.offset + row.count; ++i)
                if (e.end[i] >= e.start[i])
                    e.gpu[i] = subtractSaturating(e.end[i], e.start[i]);
    // Per track: launch starts, ascending, with prefix sums of their GPU time.
    struct Launches
    {
        std::vector<std::pair<int64_t, int64_t>> items; // (start, gpu ns)
        std::vector<int64_t> prefix;
    };
    std::unordered_map<uint32_t, Launches> byTrack;
    for (const auto& [event, gpu] : totals)
        byTrack[e.track[event]].items.emplace_back(e.start[event], gpu);
    for (auto& [track, launches] : byTrack) {
        std::sort(launches.items.begin(), launches.items.end());
        launches.prefix.resize(launches.items.size() + 1, 0);
        for (size_t i = 0; i < launches.items.size(); ++i)
            launches.prefix[i + 1] = launches.prefix[i] + launches.items[i].second;
    }
    const Launches* last = nullptr;
    uint32_t lastTrack = TrackId::kNone;
    for (size_t i = 0; i < e.size(); ++i) {
        if (e.end[i] < e.start[i])
            continue;
        if (e.track[i] != lastTrack) {
            lastTrack = e.track[i];
            const auto it = byTrack.find(lastTrack);
            last = it == byTrack.end() ? nullptr : &it->second;
        }
        if (!last || e.gpu[i] >= 0)
            continue;
        const auto& items = last->items;
        const auto first =
            std::lower_bound(items.begin(), items.end(),
                             std::make_pair(e.start[i], std::numeric_limits<int64_t>::min()));
        const auto end = std::upper_bound(
            first, items.end(), std::make_pair(e.end[i], std::numeric_limits<int64_t>::max()));
        if (first == end)
            continue;
        e.gpu[i] =
            last->prefix[size_t(end - items.begin())] - last->prefix[size_t(first - items.begin())];
    }
}

std::optional<std::pair<int64_t, int64_t>> projectedGpuSpan(const Capture& capture, uint32_t row,
                                                            uint32_t event)
{
    const auto& e = capture.events;
    const auto& flows = capture.flows;
    if (event >= e.size() || e.end[event] < e.start[event])
        return std::nullopt;
    const uint32_t track = capture.trackOfEvent(row, event).value;
    std::optional<std::pair<int64_t, int64_t>> span;
    for (size_t i = 0; i < flows.size(); ++i) {
        if (flows.kind(i) != FlowKind::Launch)
            continue;
        const uint32_t from = flows.from(i), to = flows.to(i);
        if (trackOf(capture, from) != track || e.start[from] < e.start[event] ||
            e.start[from] > e.end[event])
            continue;
        if (e.end[to] < e.start[to])
            continue;
        if (!span)
            span = std::make_pair(e.start[to], e.end[to]);
        span->first = std::min(span->first, e.start[to]);
        span->second = std::max(span->second, e.end[to]);
    }
    return span;
}

} // namespace spanscope::model
