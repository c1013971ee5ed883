#pragma once
// Checks of the GPU time of CPU calls against its definition (model/gpu/launch_gpu_time.h),
// from every launch flow, and of the rows' sums of it that live snapshots keep
// (Capture::rowGpuTimes). Shared by tst_gpu_launches and tst_live_gpu_time.

#include "model/capture.h"

#include <QString>
#include <algorithm>
#include <cstdint>
#include <map>

namespace spanscope::testing {

// Every CPU call's GPU time as deriveLaunchGpuTime defines it, from every Launch flow: the
// summed duration of the work launched by calls on its track starting within it; -1 when
// no launch does. A GPU call's own duration. Empty when they all agree with the capture's,
// else the first that does not.
inline QString gpuTimeDifference(const model::Capture& c)
{
    const auto& e = c.events;
    std::map<uint32_t, int64_t> launched; // launch event -> its work's summed duration
    for (size_t f = 0; f < c.flows.size(); ++f)
        if (c.flows.kind(f) == model::FlowKind::Launch) {
            const uint32_t to = c.flows.to(f);
            launched[c.flows.from(f)] += e.end[to] >= e.start[to] ? e.end[to] - e.start[to] : 0;
        }
    for (const model::RegionRow& row : c.rows)
        for (const uint64_t i : c.rowEvents(row)) {
            int64_t expected = -1;
            if (c.regionKind(row.region) != model::RegionKind::Cpu)
                expected = e.end[i] >= e.start[i] ? e.end[i] - e.start[i] : -1;
            else if (e.end[i] >= e.start[i])
                for (const auto& [launch, ns] : launched)
                    if (e.track[launch] == e.track[i] && e.start[launch] >= e.start[i] && e.start[launch] <= e.end[i])
                        expected = std::max<int64_t>(expected, 0) + ns;
            const int64_t shown = e.gpu.empty() ? -1 : e.gpu[i]; // no column: none has any
            if (shown != expected)
                return QString("event %1 of '%2': GPU time %3, expected %4")
                    .arg(i)
                    .arg(QString::fromStdString(c.regionName(row.region)))
                    .arg(shown)
                    .arg(expected);
        }
    return {};
}

// Empty when every row's Capture::rowGpuTimes (where the capture has them) counts and sums
// its closed calls' GPU times (those >= 0), else the first row where it does not.
inline QString rowGpuTimesDifference(const model::Capture& c)
{
    if (c.events.gpu.empty() && c.rowGpuTimes.empty()) // no GPU times yet
        return {};
    if (c.rowGpuTimes.size() != c.rows.size())
        return QString("%1 rows, %2 sums").arg(c.rows.size()).arg(c.rowGpuTimes.size());
    const auto& e = c.events;
    for (size_t r = 0; r < c.rows.size(); ++r) {
        model::RowGpuTime expected;
        __int128 total = 0; // saturating at the end, as the statistics' sums do
        for (const uint64_t i : c.rowEvents(c.rows[r]))
            if (e.end[i] >= e.start[i] && e.gpu[i] >= 0)
                ++expected.calls, total += e.gpu[i];
        expected.total = total > INT64_MAX ? INT64_MAX : int64_t(total);
        if (c.rowGpuTimes[r].calls != expected.calls || c.rowGpuTimes[r].total != expected.total)
            return QString("row %1 ('%2'): %3 calls, %4 ns; expected %5 calls, %6 ns")
                .arg(r)
                .arg(QString::fromStdString(c.regionName(c.rows[r].region)))
                .arg(c.rowGpuTimes[r].calls)
                .arg(c.rowGpuTimes[r].total)
                .arg(expected.calls)
                .arg(expected.total);
    }
    return {};
}

} // namespace spanscope::testing
