#include "timeline_view.h"

#include "model/report/duration_format.h"
#include "time_axis.h"

#include <QPainter>
#include <QResizeEvent>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace spanscope::views {

namespace {

// Where the calls are, per pixel column of the whole run, from a frame of the whole run:
// calls per column (folded blocks spread their count over their width), square-root
// scaled to 0..1 so sparse regions still show. What the overview strip draws.
std::vector<float> overviewDensity(const model::DrawList& list, int width)
{
    std::vector<float> density(size_t(std::max(width, 0)), 0.0f);
    for (const auto& item : list.items) {
        if (item.kind != model::DrawKind::Call && item.kind != model::DrawKind::Folded)
            continue;
        const int x0 = std::clamp(int(std::floor(item.x0)), 0, std::max(0, width - 1));
        const int x1 = std::clamp(int(std::ceil(item.x1)), x0 + 1, width);
        const float share = float(item.count) / float(x1 - x0);
        for (int x = x0; x < x1; ++x)
            density[size_t(x)] += share;
    }
    const float peak = density.empty() ? 0.0f : *std::max_element(density.begin(), density.end());
    if (peak > 0)
        for (auto& value : density)
            value = std::sqrt(value / peak);
    return density;
}

} // namespace

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent), m_vertical(new QScrollBar(Qt::Vertical, this)),
      m_horizontal(new QScrollBar(Qt::Horizontal, this)), m_painter(TimelineStyle{false, font()})
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setMinimumSize(300, 160);
    setAttribute(Qt::WA_OpaquePaintEvent);
    connect(&m_zoom, &TimelineZoom::changed, this, [this] {
        updateScrollBars();
        requestFrame();
    });
    connect(m_vertical, &QScrollBar::valueChanged, this, [this] { requestFrame(); });
    connect(m_horizontal, &QScrollBar::valueChanged, this, [this](int value) {
        // The horizontal bar moves the window in steps of 1/1000 of its span.
        const int64_t step = std::max<int64_t>(1, m_zoom.span() / 1000);
        const int64_t start = m_zoom.runStart() - m_zoom.span() / 2 + int64_t(value) * step;
        if (start != m_zoom.start())
            m_zoom.setRange(start, start + m_zoom.span());
    });
    connect(&m_watcher, &QFutureWatcher<Frame>::finished, this, &TimelineView::frameFinished);
}

TimelineView::~TimelineView()
{
    m_watcher.waitForFinished(); // the job reads members' copies only, but finish cleanly
}

void TimelineView::setCapture(std::shared_ptr<const model::Capture> capture,
                              std::shared_ptr<const model::TimelineIndex> index)
{
    m_capture = std::move(capture);
    m_index = std::move(index);
    m_search.reset();
    m_collapsed.assign(m_index ? m_index->lanes().size() : 0, false);
    m_hidden.assign(m_collapsed.size(), false);
    m_layoutChosen = false;
    m_order.clear();
    m_rowLimit.assign(m_collapsed.size(), 0);
    m_regionPalette = m_capture ? RegionPalette::of(*m_capture) : nullptr;
    m_selected.reset();
    m_measure.reset();
    m_measured.reset();
    m_highlightRegion = -1;
    m_matches.clear();
    m_searching = false;
    m_overviewWidth = -1;
    m_list = {};
    if (m_index)
        m_zoom.setRun(m_index->begin(), std::max(m_index->end(), m_index->begin() + 1));
    applyDefaultLayout();
    requestFrame();
}

