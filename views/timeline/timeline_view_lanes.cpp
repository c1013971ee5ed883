// TimelineView: which lanes show, in what order and how tall. A capture with GPU work opens
// GPU first: each device's utilization lane and streams at the top, the busiest CPU thread
// under them with as many nesting rows as the view has room for, then the streams' queue
// lanes and every other lane folded to its header and busy strip; stream lanes fold too
// (the least busy first) when even that does not fit. The default
// follows the view's height until the user folds or moves a lane; from then on their
// layout is kept (also through live updates, by lane title) and offered to be remembered
// (laneLayoutChosen): a remembered layout is laid over the default of every later capture.
#include "timeline_view.h"

#include "model/gpu/gpu_counters.h"

#include <QMenu>

#include <algorithm>
#include <numeric>

namespace spanscope::views {

namespace {

bool isSyncLane(const model::Capture& capture, const model::Track& track)
{
    if (track.kind == model::TrackKind::GpuDevice)
        return true;
    const std::string& name = capture.strings.text(track.name);
    return name.size() >= 6 && name.compare(name.size() - 6, 6, " syncs") == 0;
}

} // namespace

void TimelineView::applyDefaultLayout()
{
    if (m_layoutChosen || !m_capture || !m_index)
        return;
    defaultLayout();
    if (!m_remembered.empty()) {
        m_remembered.applyTo(m_index->lanes(), m_order, m_collapsed, m_rowLimit);
        m_essentialLanes = 0; // the user's layout says what they want in view
    }
}

void TimelineView::setFitHeight(int height)
{
    if (height == m_fitHeight)
        return;
    m_fitHeight = height;
    applyDefaultLayout();
    requestFrame();
}

int TimelineView::lanesHeight(size_t count) const
{
    if (!m_index)
        return 0;
    const model::TimelineViewport v = viewport();
    const auto& lanes = m_index->lanes();
    const std::vector<uint32_t> order = v.laneOrder(lanes.size());
    int h = 0;
    for (size_t i = 0; i < count && i < order.size(); ++i) {
        const uint32_t lane = order[i];
        if (v.isHidden(lane))
            continue;
        const int rows = v.isCollapsed(lane) ? 0 : model::shownRowCount(lanes[lane], lane, v);
        h += v.headerHeight + rows * v.rowHeight + v.laneGap;
    }
    return h;
}

int TimelineView::essentialHeight() const
{
    return m_essentialLanes == 0 || m_layoutChosen ? 0 : fullHeight(lanesHeight(m_essentialLanes));
}

LaneLayout TimelineView::laneLayout() const
{
    return m_index ? LaneLayout::of(m_index->lanes(), m_order, m_collapsed, m_rowLimit) : LaneLayout{};
}

void TimelineView::setRememberedLayout(LaneLayout layout)
{
    m_remembered = std::move(layout);
    applyDefaultLayout();
    requestFrame();
}

void TimelineView::useDefaultLayout()
{
    m_layoutChosen = false;
    m_remembered = {};
    applyDefaultLayout();
    requestFrame();
    emit laneLayoutForgotten();
}

void TimelineView::chooseLayout()
{
    m_layoutChosen = true;
    if (m_index)
        m_remembered = laneLayout(); // a reload of the capture in this view keeps it too
    requestFrame();
    emit laneLayoutChosen();
}

void TimelineView::defaultLayout()
{
    const auto& lanes = m_index->lanes();
    std::vector<uint32_t> gpu, rest, utilization, queues;
    int64_t busiest = -1;
    for (uint32_t lane = 0; lane < lanes.size(); ++lane) {
        const model::TrackId track = lanes[lane].track;
        const model::Track* t = track.valid() && track.value < m_capture->tracks.size() ? &m_capture->track(track) : nullptr;
        const bool derived = lanes[lane].counter >= 0 && m_capture->counters[size_t(lanes[lane].counter)].derived;
        if (derived && m_capture->strings.text(t->name) == model::kUtilizationCounter)
            utilization.push_back(lane);
        else if (derived)
            queues.push_back(lane);
        else if (t && model::isGpuTrack(t->kind))
            gpu.push_back(lane);
        else {
            rest.push_back(lane);
            const bool cpu = t && (t->kind == model::TrackKind::Thread || t->kind == model::TrackKind::Process);
            if (cpu && (busiest < 0 || lanes[lane].calls > lanes[size_t(busiest)].calls))
                busiest = lane;
        }
    }
    m_order.clear();
    m_rowLimit.assign(lanes.size(), 0);
    m_collapsed.assign(lanes.size(), false);
    m_essentialLanes = 0;
    if (gpu.empty())
        return; // CPU captures: every lane as the index orders it, unfolded, all rows
    // Each GPU's utilization over its streams, the busiest thread, then the streams' queues
    // (folded: their strips) and the rest.
    m_order = utilization;
    m_order.insert(m_order.end(), gpu.begin(), gpu.end());
    for (const uint32_t lane : utilization)
        m_rowLimit[lane] = 2;
    if (busiest >= 0)
        m_order.push_back(uint32_t(busiest));
    m_order.insert(m_order.end(), queues.begin(), queues.end());
    for (const uint32_t lane : queues)
        m_collapsed[lane] = true;
    for (const uint32_t lane : rest)
        if (int64_t(lane) != busiest) {
            m_order.push_back(lane);
            m_collapsed[lane] = true;
        }
    std::vector<uint32_t> streams; // the lanes of GPU work, least busy first (folded first)
    for (const uint32_t lane : gpu) {
        const model::Track& t = m_capture->track(lanes[lane].track);
        if (isSyncLane(*m_capture, t))
            m_collapsed[lane] = true; // its syncs overlap the stream's work: a strip is enough
        else {
            m_rowLimit[lane] = 2;
            streams.push_back(lane);
        }
    }
    std::stable_sort(streams.begin(), streams.end(),
                     [&](uint32_t a, uint32_t b) { return lanes[a].calls < lanes[b].calls; });

    // Room: the lane area as laid out now, or, when the container would give the timeline
    // more to fit its lanes (setFitHeight), that.
    const int chrome = kRulerHeight + kOverviewHeight + kScrollBarExtent + 2; // as fullHeight() counts
    const int room = std::max({laneArea().height(), m_fitHeight - chrome, 160});
    // What must be in view: the GPU lanes and the busiest thread (the queues and other lanes
    // under them may scroll).
    m_essentialLanes = utilization.size() + gpu.size() + (busiest >= 0 ? 1 : 0);
    auto height = [&] { return lanesHeight(m_essentialLanes); };
    auto busiestRows = [&](int rows) {
        if (busiest >= 0)
            m_rowLimit[size_t(busiest)] = uint16_t(std::max(1, rows));
    };
    // The busiest thread: up to 8 rows, at least 2; then fewer stream rows; then folded
    // streams, the least busy first.
    busiestRows(8);
    for (int rows = 8; rows > 2 && height() > room; --rows)
        busiestRows(rows - 1);
    for (const uint32_t lane : streams)
        if (height() > room)
            m_rowLimit[lane] = 1;
    for (const uint32_t lane : utilization)
        if (height() > room)
            m_rowLimit[lane] = 1;
    for (const uint32_t lane : streams)
        if (height() > room)
            m_collapsed[lane] = true;
    for (const uint32_t lane : utilization)
        if (height() > room)
            m_collapsed[lane] = true;
}

void TimelineView::moveLane(uint32_t lane, int where)
{
    if (!m_index || lane >= m_index->lanes().size())
        return;
    model::TimelineViewport v = viewport();
    std::vector<uint32_t> order = v.laneOrder(m_index->lanes().size());
    const auto it = std::find(order.begin(), order.end(), lane);
    const size_t at = size_t(it - order.begin());
    order.erase(it);
    const size_t to = where == kToTop ? 0 : where < 0 ? (at == 0 ? 0 : at - 1) : std::min(order.size(), at + 1);
    order.insert(order.begin() + std::ptrdiff_t(to), lane);
    m_order = std::move(order);
    chooseLayout();
}

void TimelineView::revealLane(uint32_t event)
{
    // The lane of the call, unfolded and deep enough for its row, scrolled into view.
    const auto& events = m_capture->events;
    const model::TrackId track =
        events.track.empty() ? m_capture->rows[m_index->rowOf(event)].track : model::TrackId{events.track[event]};
    const int32_t lane = m_index->laneOf(track);
    if (lane < 0 || size_t(lane) >= m_collapsed.size())
        return;
    const int depth = events.depth.empty() ? 0 : int(events.depth[event]);
    if (m_collapsed[size_t(lane)])
        m_collapsed[size_t(lane)] = false;
    if (size_t(lane) < m_rowLimit.size() && m_rowLimit[size_t(lane)] > 0 && depth >= m_rowLimit[size_t(lane)])
        m_rowLimit[size_t(lane)] = uint16_t(depth + 1);
    if (size_t(lane) < m_hidden.size())
        m_hidden[size_t(lane)] = false;
    const model::TimelineViewport v = viewport();
    int top = 0;
    for (const uint32_t other : v.laneOrder(m_index->lanes().size())) {
        if (other == uint32_t(lane))
            break;
        if (v.isHidden(other))
            continue;
        const int rows = v.isCollapsed(other) ? 0 : model::shownRowCount(m_index->lanes()[other], other, v);
        top += v.headerHeight + rows * v.rowHeight + v.laneGap;
    }
    const int rowTop = top + v.headerHeight + depth * v.rowHeight;
    updateScrollBars();
    if (rowTop < m_vertical->value() || rowTop + v.rowHeight > m_vertical->value() + v.height)
        m_vertical->setValue(std::max(0, std::min(top, rowTop + v.rowHeight - v.height / 2)));
}

void TimelineView::addLaneActions(QMenu& menu, uint32_t lane)
{
    menu.addSection(QString::fromStdString(m_index->lanes()[lane].title));
    menu.addAction(tr("Move lane to the top"), this, [this, lane] { moveLane(lane, kToTop); });
    menu.addAction(tr("Move lane up"), this, [this, lane] { moveLane(lane, -1); });
    menu.addAction(tr("Move lane down"), this, [this, lane] { moveLane(lane, +1); });
    if (size_t(lane) < m_rowLimit.size() && m_rowLimit[lane] > 0)
        menu.addAction(tr("Show every nesting row"), this, [this, lane] {
            m_rowLimit[lane] = 0;
            chooseLayout();
        });
    menu.addAction(tr("Default lane layout"), this, &TimelineView::useDefaultLayout);
}

} // namespace spanscope::views
