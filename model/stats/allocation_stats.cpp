#include "allocation_stats.h"

#include "saturating.h"

#include <algorithm>
#include <bit>
#include <map>
#include <set>
#include <unordered_map>

namespace spanscope::model {

size_t log2Bin(uint64_t bytes)
{
    return bytes <= 1 ? 0 : size_t(std::bit_width(bytes) - 1);
}

namespace {

// The time covered by a region's calls on each track: sorted, merged intervals [start, end).
std::unordered_map<uint32_t, std::vector<std::pair<int64_t, int64_t>>>
regionCoverage(const Capture& capture, const std::vector<uint32_t>& rows)
{
    std::unordered_map<uint32_t, std::vector<std::pair<int64_t, int64_t>>> byTrack;
    const auto& e = capture.events;
    for (const uint32_t r : rows) {
        const RegionRow& row = capture.rows[r];
        for (const uint64_t i : capture.rowEvents(row))
            if (e.end[i] >= e.start[i])
                byTrack[capture.trackOfEvent(r, i).value].emplace_back(e.start[i], e.end[i]);
    }
    for (auto& [track, intervals] : byTrack) {
        std::sort(intervals.begin(), intervals.end());
        std::vector<std::pair<int64_t, int64_t>> merged;
        for (const auto& interval : intervals) {
            if (!merged.empty() && interval.first <= merged.back().second)
                merged.back().second = std::max(merged.back().second, interval.second);
            else
                merged.push_back(interval);
        }
        intervals = std::move(merged);
    }
    return byTrack;
}

bool covered(const std::vector<std::pair<int64_t, int64_t>>& intervals, int64_t t)
{
    auto it = std::upper_bound(intervals.begin(), intervals.end(), std::make_pair(t, INT64_MAX));
    return it != intervals.begin() && t < std::prev(it)->second;
}

// The counted allocations in scope: every row for the whole run, else the rows of the
// scope's (region, rank) pairs.
void addCounted(const Capture& capture, const AllocationScope& scope, AllocationBreakdown& b)
{
    b.counted = true;
    std::set<std::pair<int64_t, int32_t>> regions;
    if (scope.rows)
        for (const uint32_t r : *scope.rows)
            regions.emplace(capture.rows[r].region, capture.rows[r].rank);
    const CountedAllocations sum = sumCounted(capture, [&](const CountedAllocations& row) {
        return !scope.rows || regions.count({row.region, capture.track(row.track).rank}) > 0;
    });
    b.allocs += sum.allocations;
    b.allocatedBytes = addSaturating(b.allocatedBytes, clampToInt64(sum.bytes));
    b.frees += sum.frees;
    for (size_t bin = 0; bin < AllocationBreakdown::kBins; ++bin) {
        b.countByLog2[bin] += sum.binAllocations[bin];
        b.bytesByLog2[bin] = addSaturating(b.bytesByLog2[bin], clampToInt64(sum.binBytes[bin]));
    }
    // The heap in use of the job, where it was sampled; a region has no peak of its own.
    b.peakKnown = false;
    if (!scope.rows)
        for (const CounterSeries& series : capture.counters)
            if (!series.empty() && capture.strings.text(capture.track(series.track).name) == "host allocated") {
                b.peakBytes = std::max(b.peakBytes, toInt64Saturating(series.maximum()));
                b.peakKnown = true;
            }
}

} // namespace

void addImpliedAllocationCounters(Capture& capture)
{
    const auto& a = capture.allocations;
    // A live capture's events are only its large allocations: their running sum is not the
    // memory in use (its heap counter is, when the job sampled one).
    if (a.empty() || !capture.countedAllocations.empty())
        return;
    std::set<std::pair<int32_t, int32_t>> reported; // (rank, device) with a source's own total
    for (const auto& series : capture.counters) {
        const Track& track = capture.track(series.track);
        const std::string& name = capture.strings.text(track.name);
        if (name == "allocated" || name == "host allocated")
            reported.emplace(track.rank, track.device);
    }
    std::map<std::pair<int32_t, int32_t>, size_t> seriesOf; // -> index in capture.counters
    std::map<std::pair<int32_t, int32_t>, int64_t> live;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::pair<int32_t, int32_t> key{capture.track(a.track(i)).rank, a.device(i)};
        if (reported.count(key))
            continue;
        auto [it, added] = seriesOf.try_emplace(key, capture.counters.size());
        if (added) {
            Track track;
            track.kind = TrackKind::Counter;
            track.rank = key.first;
            track.device = key.second;
            track.name = capture.strings.intern(key.second < 0 ? "host allocated" : "allocated");
            CounterSeries series;
            series.track = addTrack(capture, track);
            series.unit = capture.strings.intern("bytes");
            capture.counters.push_back(std::move(series));
        }
        int64_t& now = live[key];
        now = addSaturating(now, a.bytes(i));
        capture.counters[it->second].add(a.time(i), double(now));
    }
    for (const auto& [key, index] : seriesOf)
        capture.counters[index].finish();
}

AllocationBreakdown allocationBreakdown(const Capture& capture, const AllocationScope& scope, size_t largest)
{
    AllocationBreakdown b;
    const auto& a = capture.allocations;
    const bool counted = !capture.countedAllocations.empty() &&
                         (!scope.device || *scope.device == AllocationTable::kHost);
    if (counted)
        addCounted(capture, scope, b);
    std::unordered_map<uint32_t, std::vector<std::pair<int64_t, int64_t>>> coverage;
    if (scope.rows)
        coverage = regionCoverage(capture, *scope.rows);
    int64_t live = 0;
    std::vector<std::pair<int64_t, uint32_t>> sizes; // (bytes, row) of allocations in scope
    for (size_t i = 0; i < a.size(); ++i) {
        if (scope.device && a.device(i) != *scope.device)
            continue;
        if (scope.rows) {
            const auto it = coverage.find(a.track(i).value);
            if (it == coverage.end() || !covered(it->second, a.time(i)))
                continue;
        }
        const int64_t bytes = a.bytes(i);
        if (counted && a.device(i) == AllocationTable::kHost) { // counted below
            if (bytes >= 0)
                sizes.emplace_back(bytes, uint32_t(i));
            continue;
        }
        live = addSaturating(live, bytes); // hostile files: no wrap-around
        b.peakBytes = std::max(b.peakBytes, live);
        if (bytes >= 0) {
            ++b.allocs;
            b.allocatedBytes = addSaturating(b.allocatedBytes, bytes);
            const size_t bin = log2Bin(uint64_t(bytes));
            ++b.countByLog2[bin];
            b.bytesByLog2[bin] = addSaturating(b.bytesByLog2[bin], bytes);
            sizes.emplace_back(bytes, uint32_t(i));
        } else {
            ++b.frees;
            b.freedBytes = subtractSaturating(b.freedBytes, bytes);
        }
    }
    const size_t keep = std::min(largest, sizes.size());
    std::partial_sort(sizes.begin(), sizes.begin() + int64_t(keep), sizes.end(),
                      [](const auto& x, const auto& y) { return x.first != y.first ? x.first > y.first : x.second < y.second; });
    for (size_t k = 0; k < keep; ++k)
        b.largest.push_back(sizes[k].second);
    return b;
}

} // namespace spanscope::model
