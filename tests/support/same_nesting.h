#pragma once
// Compares what two analyses of one capture found (nesting and timeline index), for the
// tests and the fuzz targets (no Qt): the first difference in words, or empty.

#include "model/capture_loader.h"
#include "model/timeline/timeline_index.h"

#include <algorithm>
#include <string>
#include <vector>

namespace spanscope::testing {

// A depth row's level-of-detail summaries against their definition (timeline_lod.h),
// computed from its calls: a row that went on from an earlier snapshot keeps the buckets
// it was given then, so it is not compared with a fresh build.
inline std::string lodDifference(const model::Capture& c, const model::DepthRow& row)
{
    const model::RowLod& lod = row.lod;
    if (lod.levels.empty())
        return {};
    const auto& start = c.events.start;
    const auto& end = c.events.end;
    const int64_t w0 = lod.levels.front().width;
    const size_t finest = lod.levels.front().buckets();
    for (size_t l = 0; l < lod.levels.size(); ++l) {
        const model::LodLevel& level = lod.levels[l];
        const size_t buckets = level.buckets();
        const std::string where = "level " + std::to_string(l) + " ";
        if (level.first.size() != buckets + 1 || level.width % w0 != 0)
            return where + "has the wrong shape";
        for (size_t b = 0; b <= buckets; ++b) {
            const int64_t at = lod.base + int64_t(b) * level.width;
            const auto first = std::partition_point(row.events.begin(), row.events.end(),
                                                    [&](uint32_t e) { return start[e] < at; });
            if (level.first[b] != size_t(first - row.events.begin()))
                return where + "bucket " + std::to_string(b) + ": wrong first call";
        }
        std::vector<int64_t> longest(buckets, 0);
        std::vector<bool> covered(buckets, false);
        const auto fold = size_t(level.width / w0);
        for (const uint32_t e : row.events) {
            const auto b0 = size_t((start[e] - lod.base) / level.width);
            if (b0 >= buckets)
                return where + "lacks the bucket of a call";
            longest[b0] = std::max(longest[b0], end[e] - start[e]);
            // Coverage is that of level 0 (clipped to its last bucket), folded 4 to 1.
            const auto f0 = size_t((start[e] - lod.base) / w0);
            const auto f1 =
                std::min(end[e] > start[e] ? size_t((end[e] - 1 - lod.base) / w0) : f0, finest - 1);
            for (size_t b = f0 / fold; b <= f1 / fold; ++b)
                covered[b] = true;
        }
        for (size_t b = 0; b < buckets; ++b)
            if (level.longest[b] != longest[b] || level.isCovered(b) != covered[b])
                return where + "bucket " + std::to_string(b) + ": wrong longest call or coverage";
    }
    return {};
}

// Two timeline indexes of one capture: the same lanes, rows of calls, sums and samples;
// the summaries of each row right.
inline std::string timelineDifference(const model::Capture& c, const model::TimelineIndex& x,
                                      const model::TimelineIndex& y)
{
    if (x.lanes().size() != y.lanes().size() || x.begin() != y.begin() || x.end() != y.end())
        return "different lanes or time range";
    for (size_t l = 0; l < y.lanes().size(); ++l) {
        const model::TimelineLane& a = x.lanes()[l];
        const model::TimelineLane& b = y.lanes()[l];
        const std::string lane = "lane " + std::to_string(l);
        if (a.track != b.track || a.calls != b.calls || a.unclosed != b.unclosed ||
            a.depths.size() != b.depths.size())
            return lane + " differs";
        for (size_t d = 0; d < b.depths.size(); ++d) {
            const model::DepthRow& p = a.depths[d];
            const model::DepthRow& q = b.depths[d];
            const std::string row = lane + " depth " + std::to_string(d);
            if (p.events != q.events)
                return row + ": different calls";
            if (p.busyPrefix != q.busyPrefix || p.maxEnd != q.maxEnd ||
                p.sampledStart != q.sampledStart)
                return row + ": different sums or samples";
            if (p.lod.levels.empty() != q.lod.levels.empty())
                return row + ": summaries made in one only";
            if (std::string lod = lodDifference(c, p); !lod.empty())
                return row + " " + lod;
        }
    }
    return {};
}

// Two analyses of one capture (the same events): every call a row holds at the same depth,
// the same exclusive times per row and lane, as many warnings, the same timeline index.
inline std::string nestingDifference(const model::LoadedCapture& x, const model::LoadedCapture& y)
{
    const model::Capture& a = *x.capture;
    const model::Capture& b = *y.capture;
    if (a.events.depth.size() != b.events.depth.size())
        return "depth columns of different sizes";
    for (const model::RegionRow& row : b.rows)
        for (const uint64_t e : b.rowEvents(row))
            if (a.events.depth[e] != b.events.depth[e])
                return "event " + std::to_string(e) + " at depth " +
                       std::to_string(a.events.depth[e]) + ", not " +
                       std::to_string(b.events.depth[e]);
    if (a.rowExclusive != b.rowExclusive)
        return "different exclusive times per row";
    if (a.laneExclusive.size() != b.laneExclusive.size())
        return "different lanes' exclusive times";
    for (size_t i = 0; i < b.laneExclusive.size(); ++i)
        if (a.laneExclusive[i].row != b.laneExclusive[i].row ||
            a.laneExclusive[i].track != b.laneExclusive[i].track ||
            a.laneExclusive[i].exclusiveNs != b.laneExclusive[i].exclusiveNs)
            return "lanes' exclusive time " + std::to_string(i) + " differs";
    if (a.warnings.size() != b.warnings.size())
        return "different warnings";
    if (!x.timeline != !y.timeline)
        return "a timeline index in one only";
    return x.timeline ? timelineDifference(a, *x.timeline, *y.timeline) : std::string();
}

} // namespace spanscope::testing
