// TimelineView: mouse, keyboard, showing tooltips, selection and find.

#include "model/report/duration_format.h"
#include "timeline_painter.h"
#include "timeline_view.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMenu>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace spanscope::views {

namespace {

constexpr double kWheelZoomPerNotch = 0.8; // one wheel notch shows 80% of the span
constexpr double kKeyZoom = 0.7;
constexpr double kKeyPan = 0.15;            // share of the span per A/D press
constexpr int kDragThreshold = 4;           // px before a press becomes a drag
constexpr double kRevealMinPx = 12;         // a revealed call narrower than this is zoomed to

} // namespace

void TimelineView::wheelEvent(QWheelEvent* event)
{
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & Qt::ShiftModifier) {
        m_vertical->setValue(m_vertical->value() - delta.y() / 2);
    } else if (std::abs(delta.x()) > std::abs(delta.y())) {
        m_zoom.pan(int64_t(-double(delta.x()) / 120.0 * kKeyPan * double(m_zoom.span())));
    } else if (delta.y() != 0) {
        const double factor = std::pow(kWheelZoomPerNotch, double(delta.y()) / 120.0);
        m_zoom.zoomAround(timeAt(event->position().x()), factor);
    }
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event)
{
    setFocus();
    m_pressPosition = event->position().toPoint();
    m_pressStart = m_zoom.start();
    m_pressEnd = m_zoom.end();
    m_pressScroll = m_vertical->value();
    m_moved = false;
    if (overviewArea().contains(m_pressPosition)) {
        m_drag = Drag::Overview;
        mouseMoveEvent(event);
        return;
    }
    if (event->button() != Qt::LeftButton)
        return;
    if (event->modifiers() & Qt::ShiftModifier) {
        m_drag = Drag::Measure;
        const int64_t t = timeAt(m_pressPosition.x());
        m_measure = std::make_pair(t, t);
    } else if (event->modifiers() & Qt::ControlModifier) {
        m_drag = Drag::ZoomBox;
        const int64_t t = timeAt(m_pressPosition.x());
        m_measure = std::make_pair(t, t);
    } else {
        m_drag = Drag::Pan;
    }
}