void TimelineView::updateCapture(std::shared_ptr<const model::Capture> capture,
                                 std::shared_ptr<const model::TimelineIndex> index)
{
    if (!m_index || !index || !capture) {
        setCapture(std::move(capture), std::move(index));
        return;
    }
    const LaneLayout carried = LaneLayout::of(m_index->lanes(), m_order, m_collapsed, m_rowLimit);
    std::optional<int64_t> selectedStart;
    if (m_selected)
        selectedStart = m_capture->events.start[*m_selected];

    m_capture = std::move(capture);
    m_index = std::move(index);
    m_search.reset();
    m_regionPalette = RegionPalette::of(*m_capture, m_regionPalette.get()); // drawn regions keep their colours
    m_collapsed.assign(m_index->lanes().size(), false);
    m_hidden.assign(m_collapsed.size(), false);
    m_rowLimit.assign(m_collapsed.size(), 0);
    m_order.clear();
    carried.applyTo(m_index->lanes(), m_order, m_collapsed, m_rowLimit);
    applyDefaultLayout(); // until the user chose a layout, new lanes (a GPU's first work) take theirs
    setLaneFilter(m_laneFilter);
    if (m_selected && (*m_selected >= m_capture->events.size() ||
                       m_capture->events.start[*m_selected] != *selectedStart))
        m_selected.reset();
    if (m_highlightRegion >= int(m_capture->regionNames.size()))
        m_highlightRegion = -1;
    if (m_searching)
        setSearchPattern(m_searchPattern);
    if (m_measured) // the calls moved to new indices: count them again
        measure(m_measured->t0, m_measured->t1);
    m_overviewWidth = -1;
    m_zoom.updateRun(m_index->begin(), std::max(m_index->end(), m_index->begin() + 1));
    requestFrame();
}

void TimelineView::setRegionPalette(std::shared_ptr<const RegionPalette> palette)
{
    m_regionPalette = std::move(palette);
    update();
}

const model::CallSearch& TimelineView::search()
{
    if (!m_search)
        m_search = std::make_unique<model::CallSearch>(*m_capture);
    return *m_search;
}

void TimelineView::setDarkPalette(bool dark)
{
    m_painter = TimelinePainter(TimelineStyle{dark, font()});
    update();
}

void TimelineView::setAbsoluteTime(bool absolute)
{
    m_absoluteTime = absolute;
    update();
}

void TimelineView::setLaneFilter(const QRegularExpression& pattern)
{
    m_laneFilter = pattern;
    if (!m_index)
        return;
    const bool all = !pattern.isValid() || pattern.pattern().isEmpty();
    for (size_t lane = 0; lane < m_hidden.size(); ++lane)
        m_hidden[lane] =
            !all && !pattern.match(QString::fromStdString(m_index->lanes()[lane].title)).hasMatch();
    requestFrame();
}

void TimelineView::setCollapsedAll(bool collapsed)
{
    std::fill(m_collapsed.begin(), m_collapsed.end(), collapsed);
    if (!collapsed)
        std::fill(m_rowLimit.begin(), m_rowLimit.end(), uint16_t(0));
    chooseLayout();
}

void TimelineView::setHighlightRegion(int region)
{
    if (region == m_highlightRegion)
        return;
    m_highlightRegion = region;
    update();
}

QRect TimelineView::laneArea() const
{
    return QRect(0, kRulerHeight, width() - kScrollBarExtent,
                 height() - kRulerHeight - kOverviewHeight - kScrollBarExtent);
}

int TimelineView::fullHeight() const
{
    return fullHeight(m_index ? model::contentHeight(*m_index, viewport()) : 0);
}

int TimelineView::fullHeight(int lanes) const
{
    return std::max(minimumHeight(), kRulerHeight + lanes + kOverviewHeight + kScrollBarExtent + 2);
}

QRect TimelineView::overviewArea() const
{
    return QRect(0, height() - kOverviewHeight - kScrollBarExtent, width() - kScrollBarExtent,
                 kOverviewHeight);
}

int64_t TimelineView::timeAt(double x) const
{
    const int w = std::max(1, laneArea().width());
    return m_zoom.start() + int64_t(std::llround(x * double(m_zoom.span()) / double(w)));
}

double TimelineView::xAt(int64_t t) const
{
    const int w = std::max(1, laneArea().width());
    return double(t - m_zoom.start()) * double(w) / double(m_zoom.span());
}

