#include "timeline_painter.h"

#include "views/gpu/gpu_colors.h"

#include "model/report/duration_format.h"
#include "region_colors.h"

#include <QLocale>

#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace spanscope::views {

namespace {

constexpr int kMinLabelWidth = 24; // px: narrower calls get no text

constexpr double kSolidFoldedPx = 3; // folded blocks narrower than this are drawn opaque

QColor headerBackgroundColor(bool dark)
{
    return dark ? QColor(52, 55, 60) : QColor(228, 231, 236);
}

QRectF itemRect(const model::DrawItem& item, int width)
{
    // Clip to a little beyond the widget so huge zoom factors never overflow QPainter.
    double x0 = std::clamp(double(item.x0), -4.0, double(width) + 4.0);
    const double x1 = std::clamp(double(item.x1), -4.0, double(width) + 4.0);
    // A call that starts in the last pixel (the run's last call, at "fit") is drawn in that
    // pixel, not rounded past the edge: nothing in view may disappear.
    if (x0 < width && x0 > width - 1.0)
        x0 = width - 1.0;
    return {x0, double(item.y), std::max(1.0, x1 - x0), double(item.height)};
}

} // namespace

QString counterValueText(const model::Capture& capture, const model::CounterSeries& series, double value)
{
    if (capture.strings.text(series.unit) == "bytes")
        return QString::fromStdString(model::report::formatBytes(value));
    if (capture.strings.text(series.unit) == "fraction") // a busy share
        return QLocale().toString(100.0 * value, 'f', 1) + QStringLiteral(" %");
    const QString unit = QString::fromStdString(capture.strings.text(series.unit));
    return QLocale().toString(value, 'g', 6) + (unit.isEmpty() ? QString() : QStringLiteral(" ") + unit);
}

TimelinePainter::TimelinePainter(TimelineStyle style) : m_style(std::move(style)), m_metrics(m_style.font) {}

QString TimelinePainter::label(const model::Capture& capture, uint32_t region)
{
    auto it = m_labels.find(region);
    if (it == m_labels.end()) {
        const auto& name = capture.regionName(region);
        it = m_labels.insert(region, name.empty() ? QStringLiteral("(unnamed)") : QString::fromStdString(name));
    }
    return *it;
}

QString TimelinePainter::labelFor(const model::Capture& capture, uint32_t region, int width)
{
    constexpr int kPadding = 6;
    const int room = width - kPadding;
    if (room < m_metrics.horizontalAdvance(QStringLiteral("MM")))
        return {};
    const QString name = label(capture, region);
    if (m_metrics.horizontalAdvance(name) <= room)
        return name;
    // Elided at the end, keeping the start: a last path component alone made different
    // regions look the same ("worker1.iteration" and "worker2.iteration" both "iteration",
    // "solver/assemble" shortened next to a real region "a").
    const QString elided = m_metrics.elidedText(name, Qt::ElideRight, room);
    return elided.size() > 1 ? elided : QString();
}

