#include "draw_list.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

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
    // `height` 0: a full row; else the strip of a collapsed lane (no GPU or await bars).
    void addRow(uint32_t laneIndex, uint16_t depth, const DepthRow& row, int32_t y, uint16_t height = 0);
    void addCall(uint32_t laneIndex, uint16_t depth, uint32_t e, int32_t y, uint16_t height = 0);
    void addCounter(uint32_t laneIndex, const CounterSeries& series, int32_t y, int32_t height);
    // Instants or marks of a lane at positions [i, last) of their index, as DrawKind `kind`.
    template <typename TimeOf, typename FirstFrom, typename EventOf>
    void addPoints(DrawKind kind, uint32_t laneIndex, int32_t y, size_t i, size_t last, TimeOf timeOf,
                   FirstFrom firstFrom, EventOf eventOf);
    void addInstants(uint32_t laneIndex, TrackId track, int32_t y);
    void addMarks(uint32_t laneIndex, int32_t y);
    void addRangeEnd(uint32_t event);
    float pointRowY(int32_t lane) const; // middle of a lane's first row (its header when collapsed)
    // Where a folded lane's calls are: the middle of the busy strip at the bottom of its header.
    float stripY(const LaneGeometry& geometry) const
    {
        return float(geometry.y + m_view.headerHeight - 1) - float(kStripHeight) / 2;
    }
    void addFlows();
    void addCriticalPath();
    // Where a path node is drawn: its time, on its call's row (the header of a folded lane).
    std::optional<std::pair<float, float>> pathPoint(const analysis::PathNode& node) const;
    std::optional<std::pair<float, float>> anchor(uint32_t event) const;
    int32_t laneRows(const TimelineLane& lane, size_t index) const { return shownRowCount(lane, index, m_view); }

    const Capture& m_capture;
    const TimelineIndex& m_index;
    const TimelineViewport& m_view;
    const bool m_useLod;
    const double m_pxPerNs;
    const int64_t m_pixelNs; // ns covered by one pixel, at least 1
    DrawList m_list;
};