model::TimelineViewport TimelineView::viewport() const
{
    model::TimelineViewport v;
    const QRect area = laneArea();
    v.t0 = m_zoom.start();
    v.t1 = m_zoom.end();
    v.width = std::max(1, area.width());
    v.height = std::max(1, area.height());
    v.scrollY = m_vertical->value();
    const int line = fontMetrics().height();
    v.rowHeight = line + 5;
    v.headerHeight = line + 6;
    v.laneGap = 4;
    v.collapsed = m_collapsed;
    v.hidden = m_hidden;
    v.order = m_order;
    v.rowLimit = m_rowLimit;
    v.flowsOf = m_selected;
    v.allFlows = m_allFlows;
    v.criticalPath = m_criticalPath;
    return v;
}

void TimelineView::setCriticalPath(std::shared_ptr<const model::analysis::CriticalPath> path)
{
    m_criticalPath = std::move(path);
    requestFrame();
}

void TimelineView::setShowAllFlows(bool all)
{
    m_allFlows = all;
    requestFrame();
}

void TimelineView::requestFrame()
{
    if (!m_capture || !m_index) {
        update();
        return;
    }
    if (m_building) {
        m_dirty = true; // latest wins: rebuild once the running job is done
        return;
    }
    m_building = true;
    m_dirty = false;
    const auto viewportNow = viewport();
    // The strip spans the zoom's run range, which a comparison may widen beyond this
    // capture's own calls so that every run's strip lines up.
    const std::pair<int64_t, int64_t> run{m_zoom.runStart(), m_zoom.runEnd()};
    const bool overviewStale = overviewArea().width() != m_overviewWidth || run != m_overviewRun;
    const int overviewWidth = overviewStale ? overviewArea().width() : -1;
    auto capture = m_capture;
    auto index = m_index;
    m_watcher.setFuture(QtConcurrent::run([capture, index, viewportNow, overviewWidth, run] {
        Frame frame;
        frame.list = model::buildDrawList(*capture, *index, viewportNow);
        if (overviewWidth > 0) {
            model::TimelineViewport whole;
            whole.t0 = run.first;
            whole.t1 = std::max(run.second, run.first + 1);
            whole.width = overviewWidth;
            whole.height = 1 << 30;
            whole.collapsed.assign(index->lanes().size(), false);
            whole.flowsOf.reset();
            whole.allFlows = false;
            whole.criticalPath.reset();
            frame.overview =
                overviewDensity(model::buildDrawList(*capture, *index, whole), overviewWidth);
        }
        return frame;
    }));
    if (overviewWidth > 0) {
        m_overviewWidth = overviewWidth;
        m_overviewRun = run;
    }
}

void TimelineView::frameFinished()
{
    Frame frame = m_watcher.result();
    m_list = std::move(frame.list);
    if (!frame.overview.empty())
        m_overview = std::move(frame.overview);
    m_building = false;
    updateScrollBars();
    update();
    if (m_dirty)
        requestFrame();
    else
        emit frameReady();
}

void TimelineView::updateScrollBars()
{
    const QRect area = laneArea();
    m_vertical->setGeometry(width() - kScrollBarExtent, kRulerHeight, kScrollBarExtent,
                            area.height());
    m_horizontal->setGeometry(0, height() - kScrollBarExtent, width() - kScrollBarExtent,
                              kScrollBarExtent);
    // The lanes as laid out now (folded, ordered), not as the last frame had them. O(lanes).
    const int content = m_index ? model::contentHeight(*m_index, viewport()) : m_list.contentHeight;
    m_vertical->setRange(0, std::max(0, content - area.height()));
    m_vertical->setPageStep(std::max(1, area.height()));
    m_vertical->setSingleStep(fontMetrics().height());
    // Horizontal: the run plus half a window on either side, in 1/1000-window steps.
    const int64_t step = std::max<int64_t>(1, m_zoom.span() / 1000);
    const int64_t total = (m_zoom.runEnd() - m_zoom.runStart()) + m_zoom.span();
    const QSignalBlocker block(m_horizontal);
    m_horizontal->setRange(
        0, int(std::min<int64_t>(INT32_MAX / 2,
                                 std::max<int64_t>(0, (total - m_zoom.span()) / step))));
    m_horizontal->setPageStep(1000);
    m_horizontal->setSingleStep(50);
    m_horizontal->setValue(
        int(std::clamp<int64_t>((m_zoom.start() - (m_zoom.runStart() - m_zoom.span() / 2)) / step,
                                0, m_horizontal->maximum())));
}