void TimelineView::mouseMoveEvent(QMouseEvent* event)
{
    const QPoint position = event->position().toPoint();
    if ((position - m_pressPosition).manhattanLength() >= kDragThreshold)
        m_moved = true;
    switch (m_drag) {
    case Drag::None:
        return;
    case Drag::Overview: {
        const QRect area = overviewArea();
        const double share = std::clamp(double(position.x()) / std::max(1, area.width()), 0.0, 1.0);
        const int64_t center = m_zoom.runStart() + int64_t(share * double(m_zoom.runEnd() - m_zoom.runStart()));
        m_zoom.setRange(center - m_zoom.span() / 2, center - m_zoom.span() / 2 + m_zoom.span());
        return;
    }
    case Drag::Pan: {
        if (!m_moved)
            return;
        const double nsPerPx = double(m_pressEnd - m_pressStart) / std::max(1, laneArea().width());
        const auto shift = int64_t(std::llround(double(position.x() - m_pressPosition.x()) * nsPerPx));
        m_zoom.setRange(m_pressStart - shift, m_pressEnd - shift);
        m_vertical->setValue(m_pressScroll - (position.y() - m_pressPosition.y()));
        setCursor(Qt::ClosedHandCursor);
        return;
    }
    case Drag::Measure:
    case Drag::ZoomBox:
        m_measure->second = timeAt(position.x());
        update();
        return;
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event)
{
    const Drag drag = std::exchange(m_drag, Drag::None);
    unsetCursor();
    if (drag == Drag::ZoomBox && m_measure) {
        const auto [a, b] = std::minmax(m_measure->first, m_measure->second);
        m_measure.reset();
        m_measured.reset();
        if (b - a >= TimelineZoom::kMinimumSpan)
            m_zoom.setRange(a, b);
        update();
        return;
    }
    if (drag == Drag::Measure && m_measure) {
        const auto [a, b] = std::minmax(m_measure->first, m_measure->second);
        if (b > a)
            measure(a, b);
        else
            m_measure.reset();
        update();
        return;
    }
    if (drag != Drag::Pan || m_moved || event->button() != Qt::LeftButton)
        return;
    // A click: select the call under the cursor, or fold/unfold a lane from its header.
    const QRect area = laneArea();
    const QPoint local = event->position().toPoint() - area.topLeft();
    const int hit = model::hitTest(m_list, float(local.x()), local.y());
    if (hit < 0) {
        m_selected.reset();
        m_measure.reset();
        m_measured.reset();
        update();
        return;
    }
    const auto& item = m_list.items[size_t(hit)];
    if (item.kind == model::DrawKind::LaneHeader) {
        toggleLane(item.lane);
    } else if (item.kind == model::DrawKind::Instant || item.kind == model::DrawKind::Mark
               || item.kind == model::DrawKind::Counter) {
        showToolTip(event->position().toPoint()); // nothing to select: say what it is
    } else if (item.kind == model::DrawKind::Folded) {
        // Zoom into the folded calls until they separate.
        m_zoom.setRange(timeAt(item.x0), std::max(timeAt(item.x1), timeAt(item.x0) + TimelineZoom::kMinimumSpan));
    } else {
        m_selected = item.event;
        m_highlightRegion = int(m_capture->rows[m_index->rowOf(item.event)].region);
        requestFrame(); // the selection's flows are part of the frame
        emit callSelected(item.event);
    }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* event)
{
    const QPoint local = event->position().toPoint() - laneArea().topLeft();
    const int hit = model::hitTest(m_list, float(local.x()), local.y());
    if (hit < 0)
        return;
    const auto& item = m_list.items[size_t(hit)];
    if (item.kind == model::DrawKind::Call || item.kind == model::DrawKind::Unclosed) {
        m_selected = item.event;
        zoomToSelection();
    }
}

void TimelineView::toggleLane(uint32_t lane)
{
    if (lane >= m_collapsed.size())
        return;
    m_collapsed[lane] = !m_collapsed[lane];
    chooseLayout();
}

void TimelineView::zoomToSelection()
{
    if (!m_selected || !m_capture)
        return;
    const auto& events = m_capture->events;
    const int64_t start = events.start[*m_selected];
    const int64_t end = std::max(events.end[*m_selected], start + TimelineZoom::kMinimumSpan);
    const int64_t margin = (end - start) / 20;
    m_zoom.setRange(start - margin, end + margin);
}

void TimelineView::selectEvent(uint32_t event, bool reveal)
{
    if (!m_capture || event >= m_capture->events.size())
        return;
    m_selected = event;
    m_highlightRegion = int(m_capture->rows[m_index->rowOf(event)].region);
    if (reveal) {
        // In view and wide enough to see and click: as it is. Off screen: centred. Too
        // narrow to see (F3 through short calls, a dot in the scatter): zoomed until it
        // fills a third of the view, its neighbours around it. Wider than the view: filled.
        const auto& events = m_capture->events;
        const int64_t start = events.start[event];
        const int64_t end = std::max(events.end[event], start);
        const double pxPerNs = double(std::max(1, laneArea().width())) / double(std::max<int64_t>(1, m_zoom.span()));
        const bool outside = start < m_zoom.start() || end > m_zoom.end();
        const bool tooNarrow = double(end - start) * pxPerNs < kRevealMinPx;
        if (end - start >= m_zoom.span()) {
            zoomToSelection();
        } else if (outside || tooNarrow) {
            const int64_t span = tooNarrow ? std::max<int64_t>((end - start) * 3, TimelineZoom::kMinimumSpan)
                                           : m_zoom.span();
            const int64_t from = start + (end - start) / 2 - span / 2;
            m_zoom.setRange(from, from + span);
        }
        revealLane(event);
    }
    requestFrame();
}

void TimelineView::keyPressEvent(QKeyEvent* event)
{
    const int64_t center = m_zoom.start() + m_zoom.span() / 2;
    const QPoint cursor = mapFromGlobal(QCursor::pos());
    const int64_t anchor = laneArea().contains(cursor) ? timeAt(cursor.x()) : center;
    switch (event->key()) {
    case Qt::Key_W: m_zoom.zoomAround(anchor, kKeyZoom); break;
    case Qt::Key_S: m_zoom.zoomAround(anchor, 1.0 / kKeyZoom); break;
    case Qt::Key_A: m_zoom.pan(-int64_t(kKeyPan * double(m_zoom.span()))); break;
    case Qt::Key_D: m_zoom.pan(int64_t(kKeyPan * double(m_zoom.span()))); break;
    case Qt::Key_F:
    case Qt::Key_Home: m_zoom.fit(); break;
    case Qt::Key_Z: zoomToSelection(); break;
    case Qt::Key_F3: findNext(!(event->modifiers() & Qt::ShiftModifier)); break;
    case Qt::Key_Escape:
        m_measure.reset();
        m_measured.reset();
        m_selected.reset();
        requestFrame();
        break;
    default: QWidget::keyPressEvent(event); return;
    }
    event->accept();
}

void TimelineView::setSearchPattern(const QRegularExpression& pattern)
{
    m_searchPattern = pattern;
    m_searching = pattern.isValid() && !pattern.pattern().isEmpty() && m_capture;
    m_matches.assign(m_capture ? m_capture->regionNames.size() : 0, false);
    m_matchCount = 0;
    if (m_searching) {
        for (uint32_t region = 0; region < m_matches.size(); ++region)
            m_matches[region] = pattern.match(QString::fromStdString(m_capture->regionName(region))).hasMatch();
        m_matchCount = search().count(m_matches);
    }
    update();
}

bool TimelineView::findNext(bool forward)
{
    if (!m_searching || !m_capture)
        return false;
    const auto& events = m_capture->events;
    const int64_t time = m_selected ? events.start[*m_selected] : (forward ? m_zoom.start() - 1 : m_zoom.end());
    const uint32_t current = m_selected ? *m_selected : (forward ? 0 : UINT32_MAX);
    auto found = search().step(m_matches, time, current, forward);
    if (!found)
        return false;
    selectEvent(*found, true);
    emit callSelected(*found);
    return true;
}

void TimelineView::showToolTip(const QPoint& position)
{
    const QString text = laneArea().contains(position) ? toolTipAt(position - laneArea().topLeft()) : QString();
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(mapToGlobal(position), text, this);
}

void TimelineView::contextMenuEvent(QContextMenuEvent* event)
{
    QMenu menu(this);
    // Over a lane: moving it, and its rows.
    if (m_index) {
        const QPoint local = event->pos() - laneArea().topLeft();
        for (uint32_t lane = 0; lane < m_list.lanes.size(); ++lane) {
            const auto& g = m_list.lanes[lane];
            if (g.height > 0 && local.y() >= g.y && local.y() < g.y + g.height && laneArea().contains(event->pos())) {
                addLaneActions(menu, lane);
                menu.addSeparator();
                break;
            }
        }
    }
    menu.addAction(tr("Fit the whole run\tF"), this, [this] { m_zoom.fit(); });
    QAction* zoomTo = menu.addAction(tr("Zoom to the selected call\tZ"), this, &TimelineView::zoomToSelection);
    zoomTo->setEnabled(m_selected.has_value());
    menu.addSeparator();
    menu.addAction(tr("Collapse all lanes"), this, [this] { setCollapsedAll(true); });
    menu.addAction(tr("Expand all lanes"), this, [this] { setCollapsedAll(false); });
    menu.addSeparator();
    QAction* absolute = menu.addAction(tr("Absolute time on the ruler"), this, [this](bool on) { setAbsoluteTime(on); });
    absolute->setCheckable(true);
    absolute->setChecked(m_absoluteTime);
    if (m_capture && !m_capture->flows.empty()) {
        QAction* flows = menu.addAction(tr("Show every flow in view"), this, [this](bool on) { setShowAllFlows(on); });
        flows->setCheckable(true);
        flows->setChecked(m_allFlows);
    }
    menu.exec(event->globalPos());
}

bool TimelineView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        showToolTip(static_cast<QHelpEvent*>(event)->pos());
        return true;
    }
    if (event->type() == QEvent::PaletteChange) // the application's theme changed
        setDarkPalette(palette().color(QPalette::Window).lightness() < 128);
    return QWidget::event(event);
}

} // namespace spanscope::views
