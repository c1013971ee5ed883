// Whole-capture checks after reading: they warn, never fail.

#include "reader_parts.h"

#include "../stats/saturating.h"

#include <set>

namespace spanscope::model::io {

namespace {

std::string rowLabel(const Capture& capture, const RegionRow& row)
{
    return "region '" + capture.regionName(row.region) + "' on rank " + std::to_string(row.rank);
}

// Ids in `column` must be -1 or name a row of `table` on the same rank.
void checkLaneIds(Capture& capture, const EventColumn<int64_t>& column,
                  const std::set<std::pair<int32_t, int64_t>>& known, const char* what)
{
    if (column.empty())
        return;
    for (const auto& row : capture.rows) {
        uint64_t unknown = 0;
        for (const uint64_t i : capture.rowEvents(row))
            if (column[i] >= 0 && !known.count({row.rank, column[i]}))
                ++unknown;
        if (unknown)
            capture.warnings.push_back({rowLabel(capture, row) + ": " + std::to_string(unknown)
                                            + " calls name a " + what
                                            + " that the file's table does not list",
                                        "/events"});
    }
}

} // namespace

void checkEvents(Capture& capture)
{
    const auto& events = capture.events;
    for (const auto& row : capture.rows) {
        uint64_t unclosed = 0;
        int64_t total = 0;
        for (const uint64_t i : capture.rowEvents(row)) {
            if (events.end[i] < events.start[i])
                ++unclosed;
            else
                total = addSaturating(total, subtractSaturating(events.end[i], events.start[i]));
        }
        // The writer's stored summary must agree with the calls it summarizes.
        if (row.stored && row.count > 0 && unclosed == 0 && row.stored->total != total)
            capture.warnings.push_back({rowLabel(capture, row) + ": the stored summary says "
                                            + std::to_string(row.stored->total)
                                            + " ns in total but the calls add up to "
                                            + std::to_string(total)
                                            + " ns; the figures shown are computed from the calls",
                                        "/rank_region_index/summary_statistics"});
        if (unclosed)
            capture.warnings.push_back(
                {rowLabel(capture, row) + ": " + std::to_string(unclosed) + " of "
                     + std::to_string(row.count)
                     + " calls end before they start (the run was finalized inside the region); "
                       "they are shown flagged and left out of duration statistics",
                 capture.regionName(row.region)});
    }
    std::set<std::pair<int32_t, int64_t>> threads, tasks;
    for (const auto& t : capture.threads)
        threads.insert({t.rank, t.index});
    for (const auto& t : capture.tasks)
        tasks.insert({t.rank, t.index});
    if (!capture.threads.empty())
        checkLaneIds(capture, events.threadIds, threads, "thread");
    if (!capture.tasks.empty())
        checkLaneIds(capture, events.taskIds, tasks, "task");
}

} // namespace spanscope::model::io