void TimelineView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    applyDefaultLayout(); // the room changed: the default layout fits it again
    updateScrollBars();
    requestFrame();
}

void TimelineView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    const bool dark = m_painter.style().dark;
    painter.fillRect(rect(), dark ? QColor(32, 34, 38) : QColor(250, 250, 252));
    // Nothing to place on a time axis: say so instead of an empty 0-9 ns ruler.
    if (!m_capture || !m_index
        || (m_capture->events.size() == 0 && m_capture->instants.empty() && m_capture->counters.empty()
            && m_capture->nvtx.marks.empty())) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter,
                         m_capture ? tr("This file has no calls") : tr("No calls to show"));
        return;
    }
    const QRect area = laneArea();
    painter.save();
    painter.setClipRect(area);
    painter.translate(area.topLeft());
    TimelineFrame frame;
    frame.capture = m_capture.get();
    frame.index = m_index.get();
    frame.list = &m_list;
    frame.width = area.width();
    frame.highlightRegion = m_highlightRegion;
    frame.selectedEvent = m_selected;
    frame.matches = m_searching ? &m_matches : nullptr;
    frame.palette = m_regionPalette.get();
    m_painter.paint(painter, frame);
    painter.restore();
    paintMeasure(painter);
    paintRuler(painter);
    paintOverview(painter);
}

void TimelineView::paintRuler(QPainter& painter)
{
    const bool dark = m_painter.style().dark;
    const QRect ruler(0, 0, width(), kRulerHeight);
    painter.fillRect(ruler, dark ? QColor(44, 46, 50) : QColor(238, 240, 244));
    const QColor ink = dark ? QColor(210, 210, 210) : QColor(60, 60, 60);
    painter.setPen(ink);
    const TimeRuler axis = timeRuler(m_zoom.start(), m_zoom.end(), laneArea().width(), timeOrigin());
    // Deep in a long run the ticks are offsets: their base, once, at the left; tick labels
    // that would run under it are left out.
    QFont bold = font();
    bold.setBold(true);
    const QString baseText = axis.base.isEmpty() ? QString() : axis.base + QStringLiteral(" +");
    const int baseWidth = baseText.isEmpty() ? 0 : QFontMetrics(bold).horizontalAdvance(baseText) + 10;
    for (const auto& tick : axis.ticks) {
        const int x = int(std::lround(tick.x));
        if (tick.label.isEmpty()) {
            painter.drawLine(x, kRulerHeight - 4, x, kRulerHeight);
        } else {
            painter.drawLine(x, kRulerHeight - 9, x, kRulerHeight);
            if (x + 3 >= baseWidth)
                painter.drawText(QRect(x + 3, 0, 200, kRulerHeight - 6),
                                 Qt::AlignLeft | Qt::AlignBottom, tick.label);
        }
    }
    if (baseWidth > 0) {
        const QRect box(0, 0, baseWidth, kRulerHeight - 1);
        painter.fillRect(box, dark ? QColor(60, 63, 70) : QColor(224, 228, 236));
        painter.setFont(bold);
        painter.drawText(box.adjusted(5, 0, 0, -6), Qt::AlignLeft | Qt::AlignBottom, baseText);
        painter.setFont(font());
    }
    painter.setPen(dark ? QColor(70, 72, 78) : QColor(200, 202, 208));
    painter.drawLine(0, kRulerHeight - 1, width(), kRulerHeight - 1);
}

int64_t TimelineView::timeOrigin() const
{
    return m_absoluteTime ? 0 : m_zoom.runStart();
}

