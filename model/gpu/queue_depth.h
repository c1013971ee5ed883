#pragma once
// The queue of one stream: work launched and not yet started. +1 at each activity's launch
// call's start, −1 at the activity's start, in time order with −1 before +1 at equal times
// (docs/gpu-analyses.md, max_queue). One walk for the analyses' max_queue and the queue lane.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace spanscope::model {

// The walk over ascending `launchStarts` from index i and ascending `activityStarts` from
// index j, at a time before which the depth was `depth` (i and j the first launch and start
// at or after it): emit(time, depth) once per time at which something changes, with the
// depth after every change at that time. Any arrays with size() and operator[]. O(n).
template <typename Launches, typename Starts, typename Emit>
void walkSortedQueueDepth(const Launches& launchStarts, size_t i, const Starts& activityStarts, size_t j,
                          int64_t depth, Emit emit)
{
    while (i < launchStarts.size() || j < activityStarts.size()) {
        const bool start = j < activityStarts.size() && (i == launchStarts.size() || activityStarts[j] <= launchStarts[i]);
        const int64_t t = start ? activityStarts[j] : launchStarts[i];
        // Every change at t: the starts first, then the launches.
        while (j < activityStarts.size() && activityStarts[j] == t) {
            --depth;
            ++j;
        }
        while (i < launchStarts.size() && launchStarts[i] == t) {
            ++depth;
            ++i;
        }
        emit(t, depth); // the most it is at t: its starts leave before its launches join
    }
}

// `activityStarts` ascending, `launchStarts` any order (sorted here), one each per activity
// that has a launch: the whole walk. O(n log n).
template <typename Emit>
void walkQueueDepth(std::vector<int64_t>& launchStarts, const std::vector<int64_t>& activityStarts, Emit emit)
{
    std::sort(launchStarts.begin(), launchStarts.end());
    walkSortedQueueDepth(launchStarts, 0, activityStarts, 0, 0, emit);
}

} // namespace spanscope::model
