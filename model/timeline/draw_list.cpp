#include "draw_list.h"

#include <algorithm>
#include <cmath>

namespace spanscope::model {

namespace {

class FrameBuilder
{
public:
    FrameBuilder(const Capture& capture, const TimelineIndex& index, const TimelineViewport& viewport)
        : m_capture(capture), m_index(index), m_view(viewport), m_useLod(viewport.useLod),
          m_pxPerNs(viewport.pxPerNs()),
          m_pixelNs(std::max<int64_t>(1, int64_t(std::ceil(1.0 / m_pxPerNs))))
    {}

    DrawList build();

private:
    float x(int64_t t) const { return float(double(t - m_view.t0) * m_pxPerNs); }
    void addRow(uint32_t laneIndex, uint16_t depth, const DepthRow& row, int32_t y);
    void addCall(uint32_t laneIndex, uint16_t depth, uint32_t e, int32_t y);

    const Capture& m_capture;
    const TimelineIndex& m_index;
    const TimelineViewport& m_view;
    const bool m_useLod;
    const double m_pxPerNs;
    const int64_t m_pixelNs; // ns covered by one pixel, at least 1
    DrawList m_list;
};

void FrameBuilder::addCall(uint32_t laneIndex, uint16_t depth, uint32_t e, int32_t y)
{
    const auto& events = m_capture.events;
    const int64_t start = events.start[e], end = events.end[e];
    DrawItem item;
    item.x0 = x(start);
    item.x1 = x(end);
    item.y = y;
    item.height = uint16_t(m_view.rowHeight - 1);
    item.kind = DrawKind::Call;
    item.depth = depth;
    item.lane = laneIndex;
    item.event = e;
    item.count = 1;
    m_list.items.push_back(item);
    m_list.callsInView += 1;
    if (events.hasGpu() && events.gpu[e] >= 0) {
        DrawItem gpu = item;
        gpu.kind = DrawKind::GpuBar;
        gpu.count = 0;
        gpu.x1 = item.x0 + float(double(events.gpu[e]) * m_pxPerNs);
        gpu.y = y + m_view.rowHeight - 4;
        gpu.height = 3;
        m_list.items.push_back(gpu);
    }
    if (events.hasAwait() && events.awaitNs[e] > 0 && end > start) {
        DrawItem await = item;
        await.kind = DrawKind::Await;
        await.count = 0;
        const double share = std::min(1.0, double(events.awaitNs[e]) / double(end - start));
        await.x1 = item.x0 + float((item.x1 - item.x0) * share);
        await.height = 3;
        m_list.items.push_back(await);
    }
}

void FrameBuilder::addRow(uint32_t laneIndex, uint16_t depth, const DepthRow& row, int32_t y)
{
    const auto& events = m_capture.events;
    auto [i, last] = m_index.visibleRange(m_capture, row, m_view.t0, m_view.t1);
    while (i < last) {
        const uint32_t e = row.events[i];
        const int64_t start = events.start[e], end = events.end[e];
        if (end <= m_view.t0 && !(end == start && start == m_view.t0)) {
            ++i; // left of the view (only possible next to a partial-overlap anomaly)
            continue;
        }
        if (end - start >= m_pixelNs) {
            addCall(laneIndex, depth, e, y);
            ++i;
            continue;
        }
        // Fold this call and its successors while each is under a pixel and no gap of a
        // pixel or more separates them. Every step moves at least a pixel to the right,
        // so a row costs O(pixels x log n) however many calls it holds.
        size_t j = i + 1;
        int64_t blockEnd = end;
        const int level = m_useLod ? row.lod.levelFor(m_pixelNs) : -1;
        if (level >= 0) {
            // Zoomed out: the summaries say where the fold ends without reading the calls
            // (gaps are judged to a bucket, a fraction of a pixel).
            j = lodFoldEnd(m_capture, row.events.data(), row.lod, level, i, end, m_pixelNs, last);
            blockEnd = std::max(end, events.end[row.events[j - 1]]);
        }
        while (level < 0 && j < last) {
            // Calls starting less than a pixel after the block join it. Within a depth calls
            // do not overlap, so only the last of them can be a pixel wide or more.
            const size_t next =
                std::min(TimelineIndex::firstStartingAtOrAfter(m_capture, row, j, blockEnd + m_pixelNs), last);
            if (next == j)
                break; // a gap of at least a pixel
            const uint32_t tail = row.events[next - 1];
            if (events.end[tail] - events.start[tail] >= m_pixelNs) {
                j = next - 1; // the wide call is drawn on its own
                break;
            }
            blockEnd = std::max(blockEnd, events.end[tail]);
            j = next;
        }
        j = std::min(j, last);
        DrawItem item;
        item.x0 = x(start);
        item.x1 = std::max(x(blockEnd), item.x0 + 1.0f);
        item.y = y;
        item.height = uint16_t(m_view.rowHeight - 1);
        item.kind = j - i == 1 ? DrawKind::Call : DrawKind::Folded;
        item.depth = depth;
        item.lane = laneIndex;
        item.event = e;
        item.count = j - i;
        const int64_t span = std::max<int64_t>(1, blockEnd - start);
        item.busy = float(std::min(1.0, double(row.busy(i, j)) / double(span)));
        m_list.items.push_back(item);
        m_list.callsInView += item.count;
        i = j;
    }
}

DrawList FrameBuilder::build()
{
    const auto& lanes = m_index.lanes();
    int32_t top = 0;
    for (uint32_t laneIndex = 0; laneIndex < lanes.size(); ++laneIndex) {
        const auto& lane = lanes[laneIndex];
        if (m_view.isHidden(laneIndex)) {
            m_list.lanes.push_back(LaneGeometry{top - m_view.scrollY, 0, true});
            continue;
        }
        const bool collapsed = m_view.isCollapsed(laneIndex);
        const int32_t rows = collapsed ? 0 : int32_t(lane.depths.size());
        LaneGeometry geometry;
        geometry.y = top - m_view.scrollY;
        geometry.height = m_view.headerHeight + rows * m_view.rowHeight;
        geometry.collapsed = collapsed;
        m_list.lanes.push_back(geometry);

        if (geometry.y + geometry.height > 0 && geometry.y < m_view.height) {
            DrawItem header;
            header.kind = DrawKind::LaneHeader;
            header.x0 = 0;
            header.x1 = float(m_view.width);
            header.y = geometry.y;
            header.height = uint16_t(m_view.headerHeight);
            header.lane = laneIndex;
            header.count = lane.calls;
            m_list.items.push_back(header);
            for (int32_t depth = 0; depth < rows; ++depth) {
                const int32_t y = geometry.y + m_view.headerHeight + depth * m_view.rowHeight;
                if (y + m_view.rowHeight <= 0 || y >= m_view.height)
                    continue; // row scrolled out of sight
                addRow(laneIndex, uint16_t(depth), lane.depths[size_t(depth)], y);
            }
            if (!collapsed) {
                for (const uint32_t e : lane.unclosed) {
                    const int64_t start = m_capture.events.start[e];
                    if (start >= m_view.t1)
                        continue;
                    const int32_t y = geometry.y + m_view.headerHeight;
                    DrawItem item;
                    item.kind = DrawKind::Unclosed;
                    item.x0 = x(start);
                    item.x1 = std::max(x(m_index.end()), item.x0 + 1.0f);
                    item.y = y;
                    item.height = uint16_t(m_view.rowHeight - 1);
                    item.lane = laneIndex;
                    item.event = e;
                    m_list.items.push_back(item);
                }
            }
        }
        top += geometry.height + m_view.laneGap;
    }
    m_list.contentHeight = top;
    return std::move(m_list);
}

} // namespace

DrawList buildDrawList(const Capture& capture, const TimelineIndex& index, const TimelineViewport& viewport)
{
    return FrameBuilder(capture, index, viewport).build();
}

int hitTest(const DrawList& list, float x, int y)
{
    int header = -1;
    int best = -1;
    for (size_t i = 0; i < list.items.size(); ++i) {
        const auto& item = list.items[i];
        if (y < item.y || y >= item.y + item.height)
            continue;
        const float slack = item.x1 - item.x0 < 3.0f ? 1.0f : 0.0f;
        if (x < item.x0 - slack || x >= item.x1 + slack)
            continue;
        if (item.kind == DrawKind::LaneHeader)
            header = int(i);
        else if (item.kind == DrawKind::Call || item.kind == DrawKind::Folded || item.kind == DrawKind::Unclosed)
            best = int(i);
    }
    return best >= 0 ? best : header;
}

} // namespace spanscope::model