QString TimelineView::timeText(int64_t t) const
{
    // The ruler's frame and a precision of about a pixel at this zoom.
    const double nsPerPx = double(std::max<int64_t>(1, m_zoom.span())) / std::max(1, laneArea().width());
    return formatTick(t - timeOrigin(), niceStep(nsPerPx));
}

void TimelineView::paintOverview(QPainter& painter)
{
    const bool dark = m_painter.style().dark;
    const QRect area = overviewArea();
    painter.fillRect(area, dark ? QColor(40, 42, 46) : QColor(236, 238, 242));
    const QColor bar = dark ? QColor(110, 160, 230) : QColor(70, 120, 200);
    for (size_t x = 0; x < m_overview.size() && int(x) < area.width(); ++x) {
        const int h = int(std::lround(m_overview[x] * float(area.height() - 4)));
        if (h > 0)
            painter.fillRect(int(x), area.bottom() - h - 1, 1, h, bar);
    }
    // The visible window.
    const double runSpan = double(std::max<int64_t>(1, m_zoom.runEnd() - m_zoom.runStart()));
    const double x0 = double(m_zoom.start() - m_zoom.runStart()) / runSpan * area.width();
    const double x1 = double(m_zoom.end() - m_zoom.runStart()) / runSpan * area.width();
    const QRectF window(std::max(0.0, x0), area.top() + 1,
                        std::max(2.0, std::min(double(area.width()), x1) - std::max(0.0, x0)),
                        area.height() - 2);
    painter.fillRect(window, dark ? QColor(255, 255, 255, 40) : QColor(0, 0, 0, 30));
    painter.setPen(QPen(dark ? QColor(230, 230, 230) : QColor(30, 30, 30), 1));
    painter.drawRect(window);
}

void TimelineView::paintMeasure(QPainter& painter)
{
    if (!m_measure)
        return;
    const QRect area = laneArea();
    const double x0 = xAt(m_measure->first), x1 = xAt(m_measure->second);
    const QRectF band(std::min(x0, x1), area.top(), std::fabs(x1 - x0), area.height());
    painter.fillRect(band, QColor(80, 140, 255, 50));
    painter.setPen(QPen(QColor(60, 110, 230), 1));
    painter.drawLine(QPointF(band.left(), area.top()), QPointF(band.left(), area.bottom()));
    painter.drawLine(QPointF(band.right(), area.top()), QPointF(band.right(), area.bottom()));
    // The duration on a blue tab; once the drag ends, what the range holds below it.
    const QStringList lines = measurementLines();
    const QFontMetrics metrics = painter.fontMetrics();
    int textWidth = 0;
    for (const QString& line : lines)
        textWidth = std::max(textWidth, metrics.horizontalAdvance(line) + 2); // + rounding of the advance
    textWidth = std::min(textWidth, std::max(80, area.width() - 16));
    const int lineHeight = metrics.height();
    QRect box(int(band.center().x()) - textWidth / 2 - 4, area.top() + 4, textWidth + 8,
              lineHeight * int(lines.size()) + 4);
    box.moveLeft(std::clamp(box.left(), area.left() + 2, std::max(area.left() + 2, area.right() - box.width() - 2)));
    painter.fillRect(box.adjusted(0, lineHeight + 2, 0, 0), QColor(255, 255, 255, 235));
    painter.setPen(QColor(60, 110, 230));
    if (lines.size() > 1)
        painter.drawRect(box.adjusted(0, 0, -1, -1));
    painter.fillRect(QRect(box.left(), box.top(), box.width(), lineHeight + 2), QColor(60, 110, 230));
    for (int i = 0; i < int(lines.size()); ++i) {
        painter.setPen(i == 0 ? QColor(Qt::white) : QColor(20, 30, 60));
        const QRect line(box.left() + 4, box.top() + 1 + i * lineHeight + (i > 0 ? 2 : 0), box.width() - 8, lineHeight);
        painter.drawText(line, (i == 0 ? Qt::AlignHCenter : Qt::AlignLeft) | Qt::AlignVCenter,
                         metrics.elidedText(lines[i], Qt::ElideRight, line.width()));
    }
}

} // namespace spanscope::views