void TimelinePainter::paint(QPainter& painter, const TimelineFrame& frame)
{
    const auto& capture = *frame.capture;
    const auto& index = *frame.index;
    const bool dark = m_style.dark;
    painter.setFont(m_style.font);
    const QColor headerBackground = headerBackgroundColor(dark);
    const QColor foldedColor = dark ? QColor(150, 150, 160) : QColor(110, 115, 125);
    const QColor gpuColor = dark ? QColor(90, 220, 120) : QColor(20, 140, 60);
    const QColor selection = dark ? QColor(255, 255, 255) : QColor(0, 0, 0);

    for (const auto& item : frame.list->items) {
        const QRectF rect = itemRect(item, frame.width);
        switch (item.kind) {
        case model::DrawKind::LaneHeader:
            painter.fillRect(rect, headerBackground);
            break; // its title goes on last, over the arrows (paintLaneTitles)
        case model::DrawKind::Call:
        case model::DrawKind::Unclosed: {
            const uint32_t region = capture.rows[index.rowOf(item.event)].region;
            QColor color = regionColorIn(frame.palette, capture.regionName(region), capture.regionKind(region), dark);
            const bool dimmed = frame.matches && (region >= frame.matches->size() || !(*frame.matches)[region]);
            if (dimmed)
                color = QColor::fromHsv(color.hue(), color.saturation() / 5, color.value(), 110);
            painter.fillRect(rect, color);
            if (item.kind == model::DrawKind::Unclosed) {
                painter.fillRect(rect, QBrush(QColor(200, 30, 30, 150), Qt::BDiagPattern));
                painter.setPen(QPen(QColor(200, 30, 30), 1));
                painter.drawRect(rect.adjusted(0, 0, -1, -1));
            }
            if (int(region) == frame.highlightRegion) {
                painter.setPen(QPen(selection, 1.5));
                painter.drawRect(rect.adjusted(0.5, 0.5, -0.5, -0.5));
            }
            if (frame.selectedEvent && *frame.selectedEvent == item.event) {
                painter.setPen(QPen(selection, 2.5));
                painter.drawRect(rect.adjusted(1, 1, -1, -1));
            }
            if (rect.width() >= kMinLabelWidth && rect.height() > model::kStripHeight) {
                const QString text = labelFor(capture, region, int(rect.width()));
                if (!text.isEmpty()) {
                    painter.setPen(textColorOn(color));
                    painter.drawText(rect.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
                }
            }
            break;
        }
        case model::DrawKind::Folded: {
            // Darker the busier: a block of calls covering half its span draws at half alpha.
            // A sliver of a few pixels is drawn solid: faint, it would look like nothing there.
            QColor color = foldedColor;
            color.setAlphaF(rect.width() < kSolidFoldedPx ? 1.0f
                                                          : 0.35f + 0.65f * std::clamp(item.busy, 0.0f, 1.0f));
            painter.fillRect(rect, color);
            if (rect.width() >= 48 && rect.height() > model::kStripHeight) {
                painter.setPen(textColorOn(foldedColor));
                painter.drawText(rect.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft,
                                 m_metrics.elidedText(QStringLiteral("%L1 calls").arg(qulonglong(item.count)),
                                                      Qt::ElideRight, int(rect.width()) - 6));
            }
            break;
        }
        case model::DrawKind::GpuBar:
            painter.fillRect(rect, gpuColor);
            break;
        case model::DrawKind::Await:
            painter.fillRect(rect, QBrush(dark ? QColor(0, 0, 0, 130) : QColor(255, 255, 255, 170),
                                          Qt::Dense4Pattern));
            break;
        case model::DrawKind::Counter: {
            const auto& lane = index.lanes()[item.lane];
            QColor color = regionColor(lane.title, dark);
            painter.fillRect(rect, color);
            painter.fillRect(QRectF(rect.left(), rect.top(), rect.width(), 1.5), color.darker(dark ? 70 : 150));
            break;
        }
        case model::DrawKind::Instant: {
            // A small downward triangle at the instant; a bolder one for several.
            const double cx = rect.left() + 0.5;
            const double size = item.count > 1 ? 5.0 : 4.0;
            const QPointF glyph[3] = {{cx - size, rect.top() + 1}, {cx + size, rect.top() + 1}, {cx, rect.top() + 1 + size * 1.6}};
            painter.setPen(QPen(dark ? QColor(20, 20, 20) : QColor(255, 255, 255), 1));
            painter.setBrush(dark ? QColor(255, 210, 80) : QColor(200, 60, 40));
            painter.drawPolygon(glyph, 3);
            painter.setBrush(Qt::NoBrush);
            break;
        }
        case model::DrawKind::Mark: {
            // An NVTX mark: a diamond standing on the row (a bigger one for several), so it
            // reads apart from the instants' triangles.
            const double cx = rect.left() + 0.5, half = item.count > 1 ? 5.0 : 4.0;
            const double cy = rect.top() + 1; // astride the header's edge: it hides little of a label
            const QPointF glyph[4] = {{cx, cy - half}, {cx + half, cy}, {cx, cy + half}, {cx - half, cy}};
            painter.setRenderHint(QPainter::Antialiasing, true);
            painter.setPen(QPen(dark ? QColor(20, 20, 20) : QColor(255, 255, 255), 1));
            painter.setBrush(markColor(dark));
            painter.drawPolygon(glyph, 4);
            painter.setBrush(Qt::NoBrush);
            painter.setRenderHint(QPainter::Antialiasing, false);
            break;
        }
        }
    }
    paintCriticalPath(painter, frame);
    paintFlows(painter, frame);
    paintLaneTitles(painter, frame);
    paintLegend(painter, frame);
}

QString TimelinePainter::laneTitle(const TimelineFrame& frame, const model::DrawItem& header) const
{
    const auto& capture = *frame.capture;
    const auto& lane = frame.index->lanes()[header.lane];
    const bool collapsed = header.lane < frame.list->lanes.size() && frame.list->lanes[header.lane].collapsed;
    QString what = header.count == 1 ? QStringLiteral("1 call") : QStringLiteral("%L1 calls").arg(qulonglong(header.count));
    if (lane.counter >= 0) {
        const auto& series = capture.counters[size_t(lane.counter)];
        what = QStringLiteral("peak %1").arg(counterValueText(capture, series, series.maximum()));
    } else if (lane.instants && header.count == 0) {
        const auto [first, last] = capture.instants.range(lane.track, INT64_MIN, INT64_MAX);
        what = (last - first == 1 ? QStringLiteral("%L1 instant") : QStringLiteral("%L1 instants"))
                   .arg(qulonglong(last - first));
    }
    return QString::fromUtf8(collapsed ? "▸ " : "▾ ") + QString::fromStdString(lane.title) + QStringLiteral("  —  ") + what;
}

void TimelinePainter::paintLaneTitles(QPainter& painter, const TimelineFrame& frame)
{
    // Over the arrows and the path, each on a patch of its header's colour: arrows pass under
    // the titles, which stay readable.
    const QColor background = headerBackgroundColor(m_style.dark);
    painter.save();
    painter.setPen(m_style.dark ? QColor(220, 220, 220) : QColor(40, 40, 40));
    for (const auto& item : frame.list->items) {
        if (item.kind != model::DrawKind::LaneHeader)
            continue;
        const QRectF rect = itemRect(item, frame.width).adjusted(6, 0, -6, -double(model::kStripHeight) - 1);
        const QString title = laneTitle(frame, item);
        const double width = std::min(rect.width(), double(m_metrics.horizontalAdvance(title)) + 6);
        painter.fillRect(QRectF(rect.left() - 3, rect.top(), width, rect.height()), background);
        painter.drawText(QRectF(rect.left(), rect.top(), rect.width(), rect.height() + double(model::kStripHeight) + 1),
                         Qt::AlignVCenter | Qt::AlignLeft, title);
    }
    painter.restore();
}

void TimelinePainter::paintCriticalPath(QPainter& painter, const TimelineFrame& frame)
{
    const auto& segments = frame.list->path;
    if (segments.empty())
        return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, segments.size() < 2000);
    const double limit = double(frame.width) + 200;
    // A halo in the background's colour under each step, so the path reads over any call.
    for (int pass = 0; pass < 2; ++pass)
        for (const auto& s : segments) {
            const QPointF from(std::clamp(double(s.x0), -200.0, limit), s.y0);
            const QPointF to(std::clamp(double(s.x1), -200.0, limit), s.y1);
            const QColor color = pass == 0 ? (m_style.dark ? QColor(20, 20, 24) : QColor(255, 255, 255))
                                           : pathShareColor(s.share);
            painter.setPen(QPen(color, pass == 0 ? 6.0 : 3.0, Qt::SolidLine, Qt::RoundCap));
            painter.drawLine(from, to);
        }
    painter.restore();
}

