#pragma once
// The GPU's derived lanes (gpu_counters.h) made from its activities as they come: per GPU
// device of a rank its utilization, per stream its queue depth. A whole capture adds every
// activity and updates once (addGpuCounters). A live stream keeps one builder from one
// snapshot to the next (NvtxAssembler's GPU tables) and gives it only what changed since —
// the activities that arrived, the launches that changed — so an update costs what arrived,
// not what the job holds: each series is rewritten from the earliest time that changed on,
// and its samples before that stay shared with the series of the snapshots before
// (CounterSeries keeps chunks that copies share). Exactly what the whole walk gives, in any
// order of arrival. One thread at a time.

#include "../capture.h"
#include "../chunked_array.h"
#include "interval_set.h"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace spanscope::model {

// Nanoseconds spent in GpuLaneBuilder::update() and addTo(), all builders together, since
// the process started: what the lanes add to live updates (bench_collector). Any thread.
uint64_t gpuLaneBusyNs();

class GpuLaneBuilder
{
public:
    // No launch call known. A call starting at INT64_MIN (only a damaged source's) reads so.
    static constexpr int64_t kNoLaunch = INT64_MIN;

    // An activity of (rank, device) on `stream` (< 0: none known) over [start, end) ns,
    // launched by a call that started at `launchStart` (kNoLaunch: none known).
    void addActivity(int32_t rank, int32_t device, int64_t stream, int64_t start, int64_t end, int64_t launchStart);
    // An activity added before now, starting at `activityStart`, has a launch call starting
    // at `after` instead of `before` (either may be kNoLaunch).
    void relaunch(int32_t rank, int32_t device, int64_t stream, int64_t activityStart, int64_t before, int64_t after);
    // Brings the series up to date with what was added. O(k log k + s) for k changes and the
    // s samples from the earliest change on.
    void update();
    // Adds the series as derived counters of `capture`, each on a track of its own: per
    // device, by (rank, device), its utilization, then each stream's queue by stream id.
    // Shares the series' chunks: O(chunks + series).
    void addTo(Capture& capture) const;

private:
    template <typename T> using Chunks = ChunkedArray<T, 8192>;
    struct Stream
    {
        // Of the stream's activities that have a launch: launch starts and activity starts,
        // each ascending, and what update() is still to take in.
        Chunks<int64_t> launches, starts;
        std::vector<int64_t> addedLaunches, removedLaunches, addedStarts, removedStarts;
        CounterSeries queue;
        void update();
    };
    struct Device
    {
        std::vector<Interval> added; // non-empty intervals since the last update()
        CounterSeries utilization;   // 1 at each start of the union of its work, 0 at each end
        std::map<int64_t, Stream> streams;
        void update();
    };
    Device& device(int32_t rank, int32_t device);
    Stream& stream(Device& device, int64_t stream);
    std::map<std::pair<int32_t, int32_t>, Device> m_devices;
};

} // namespace spanscope::model
