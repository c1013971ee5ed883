#include "device_figures.h"

#include "model/gpu/interval_set.h"
#include "model/gpu/queue_depth.h"
#include "model/stats/saturating.h"

#include <algorithm>
#include <queue>

namespace spanscope::model::analysis {

namespace {

// The union of every class, and of each class, of a device's activities.
struct ClassUnions
{
    IntervalSet all;
    IntervalSet byClass[kGpuWorkClasses];
};

ClassUnions unionsOf(const DeviceWork& work)
{
    IntervalUnion all, byClass[kGpuWorkClasses];
    for (size_t k = 0; k < work.size(); ++k) {
        all.add(work.start[k], work.end[k]);
        byClass[size_t(work.workClass[k])].add(work.start[k], work.end[k]);
    }
    ClassUnions u;
    u.all = all.take();
    for (int c = 0; c < kGpuWorkClasses; ++c)
        u.byClass[c] = byClass[c].take();
    return u;
}

} // namespace

Utilization utilizationOf(const DeviceWork& work, const KernelClasses& classes)
{
    Utilization u;
    u.labels.resize(classes.labels().size());
    for (size_t l = 0; l < u.labels.size(); ++l) {
        u.labels[l].name = classes.labels()[l].name;
        u.labels[l].pattern = classes.labels()[l].pattern;
    }
    if (work.size() == 0)
        return u;
    std::vector<IntervalUnion> labelUnions(u.labels.size());
    u.firstStartNs = work.start.front();
    u.lastEndNs = work.end.front();
    for (size_t k = 0; k < work.size(); ++k) {
        u.lastEndNs = std::max(u.lastEndNs, work.end[k]);
        const int64_t duration = work.end[k] - work.start[k];
        ClassFigures& figures = u.classes[size_t(work.workClass[k])];
        ++figures.count;
        figures.totalNs = addSaturating(figures.totalNs, duration);
        if (const int16_t label = work.label[k]; label >= 0) {
            LabelFigures& l = u.labels[size_t(label)];
            ++l.count;
            l.totalNs = addSaturating(l.totalNs, duration);
            labelUnions[size_t(label)].add(work.start[k], work.end[k]);
        }
    }
    for (size_t l = 0; l < u.labels.size(); ++l)
        u.labels[l].busyNs = measure(labelUnions[l].set());
    const ClassUnions unions = unionsOf(work);
    const IntervalSet& compute = unions.byClass[size_t(GpuWorkClass::Compute)];
    const IntervalSet& communication = unions.byClass[size_t(GpuWorkClass::Communication)];
    const IntervalSet& memory = unions.byClass[size_t(GpuWorkClass::Memory)];
    u.spanNs = u.lastEndNs - u.firstStartNs;
    u.computeNs = measure(compute);
    u.communicationTotalNs = measure(communication);
    u.communicationOverlappedNs = intersectionMeasure(communication, compute);
    u.communicationNs = u.communicationTotalNs - u.communicationOverlappedNs;
    u.memoryNs = measure(memory) - intersectionMeasure(memory, unite(compute, communication));
    u.idleNs = u.spanNs - measure(unions.all);
    return u;
}

LaunchLatency launchLatencyOf(const Capture& capture, const DeviceWork& work)
{
    LaunchLatency latency;
    const auto& e = capture.events;
    // Launch calls already counted: activities come by start, so a call's first one is the
    // first seen.
    std::vector<uint64_t> seen((e.size() + 63) / 64, 0);
    for (size_t k = 0; k < work.size(); ++k) {
        const uint32_t launch = work.launch[k];
        if (launch == kNoEvent || e.end[launch] < e.start[launch])
            continue; // no launch, or one that never returned
        uint64_t& word = seen[launch / 64];
        const uint64_t bit = uint64_t(1) << (launch % 64);
        if (word & bit)
            continue;
        word |= bit;
        latency.values.push_back(subtractSaturating(work.start[k], e.end[launch]));
    }
    latency.count = latency.values.size();
    if (latency.values.empty())
        return latency;
    const auto [lowest, highest] = std::minmax_element(latency.values.begin(), latency.values.end());
    latency.minNs = *lowest;
    latency.maxNs = *highest;
    latency.negative = uint64_t(std::count_if(latency.values.begin(), latency.values.end(), [](int64_t v) { return v < 0; }));
    std::vector<int64_t> sorted = latency.values;
    const auto middle = sorted.begin() + std::ptrdiff_t((sorted.size() - 1) / 2);
    std::nth_element(sorted.begin(), middle, sorted.end());
    latency.medianNs = *middle;
    return latency;
}

namespace {

// Larger gaps first; of equal ones the earlier, then the lower stream.
bool gapBefore(const StreamGap& a, const StreamGap& b)
{
    const int64_t la = a.endNs - a.startNs, lb = b.endNs - b.startNs;
    if (la != lb)
        return la > lb;
    if (a.startNs != b.startNs)
        return a.startNs < b.startNs;
    return a.stream < b.stream;
}

uint64_t largestQueue(std::vector<int64_t>& launchStarts, const std::vector<int64_t>& activityStarts)
{
    int64_t most = 0;
    walkQueueDepth(launchStarts, activityStarts, [&](int64_t, int64_t depth) { most = std::max(most, depth); });
    return uint64_t(most);
}

} // namespace

DeviceFigures analyzeDevice(const Capture& capture, const DeviceWork& work, const KernelClasses& classes)
{
    DeviceFigures d;
    d.rank = work.rank;
    d.device = work.device;
    for (const DeviceInfo& info : capture.devices)
        if (info.device == work.device)
            d.name = capture.strings.text(info.name);
    d.utilization = utilizationOf(work, classes);
    d.launchLatency = launchLatencyOf(capture, work);

    const auto& e = capture.events;
    struct StreamState
    {
        int64_t latestEnd = 0;
        uint32_t latestEndEvent = kNoEvent; // none yet
        uint32_t latestEndRegion = 0;
        IntervalUnion busy;
        std::vector<int64_t> launchStarts, activityStarts; // of the activities with a launch
    };
    std::vector<StreamState> state(work.streams.size());
    d.streams.resize(work.streams.size());
    for (size_t s = 0; s < work.streams.size(); ++s)
        d.streams[s].stream = work.streams[s];
    auto worse = [](const StreamGap& a, const StreamGap& b) { return gapBefore(a, b); };
    std::priority_queue<StreamGap, std::vector<StreamGap>, decltype(worse)> largest(worse); // top = smallest kept
    for (size_t k = 0; k < work.size(); ++k) {
        const uint32_t s = work.stream[k];
        StreamState& st = state[s];
        StreamFigures& f = d.streams[s];
        ++f.activities;
        st.busy.add(work.start[k], work.end[k]);
        const uint32_t launch = work.launch[k];
        if (launch != kNoEvent) {
            st.launchStarts.push_back(e.start[launch]);
            st.activityStarts.push_back(work.start[k]);
        }
        if (st.latestEndEvent != kNoEvent && work.start[k] > st.latestEnd) {
            StreamGap gap;
            gap.stream = work.streams[s];
            gap.startNs = st.latestEnd;
            gap.endNs = work.start[k];
            gap.before = st.latestEndEvent;
            gap.after = work.event[k];
            gap.beforeRegion = st.latestEndRegion;
            gap.afterRegion = work.region[k];
            gap.kind = launch != kNoEvent && e.start[launch] >= st.latestEnd ? WaitKind::Host : WaitKind::Other;
            const int64_t length = gap.endNs - gap.startNs;
            ++f.gaps;
            f.gapNs += length;
            (gap.kind == WaitKind::Host ? f.hostWaitNs : f.otherWaitNs) += length;
            if (largest.size() < kLargestGaps)
                largest.push(gap);
            else if (gapBefore(gap, largest.top())) {
                largest.pop();
                largest.push(gap);
            }
        }
        if (st.latestEndEvent == kNoEvent || work.end[k] > st.latestEnd) {
            st.latestEnd = work.end[k];
            st.latestEndEvent = work.event[k];
            st.latestEndRegion = work.region[k];
        }
    }
    for (size_t s = 0; s < state.size(); ++s) {
        d.streams[s].busyNs = measure(state[s].busy.set());
        d.streams[s].maxQueue = largestQueue(state[s].launchStarts, state[s].activityStarts);
    }
    // Stream names from their tracks.
    for (const Track& track : capture.tracks)
        if (track.kind == TrackKind::GpuStream && track.rank == work.rank && track.device == work.device
            && track.inferredLane == 0 && track.name.value != 0)
            for (StreamFigures& f : d.streams)
                if (f.stream == track.stream && f.name.empty()) {
                    const std::string& name = capture.strings.text(track.name);
                    if (name.size() < 6 || name.compare(name.size() - 6, 6, " syncs") != 0)
                        f.name = name;
                }
    if (!largest.empty()) {
        IntervalUnion all;
        for (size_t k = 0; k < work.size(); ++k)
            all.add(work.start[k], work.end[k]);
        while (!largest.empty()) {
            d.largestGaps.push_back(largest.top());
            largest.pop();
        }
        std::sort(d.largestGaps.begin(), d.largestGaps.end(), gapBefore);
        for (StreamGap& gap : d.largestGaps)
            gap.deviceIdleNs = uncoveredMeasure(all.set(), gap.startNs, gap.endNs);
    }
    return d;
}

} // namespace spanscope::model::analysis
