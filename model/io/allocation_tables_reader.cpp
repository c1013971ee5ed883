#include "allocation_tables_reader.h"

#include "gpu_tables_reader.h"
#include "group_reader.h"

#include "../stats/saturating.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <type_traits>

namespace spanscope::model::io {

namespace {

constexpr const char* kCounters = "/spanscope/counters";
constexpr const char* kAlloc = "/spanscope/alloc";

bool validRank(int64_t rank)
{
    return rank >= 0 && rank <= INT32_MAX;
}

bool validDevice(int64_t device)
{
    return device >= -1 && device <= INT32_MAX;
}

// The Thread track of (rank, thread) for rows that name a thread of the thread table; one
// lookup per thread, so the cost stays linear in the rows.
class ThreadTracks
{
public:
    explicit ThreadTracks(Capture& capture) : m_capture(capture) {}
    // Invalid when the thread table has no such thread.
    TrackId operator()(int64_t rank, int64_t thread)
    {
        if (!validRank(rank) || !m_capture.thread(int32_t(rank), thread))
            return {};
        auto [it, added] = m_tracks.try_emplace({rank, thread});
        if (added)
            it->second = threadTrack(m_capture, int32_t(rank), thread);
        return it->second;
    }

private:
    Capture& m_capture;
    std::map<std::pair<int64_t, int64_t>, TrackId> m_tracks;
};

std::string readCounters(const H5File& file, Capture& capture, std::vector<CounterSeries>& out)
{
    GroupReader g{file, kCounters, {}};
    const auto ranks = g.ints("ranks");
    const auto devices = g.ints("devices");
    const auto names = g.texts("names");
    const auto units = g.texts("units");
    const auto sampleCounters = g.ints("sample_counters");
    const auto times = g.ints("sample_times");
    const auto values = g.doubles("sample_values");
    if (!g.problem.empty())
        return g.problem;
    if (ranks.size() != devices.size() || ranks.size() != names.size() || ranks.size() != units.size() ||
        sampleCounters.size() != times.size() || times.size() != values.size())
        return "its columns differ in length";
    for (size_t k = 0; k < ranks.size(); ++k) {
        if (!validRank(ranks[k]) || !validDevice(devices[k]))
            return "a counter's rank or device is out of range";
        CounterSeries series;
        series.track = counterTrack(capture, int32_t(ranks[k]), int32_t(devices[k]), names[k]);
        series.unit = capture.strings.intern(units[k]);
        out.push_back(std::move(series));
    }
    for (size_t i = 0; i < times.size(); ++i) {
        if (sampleCounters[i] < 0 || uint64_t(sampleCounters[i]) >= out.size())
            return "a sample names a counter that does not exist";
        if (!std::isfinite(values[i]))
            return "a sample's value is not a finite number";
        out[size_t(sampleCounters[i])].add(times[i], values[i]);
    }
    for (auto& series : out)
        series.finish();
    return {};
}

std::string readAllocations(const H5File& file, Capture& capture, AllocationTable& events,
                            std::vector<CountedAllocations>& counted)
{
    GroupReader g{file, kAlloc, {}};
    const auto ranks = g.ints("event_ranks");
    const auto threads = g.ints("event_threads");
    const auto times = g.ints("event_times");
    const auto addresses = g.counts("event_addresses");
    const auto bytes = g.ints("event_bytes");
    const auto devices = g.ints("event_devices");
    const auto countedRanks = g.ints("counted_ranks");
    const auto countedThreads = g.ints("counted_threads");
    const auto regions = g.ints("counted_regions");
    const auto allocations = g.counts("counted_allocations");
    const auto countedBytes = g.counts("counted_bytes");
    const auto frees = g.counts("counted_frees");
    const auto binAllocations = g.counts("counted_bin_allocations");
    const auto binBytes = g.counts("counted_bin_bytes");
    if (!g.problem.empty())
        return g.problem;
    const size_t n = ranks.size(), m = countedRanks.size();
    constexpr size_t kBins = CountedAllocations::kBins;
    if (threads.size() != n || times.size() != n || addresses.size() != n || bytes.size() != n ||
        devices.size() != n || countedThreads.size() != m || regions.size() != m ||
        allocations.size() != m || countedBytes.size() != m || frees.size() != m ||
        binAllocations.size() != m * kBins || binBytes.size() != m * kBins)
        return "its columns differ in length";
    ThreadTracks trackOf(capture);
    for (size_t i = 0; i < n; ++i) {
        if (!validDevice(devices[i]))
            return "an allocation's device is out of range";
        // Thread -1: device memory no thread is known to have asked for (its GPU's track).
        const TrackId track = threads[i] == -1 && devices[i] >= 0 && validRank(ranks[i])
                                  ? gpuDeviceTrack(capture, int32_t(ranks[i]), int32_t(devices[i]))
                                  : trackOf(ranks[i], threads[i]);
        if (!track.valid())
            return "an allocation names a thread the thread table does not have";
        // Sizes beyond 2^61 bytes are not real; sums of real ones cannot overflow.
        if (bytes[i] > kTimeLimitNs || bytes[i] < -kTimeLimitNs)
            return "an allocation's size is out of range";
        events.add(times[i], track, addresses[i], bytes[i], int32_t(devices[i]));
    }
    events.finish();
    for (size_t i = 0; i < m; ++i) {
        const TrackId track = trackOf(countedRanks[i], countedThreads[i]);
        if (!track.valid())
            return "counted allocations name a thread the thread table does not have";
        if (regions[i] < -1 || regions[i] >= int64_t(capture.regionNames.size()))
            return "counted allocations name a region that does not exist";
        CountedAllocations row;
        row.track = track;
        row.region = regions[i];
        row.allocations = allocations[i];
        row.bytes = countedBytes[i];
        row.frees = frees[i];
        std::copy_n(binAllocations.begin() + int64_t(i * kBins), kBins, row.binAllocations.begin());
        std::copy_n(binBytes.begin() + int64_t(i * kBins), kBins, row.binBytes.begin());
        counted.push_back(row);
    }
    return {};
}

} // namespace

void readAllocationTables(const H5File& file, Capture& capture)
{
    const bool counters = file.isGroup(kCounters), alloc = file.isGroup(kAlloc);
    if (!counters && !alloc)
        return;
    assignTracks(capture); // the tables sit on the capture's tracks
    // Tracks a damaged group added stay: an empty lane is harmless, the warning says why.
    if (counters) {
        std::vector<CounterSeries> series;
        if (const std::string problem = readCounters(file, capture, series); !problem.empty())
            capture.warnings.push_back({"the counters cannot be read and are left out: " + problem, kCounters});
        else
            capture.counters = std::move(series);
    }
    if (alloc) {
        AllocationTable events;
        std::vector<CountedAllocations> counted;
        if (const std::string problem = readAllocations(file, capture, events, counted); !problem.empty()) {
            capture.warnings.push_back(
                {"the allocation tables cannot be read and are left out: " + problem, kAlloc});
        } else {
            capture.allocations = std::move(events);
            capture.countedAllocations = std::move(counted);
        }
    }
}

} // namespace spanscope::model::io