void TimelinePainter::paintLegend(QPainter& painter, const TimelineFrame& frame)
{
    std::vector<std::pair<QString, QColor>> entries;
    bool kinds[model::kFlowKinds] = {};
    bool rangeEnds = false;
    for (const auto& line : frame.list->flows) {
        if (line.flow == model::FlowLine::kRangeEnd)
            rangeEnds = true;
        else
            kinds[int(frame.capture->flows.kind(line.flow))] = true;
    }
    const char* const flowNames[model::kFlowKinds] = {"launch", "forward → backward", "trace flow", "synchronization"};
    for (int k = 0; k < model::kFlowKinds; ++k)
        if (kinds[k])
            entries.emplace_back(QString::fromUtf8(flowNames[k]), flowColor(model::FlowKind(k), m_style.dark));
    if (rangeEnds)
        entries.emplace_back(QStringLiteral("range ended on another thread"), markColor(m_style.dark));
    bool shares[model::analysis::kPathShares] = {};
    for (const auto& s : frame.list->path)
        shares[int(s.share)] = true;
    for (int s = 0; s < model::analysis::kPathShares; ++s)
        if (shares[s])
            entries.emplace_back(QStringLiteral("critical path: ") +
                                     QString::fromLatin1(model::analysis::pathShareName(model::analysis::PathShare(s)))
                                         .replace(QLatin1Char('_'), QLatin1Char(' ')),
                                 pathShareColor(model::analysis::PathShare(s)));
    if (entries.empty())
        return;
    painter.save();
    const QFontMetrics metrics(m_style.font);
    int width = 0;
    for (const auto& [text, color] : entries)
        width = std::max(width, metrics.horizontalAdvance(text));
    const int line = metrics.height() + 2, pad = 6, swatch = 14;
    const QRect box(frame.width - width - swatch - 3 * pad, pad, width + swatch + 2 * pad + 4,
                    int(entries.size()) * line + pad);
    painter.setPen(m_style.dark ? QColor(90, 90, 96) : QColor(190, 190, 196));
    painter.setBrush(m_style.dark ? QColor(30, 31, 35, 225) : QColor(255, 255, 255, 225));
    painter.drawRect(box);
    int y = box.top() + pad / 2;
    for (const auto& [text, color] : entries) {
        painter.fillRect(QRect(box.left() + pad, y + line / 2 - 2, swatch, 4), color);
        painter.setPen(m_style.dark ? QColor(225, 225, 225) : QColor(40, 40, 40));
        painter.drawText(QRect(box.left() + pad + swatch + 4, y, width + 4, line), Qt::AlignLeft | Qt::AlignVCenter,
                         text);
        y += line;
    }
    painter.restore();
}