void FrameBuilder::addCall(uint32_t laneIndex, uint16_t depth, uint32_t e, int32_t y, uint16_t height)
{
    const auto& events = m_capture.events;
    const int64_t start = events.start[e], end = events.end[e];
    DrawItem item;
    item.x0 = x(start);
    item.x1 = x(end);
    item.y = y;
    item.height = height ? height : uint16_t(m_view.rowHeight - 1);
    item.kind = DrawKind::Call;
    item.depth = depth;
    item.lane = laneIndex;
    item.event = e;
    item.count = 1;
    m_list.items.push_back(item);
    m_list.callsInView += 1;
    if (height)
        return; // a strip: the calls alone
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

void FrameBuilder::addRow(uint32_t laneIndex, uint16_t depth, const DepthRow& row, int32_t y, uint16_t height)
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
            addCall(laneIndex, depth, e, y, height);
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
        item.height = height ? height : uint16_t(m_view.rowHeight - 1);
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

void FrameBuilder::addCounter(uint32_t laneIndex, const CounterSeries& series, int32_t y, int32_t height)
{
    // One bar per pixel column holding the largest value the step plot takes there, so a
    // one-sample peak shows at every zoom; equal neighbours merge into one item.
    const double low = std::min(0.0, series.minimum()), high = std::max(0.0, series.maximum());
    const double range = high > low ? high - low : 1.0;
    DrawItem* open = nullptr;
    for (int px = 0; px < m_view.width; ++px) {
        const int64_t t0 = m_view.t0 + int64_t(double(px) / m_pxPerNs);
        const int64_t t1 = std::max(t0 + 1, m_view.t0 + int64_t(double(px + 1) / m_pxPerNs));
        const double value = series.levelOver(t0, t1);
        if (std::isnan(value)) {
            open = nullptr;
            continue;
        }
        const auto barHeight = uint16_t(std::clamp<double>(std::round((value - low) / range * (height - 2)), 1, height - 2));
        if (open && open->height == barHeight && open->busy == float(value) && open->x1 == float(px)) {
            open->x1 = float(px + 1);
            continue;
        }
        DrawItem item;
        item.kind = DrawKind::Counter;
        item.x0 = float(px);
        item.x1 = float(px + 1);
        item.y = y + height - 1 - barHeight;
        item.height = barHeight;
        item.lane = laneIndex;
        item.busy = float(value);
        m_list.items.push_back(item);
        open = &m_list.items.back();
    }
}

template <typename TimeOf, typename FirstFrom, typename EventOf>
void FrameBuilder::addPoints(DrawKind kind, uint32_t laneIndex, int32_t y, size_t i, size_t last, TimeOf timeOf,
                             FirstFrom firstFrom, EventOf eventOf)
{
    // Points closer than a pixel share one glyph that counts them; each step skips a
    // pixel's worth, so a lane costs O(pixels x log n) however many points it holds.
    while (i < last) {
        const float px = std::floor(x(timeOf(i)));
        const int64_t nextPixel = m_view.t0 + int64_t(std::ceil(double(px + 1) / m_pxPerNs));
        const size_t next = std::max(i + 1, firstFrom(nextPixel));
        DrawItem item;
        item.kind = kind;
        item.x0 = px;
        item.x1 = px + 1;
        item.y = y;
        item.height = uint16_t(m_view.rowHeight - 1);
        item.lane = laneIndex;
        item.event = eventOf(i);
        item.count = std::min(next, last) - i;
        m_list.items.push_back(item);
        i = next;
    }
}

void FrameBuilder::addInstants(uint32_t laneIndex, TrackId track, int32_t y)
{
    const auto& instants = m_capture.instants;
    const auto [first, last] = instants.range(track, m_view.t0, m_view.t1);
    addPoints(
        DrawKind::Instant, laneIndex, y, first, last, [&](size_t i) { return instants.time(i); },
        [&](int64_t t) { return instants.range(track, t, m_view.t1).first; }, [](size_t i) { return uint32_t(i); });
}

void FrameBuilder::addMarks(uint32_t laneIndex, int32_t y)
{
    const auto& marks = m_capture.nvtx.marks;
    const auto& order = m_index.marks();
    const auto [first, last] = m_index.marksIn(m_capture, laneIndex, m_view.t0, m_view.t1);
    addPoints(
        DrawKind::Mark, laneIndex, y, first, last, [&](size_t i) { return marks[order[i]].timeNs; },
        [&](int64_t t) { return m_index.marksIn(m_capture, laneIndex, t, m_view.t1).first; },
        [&](size_t i) { return order[i]; });
}

float FrameBuilder::pointRowY(int32_t lane) const
{
    const LaneGeometry& geometry = m_list.lanes[size_t(lane)];
    return geometry.collapsed ? float(geometry.y) + float(m_view.headerHeight) / 2
                              : float(geometry.y + m_view.headerHeight) + float(m_view.rowHeight) / 2;
}

void FrameBuilder::addRangeEnd(uint32_t event)
{
    // A start/end range that another thread ended: an arrow from where it started (its
    // starting thread, at its start) to where it ended (the ending thread, at its end).
    const int64_t endThread = m_capture.nvtx.endThreadOf(event);
    const auto& events = m_capture.events;
    if (endThread < 0 || event >= events.size() || !events.hasThreads())
        return;
    const int32_t rank = m_capture.rows[m_index.rowOf(event)].rank;
    const int32_t from = m_index.laneOfThread(rank, events.threadIds[event]);
    const int32_t to = m_index.laneOfThread(rank, endThread);
    if (from < 0 || to < 0 || m_view.isHidden(size_t(from)) || m_view.isHidden(size_t(to)))
        return;
    m_list.flows.push_back({x(events.start[event]), pointRowY(from), x(events.end[event]), pointRowY(to),
                            FlowLine::kRangeEnd});
}

std::optional<std::pair<float, float>> FrameBuilder::anchor(uint32_t event) const
{
    const auto& events = m_capture.events;
    if (event >= events.size())
        return std::nullopt;
    const TrackId track = events.track.empty() ? m_capture.rows[m_index.rowOf(event)].track : TrackId{events.track[event]};
    const int32_t lane = m_index.laneOf(track);
    if (lane < 0 || size_t(lane) >= m_list.lanes.size() || m_view.isHidden(size_t(lane)))
        return std::nullopt;
    const LaneGeometry& geometry = m_list.lanes[size_t(lane)];
    const int shown = shownRowCount(m_index.lanes()[size_t(lane)], size_t(lane), m_view);
    const int depth =
        geometry.collapsed || events.depth.empty() || shown == 0 ? -1 : std::min(int(events.depth[event]), shown - 1);
    const float y = depth < 0 ? stripY(geometry)
                              : float(geometry.y + m_view.headerHeight + depth * m_view.rowHeight) + float(m_view.rowHeight) / 2;
    return std::make_pair(x(events.start[event]), y);
}

void FrameBuilder::addFlows()
{
    const auto& flows = m_capture.flows;
    std::vector<uint32_t> rows;
    if (m_view.allFlows)
        rows = m_index.flowsIn(m_capture, m_view.t0, m_view.t1, DrawList::kMaxFlowLines, m_list.flowsTruncated);
    if (m_view.flowsOf) {
        for (const size_t row : flows.outgoing(*m_view.flowsOf))
            rows.push_back(uint32_t(row));
        for (const size_t row : flows.incoming(*m_view.flowsOf))
            rows.push_back(uint32_t(row));
        std::sort(rows.begin(), rows.end());
        rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    }
    // Arrows that would be drawn over one another (ends within the same 2 px) are one
    // arrow, and arrows with both ends off the same side of the view are not drawn: a
    // zoomed-out run has far more flows than distinct arrows.
    std::unordered_set<uint64_t> drawn;
    const float width = float(m_view.width);
    for (const uint32_t row : rows) {
        const auto from = anchor(flows.from(row)), to = anchor(flows.to(row));
        if (!from || !to)
            continue;
        if ((from->first < 0 && to->first < 0) || (from->first > width && to->first > width))
            continue;
        const bool selected = m_view.flowsOf && (flows.from(row) == *m_view.flowsOf || flows.to(row) == *m_view.flowsOf);
        auto bucket = [](float v) { return uint64_t(uint16_t(int32_t(std::clamp(v, -60000.0f, 60000.0f)) / 2 + 32768)); };
        const uint64_t key = bucket(from->first) << 48 | bucket(from->second) << 32 | bucket(to->first) << 16 | bucket(to->second);
        if (!selected && !drawn.insert(key).second)
            continue;
        if (!selected && m_list.flows.size() >= DrawList::kMaxFlowLines) {
            m_list.flowsTruncated = true;
            continue;
        }
        m_list.flows.push_back({from->first, from->second, to->first, to->second, row});
    }
    if (m_view.flowsOf)
        addRangeEnd(*m_view.flowsOf);
}

std::optional<std::pair<float, float>> FrameBuilder::pathPoint(const analysis::PathNode& node) const
{
    const auto& events = m_capture.events;
    if (node.event >= events.size() || !node.track.valid())
        return std::nullopt;
    const int32_t lane = m_index.laneOf(node.track);
    if (lane < 0 || size_t(lane) >= m_list.lanes.size() || m_view.isHidden(size_t(lane)))
        return std::nullopt;
    const LaneGeometry& geometry = m_list.lanes[size_t(lane)];
    // A row the lane's row limit cuts off is drawn on its last shown row.
    const int shown = shownRowCount(m_index.lanes()[size_t(lane)], size_t(lane), m_view);
    const int depth = geometry.collapsed || events.depth.empty() || shown == 0
                          ? -1
                          : std::min(int(events.depth[node.event]), shown - 1);
    const float y = depth < 0 ? stripY(geometry)
                              : float(geometry.y + m_view.headerHeight + depth * m_view.rowHeight) +
                                    float(m_view.rowHeight) / 2;
    return std::make_pair(x(node.timeNs), y);
}

void FrameBuilder::addCriticalPath()
{
    if (!m_view.criticalPath)
        return;
    const auto& nodes = m_view.criticalPath->nodes;
    // The steps that reach into the view: from the last node at or before t0 to the first
    // at or after t1 (nodes are in time order).
    auto first = std::lower_bound(nodes.begin(), nodes.end(), m_view.t0,
                                  [](const analysis::PathNode& n, int64_t t) { return n.timeNs < t; });
    if (first != nodes.begin())
        --first;
    // Steps drawn over one another (both ends in the same pixel column and row) are drawn
    // once; flat steps that continue the last one on its row extend it.
    std::unordered_set<uint64_t> drawn;
    auto key = [](float x0, float y0, float x1, float y1) {
        auto bucket = [](float v) { return uint64_t(uint16_t(int32_t(std::clamp(v, -60000.0f, 60000.0f)) + 32768)); };
        return bucket(x0) << 48 | bucket(y0) << 32 | bucket(x1) << 16 | bucket(y1);
    };
    std::optional<std::pair<float, float>> from;
    for (auto it = first; it != nodes.end(); ++it) {
        const auto to = pathPoint(*it);
        if (!to)
            continue;
        if (from) {
            PathSegment* last = m_list.path.empty() ? nullptr : &m_list.path.back();
            const bool flat = from->second == to->second;
            if (flat && last && last->y0 == last->y1 && last->y1 == from->second && last->share == it->via &&
                std::abs(last->x1 - from->first) < 1.0f)
                last->x1 = to->first;
            else if (drawn.insert(key(from->first, from->second, to->first, to->second)).second)
                m_list.path.push_back({from->first, from->second, to->first, to->second, it->via});
        }
        from = to;
        if (it->timeNs > m_view.t1)
            break;
    }
}

DrawList FrameBuilder::build()
{
    const auto& lanes = m_index.lanes();
    int32_t top = 0;
    m_list.lanes.resize(lanes.size());
    for (const uint32_t laneIndex : m_view.laneOrder(lanes.size())) {
        const auto& lane = lanes[laneIndex];
        if (m_view.isHidden(laneIndex)) {
            m_list.lanes[laneIndex] = LaneGeometry{top - m_view.scrollY, 0, true};
            continue;
        }
        const bool collapsed = m_view.isCollapsed(laneIndex);
        const int32_t rows = collapsed ? 0 : laneRows(lane, laneIndex);
        LaneGeometry geometry;
        geometry.y = top - m_view.scrollY;
        geometry.height = m_view.headerHeight + rows * m_view.rowHeight;
        geometry.collapsed = collapsed;
        m_list.lanes[laneIndex] = geometry;

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
            if (lane.counter >= 0 && !collapsed)
                addCounter(laneIndex, m_capture.counters[size_t(lane.counter)], geometry.y + m_view.headerHeight,
                           rows * m_view.rowHeight);
            // A collapsed lane's outermost calls as a strip along the bottom of its header:
            // how busy it is, never a blank.
            if (collapsed && !lane.depths.empty())
                addRow(laneIndex, 0, lane.depths[0], geometry.y + m_view.headerHeight - kStripHeight - 1,
                       uint16_t(kStripHeight));
            else if (collapsed && lane.counter >= 0)
                addCounter(laneIndex, m_capture.counters[size_t(lane.counter)],
                           geometry.y + m_view.headerHeight - kStripHeight - 1, kStripHeight + 2);
            for (int32_t depth = 0; depth < int32_t(lane.depths.size()) && depth < rows; ++depth) {
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
    // Instants and marks go over the first row, after the calls, so they are drawn on top.
    for (uint32_t laneIndex = 0; laneIndex < lanes.size(); ++laneIndex) {
        const LaneGeometry& geometry = m_list.lanes[laneIndex];
        if (geometry.collapsed || m_view.isHidden(laneIndex))
            continue;
        const int32_t y = geometry.y + m_view.headerHeight;
        if (y + m_view.rowHeight <= 0 || y >= m_view.height)
            continue;
        if (lanes[laneIndex].instants)
            addInstants(laneIndex, lanes[laneIndex].track, y);
        if (lanes[laneIndex].marksEnd > lanes[laneIndex].marksBegin)
            addMarks(laneIndex, y);
    }
    addCriticalPath();
    addFlows();
    return std::move(m_list);
}

} // namespace

int32_t laneRowCount(const TimelineLane& lane, const TimelineViewport& viewport)
{
    if (lane.counter >= 0)
        return viewport.counterRows;
    return std::max<int32_t>(int32_t(lane.depths.size()), lane.hasPointRow() ? 1 : 0);
}

int32_t shownRowCount(const TimelineLane& lane, size_t index, const TimelineViewport& viewport)
{
    const int32_t rows = laneRowCount(lane, viewport);
    const int32_t limit = index < viewport.rowLimit.size() ? viewport.rowLimit[index] : 0;
    return limit > 0 ? std::min(rows, limit) : rows;
}

std::vector<uint32_t> TimelineViewport::laneOrder(size_t lanes) const
{
    std::vector<uint32_t> out;
    out.reserve(lanes);
    std::vector<bool> placed(lanes, false);
    for (const uint32_t lane : order)
        if (lane < lanes && !placed[lane]) {
            placed[lane] = true;
            out.push_back(lane);
        }
    for (uint32_t lane = 0; lane < lanes; ++lane)
        if (!placed[lane])
            out.push_back(lane);
    return out;
}

int contentHeight(const TimelineIndex& index, const TimelineViewport& viewport)
{
    int height = 0;
    for (size_t lane = 0; lane < index.lanes().size(); ++lane) {
        if (viewport.isHidden(lane))
            continue;
        const int rows = viewport.isCollapsed(lane) ? 0 : shownRowCount(index.lanes()[lane], lane, viewport);
        height += viewport.headerHeight + rows * viewport.rowHeight + viewport.laneGap;
    }
    return height;
}

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
        else if (item.kind == DrawKind::Call || item.kind == DrawKind::Folded || item.kind == DrawKind::Unclosed
                 || item.kind == DrawKind::Instant || item.kind == DrawKind::Mark || item.kind == DrawKind::Counter)
            best = int(i);
    }
    return best >= 0 ? best : header;
}

} // namespace spanscope::model
