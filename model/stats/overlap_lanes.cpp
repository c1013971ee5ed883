#include "overlap_lanes.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace spanscope::model {

namespace {

// One lane of a track while packing: the calls still open on it, innermost last.
struct PackedLane
{
    std::vector<std::pair<int64_t, int64_t>> open; // (start, end)
    uint32_t track = TrackId::kNone;
};

// The rule nesting uses (nesting.h): an open call closes for a call starting at `start`
// when it ended at or before it, except a zero-length call at that very instant.
bool closesAt(const std::pair<int64_t, int64_t>& call, int64_t start)
{
    return call.second < start || (call.second == start && call.first != call.second);
}

} // namespace

std::optional<Warning> inferOverlapLanes(Capture& capture)
{
    EventColumns& events = capture.events;
    const uint64_t n = events.size();
    // Which row each call belongs to, and per-call tracks (rows may now span lanes).
    std::vector<uint32_t> rowOf(n, UINT32_MAX);
    const bool hadPerCallTracks = !events.track.empty();
    if (!hadPerCallTracks)
        events.track.resize(n);
    for (uint32_t r = 0; r < capture.rows.size(); ++r) {
        const RegionRow& row = capture.rows[r];
        for (const uint64_t i : capture.rowEvents(row)) {
            if (i >= n)
                continue;
            rowOf[i] = r;
            if (!hadPerCallTracks)
                events.track.set(i, row.track.value);
        }
    }

    // Closed calls grouped by track (a counting sort), each group in nesting order.
    const size_t originalTracks = capture.tracks.size();
    std::vector<uint64_t> first(originalTracks + 1, 0);
    for (uint64_t i = 0; i < n; ++i)
        if (rowOf[i] != UINT32_MAX && events.end[i] >= events.start[i] && events.track[i] < originalTracks)
            ++first[events.track[i] + 1];
    std::partial_sum(first.begin(), first.end(), first.begin());
    std::vector<uint32_t> order(first.back());
    std::vector<uint64_t> fill(first.begin(), first.end() - 1);
    for (uint64_t i = 0; i < n; ++i)
        if (rowOf[i] != UINT32_MAX && events.end[i] >= events.start[i] && events.track[i] < originalTracks)
            order[fill[events.track[i]]++] = uint32_t(i);

    uint64_t moved = 0;
    size_t lanesAdded = 0;
    std::map<uint32_t, uint64_t> movedPerRow;
    std::set<int32_t> ranksTouched;
    std::vector<PackedLane> lanes;
    for (uint32_t t = 0; t < originalTracks; ++t) {
        const auto begin = order.begin() + int64_t(first[t]), end = order.begin() + int64_t(first[t + 1]);
        if (begin == end)
            continue;
        std::stable_sort(begin, end, [&](uint32_t a, uint32_t b) {
            if (events.start[a] != events.start[b])
                return events.start[a] < events.start[b];
            return events.end[a] > events.end[b];
        });
        lanes.assign(1, PackedLane{{}, t});
        for (auto it = begin; it != end; ++it) {
            const uint32_t e = *it;
            const int64_t start = events.start[e], stop = events.end[e];
            size_t k = 0;
            for (; k < lanes.size(); ++k) {
                auto& open = lanes[k].open;
                while (!open.empty() && closesAt(open.back(), start))
                    open.pop_back();
                if (open.empty() || open.back().second >= stop)
                    break;
            }
            if (k == lanes.size()) {
                if (lanes.size() > kMaxInferredLanes) {
                    k = lanes.size() - 1; // nesting warns about what is left
                } else {
                    Track lane = capture.tracks[t];
                    lane.inferredLane = uint16_t(lanes.size());
                    lanes.push_back(PackedLane{{}, addTrack(capture, lane).value});
                    ++lanesAdded;
                    ranksTouched.insert(lane.rank);
                }
            }
            lanes[k].open.emplace_back(start, stop);
            if (k > 0) {
                events.track.set(e, lanes[k].track);
                ++moved;
                ++movedPerRow[rowOf[e]];
            }
        }
    }
    if (lanesAdded == 0) {
        if (!hadPerCallTracks)
            events.track.clear();
        return std::nullopt;
    }

    // Name the regions moved, most calls first.
    std::map<std::string, uint64_t> perRegion;
    for (const auto& [row, count] : movedPerRow)
        perRegion[capture.regionName(capture.rows[row].region)] += count;
    std::vector<std::pair<std::string, uint64_t>> regions(perRegion.begin(), perRegion.end());
    std::stable_sort(regions.begin(), regions.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    constexpr size_t kRegionsNamed = 4;
    std::string names;
    for (size_t i = 0; i < std::min(regions.size(), kRegionsNamed); ++i)
        names += (i ? ", '" : "'") + regions[i].first + "' (" + std::to_string(regions[i].second) + ")";
    if (regions.size() > kRegionsNamed)
        names += " and " + std::to_string(regions.size() - kRegionsNamed) + " more regions";
    std::string ranks;
    for (const int32_t rank : ranksTouched)
        ranks += (ranks.empty() ? "" : ", ") + std::to_string(rank);
    std::string message = "calls overlap without nesting on one lane ("
                          + std::string(ranksTouched.size() > 1 ? "ranks " : "rank ") + ranks + "): "
                          + std::to_string(moved) + " calls of " + names + " were moved to "
                          + std::to_string(lanesAdded)
                          + " inferred overlap lanes so that every call nests in its caller";
    if (!events.hasThreads() && !events.hasTasks())
        message += "; the file records no thread of its calls, so calls of several threads "
                   "may share a lane";
    return Warning{message, {}};
}

} // namespace spanscope::model