void TimelinePainter::paintFlows(QPainter& painter, const TimelineFrame& frame)
{
    const bool dark = m_style.dark;
    const auto& lines = frame.list->flows;
    if (lines.empty())
        return;
    painter.save();
    const auto& flows = frame.capture->flows;
    // Many arrows (every flow in view) are drawn as plain lines: curves with antialiasing
    // cost ~20 µs each, too much for a frame of a thousand.
    const bool plain = lines.size() > 150;
    painter.setRenderHint(QPainter::Antialiasing, !plain);
    const double limit = double(frame.width) + 200;
    for (const auto& line : lines) {
        const QColor color = line.flow == model::FlowLine::kRangeEnd ? markColor(dark) : flowColor(flows.kind(line.flow), dark);
        // Ends far outside the view are pulled in: QPainter slows down on huge coordinates.
        const QPointF from(std::clamp(double(line.x0), -200.0, limit), line.y0);
        const QPointF to(std::clamp(double(line.x1), -200.0, limit), line.y1);
        if (plain) {
            painter.setPen(QPen(color, 1));
            painter.drawLine(from, to);
            painter.fillRect(QRectF(to.x() - 2, to.y() - 2, 4, 4), color);
            continue;
        }
        // A curve that leaves and enters horizontally, so arrows between rows read as links.
        const double bend = std::clamp(std::abs(to.x() - from.x()) / 2, 12.0, 80.0);
        QPainterPath path(from);
        path.cubicTo(from + QPointF(bend, 0), to - QPointF(bend, 0), to);
        painter.setPen(QPen(color, 1.6));
        painter.setBrush(Qt::NoBrush);
        painter.drawPath(path);
        const QPointF tip = to, back = tip - QPointF(7, 0);
        const QPointF head[3] = {tip, back + QPointF(0, -4), back + QPointF(0, 4)};
        painter.setBrush(color);
        painter.drawPolygon(head, 3);
        painter.drawEllipse(from, 2.5, 2.5);
    }
    painter.restore();
}

} // namespace spanscope::views
