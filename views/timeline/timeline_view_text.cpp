// TimelineView: what its tooltips and measurements say.

#include "model/report/duration_format.h"
#include "timeline_painter.h"
#include "timeline_view.h"

#include <algorithm>
#include <cmath>

namespace spanscope::views {

namespace {

constexpr size_t kListedRegions = 5; // regions a tooltip or measurement names at most

QString duration(int64_t ns)
{
    return QString::fromStdString(model::report::formatDuration(double(ns)));
}

QString regionText(const model::Capture& capture, uint32_t region)
{
    const QString name = QString::fromStdString(capture.regionName(region));
    return name.isEmpty() ? TimelineView::tr("(unnamed)") : name;
}

} // namespace

int64_t TimelineView::selfTime(uint32_t lane, uint16_t depth, uint32_t event) const
{
    const auto& events = m_capture->events;
    const int64_t total = events.end[event] - events.start[event];
    const auto& depths = m_index->lanes()[lane].depths;
    if (size_t(depth) + 1 >= depths.size())
        return total;
    const auto& children = depths[size_t(depth) + 1];
    const auto [first, last] = m_index->visibleRange(*m_capture, children, events.start[event], events.end[event]);
    return total - children.busy(first, last);
}

QString TimelineView::describeItem(const model::DrawItem& item) const
{
    const auto& capture = *m_capture;
    const auto& events = capture.events;
    const auto& lane = m_index->lanes()[item.lane];
    const QString laneTitle = QString::fromStdString(lane.title).toHtmlEscaped();
    if (item.kind == model::DrawKind::LaneHeader && lane.counter >= 0) {
        const auto& series = capture.counters[size_t(lane.counter)];
        return tr("<b>%1</b><br>%L2 samples, from %3 to %4<br>click to fold or unfold")
            .arg(laneTitle)
            .arg(qulonglong(series.size()))
            .arg(counterValueText(capture, series, series.minimum()), counterValueText(capture, series, series.maximum()));
    }
    if (item.kind == model::DrawKind::LaneHeader)
        return tr("<b>%1</b><br>%L2 calls<br>click to fold or unfold").arg(laneTitle).arg(qulonglong(item.count));
    if (item.kind == model::DrawKind::Counter) {
        const auto& series = capture.counters[size_t(lane.counter)];
        const int64_t t0 = timeAt(item.x0), t1 = std::max(timeAt(item.x1), t0 + 1);
        const size_t next = series.firstAtOrAfter(t1);
        const double now = next > 0 ? series.value(next - 1) : series.value(0);
        return tr("<b>%1</b><br>largest here %2<br>at %3: %4")
            .arg(laneTitle, counterValueText(capture, series, double(item.busy)), timeText(t1),
                 counterValueText(capture, series, now));
    }
    if (item.kind == model::DrawKind::Instant) {
        const auto& instants = capture.instants;
        QString text = QStringLiteral("<b>%1</b>").arg(
            QString::fromStdString(capture.strings.text(instants.name(item.event))).toHtmlEscaped());
        if (item.count > 1)
            text += tr(" and %L1 more within a pixel").arg(qulonglong(item.count - 1));
        text += tr("<br>at %1").arg(timeText(instants.time(item.event)));
        if (instants.args(item.event).valid())
            text += QStringLiteral("<br><tt>%1</tt>")
                        .arg(QString::fromStdString(capture.args.text(instants.args(item.event))).left(300).toHtmlEscaped());
        return text + QStringLiteral("<br>") + laneTitle;
    }
    if (item.kind == model::DrawKind::Mark)
        return describeMark(item) + QStringLiteral("<br>") + laneTitle;
    if (item.kind == model::DrawKind::Folded) {
        const int64_t start = events.start[item.event];
        QString text = tr("<b>%L1 calls</b> under a pixel each, folded<br>busy %2% · from %3")
                           .arg(qulonglong(item.count))
                           .arg(int(std::lround(item.busy * 100)))
                           .arg(timeText(start));
        const auto contents = model::foldedContents(capture, *m_index, item.lane, item.depth, item.event, item.count);
        text += regionListHtml(contents);
        return text + tr("<br>click to zoom in");
    }
    const uint32_t rowIndex = m_index->rowOf(item.event);
    const auto& row = capture.rows[rowIndex];
    QString name = QString::fromStdString(capture.regionName(row.region));
    if (name.isEmpty())
        name = tr("(unnamed)");
    const int64_t start = events.start[item.event];
    QString text = QStringLiteral("<b>%1</b>").arg(name.toHtmlEscaped());
    if (item.kind == model::DrawKind::Unclosed) {
        text += tr("<br><span style='color:#c03030'>never closed</span> (the run was finalized inside it)");
    } else {
        const int64_t wall = events.end[item.event] - start;
        text += tr("<br>wall %1").arg(duration(wall));
        if (events.hasGpu() && events.gpu[item.event] >= 0)
            text += tr("<br>GPU %1").arg(duration(events.gpu[item.event]));
        text += tr("<br>self %1").arg(duration(selfTime(item.lane, item.depth, item.event)));
        if (events.hasAwait() && events.awaitNs[item.event] > 0)
            text += tr("<br>suspended %1").arg(duration(events.awaitNs[item.event]));
    }
    text += tr("<br>starts at %1").arg(timeText(start));
    if (const int64_t endThread = capture.nvtx.endThreadOf(item.event); endThread >= 0)
        text += tr("<br>ended by another thread: %1")
                    .arg(threadText(row.rank, endThread).toHtmlEscaped());
    const uint64_t position = capture.rowEvents(row).positionOf(item.event).value_or(0);
    text += tr("<br>depth %1 · call %L2 of %L3").arg(item.depth).arg(qulonglong(position + 1)).arg(qulonglong(row.count));
    text += QStringLiteral("<br>%1").arg(QString::fromStdString(lane.title).toHtmlEscaped());
    return text;
}

QString TimelineView::toolTipAt(const QPoint& lanePosition) const
{
    if (!m_capture || !m_index)
        return {};
    const int hit = model::hitTest(m_list, float(lanePosition.x()), lanePosition.y());
    return hit < 0 ? QString() : describeItem(m_list.items[size_t(hit)]);
}

QString TimelineView::describeMark(const model::DrawItem& item) const
{
    const auto& capture = *m_capture;
    const model::NvtxMark& mark = capture.nvtx.marks[item.event];
    QString text = tr("<b>%1</b> (NVTX mark)").arg(QString::fromStdString(capture.strings.text(mark.message)).toHtmlEscaped());
    if (item.count > 1)
        text += tr(" and %L1 more within a pixel").arg(qulonglong(item.count - 1));
    text += tr("<br>at %1").arg(timeText(mark.timeNs));
    for (const auto& domain : capture.nvtx.domains)
        if (domain.id == mark.domain && mark.domain != 0)
            text += tr("<br>domain %1").arg(QString::fromStdString(capture.strings.text(domain.name)).toHtmlEscaped());
    if (mark.category != 0) {
        QString category = QString::number(mark.category);
        for (const auto& known : capture.nvtx.categories)
            if (known.domain == mark.domain && known.category == mark.category && known.name.value != 0)
                category = QString::fromStdString(capture.strings.text(known.name));
        text += tr("<br>category %1").arg(category.toHtmlEscaped());
    }
    if (mark.enclosingEvent >= 0 && uint64_t(mark.enclosingEvent) < capture.events.size()) {
        const uint32_t region = capture.rows[m_index->rowOf(uint32_t(mark.enclosingEvent))].region;
        text += tr("<br>inside %1").arg(regionText(capture, region).toHtmlEscaped());
    }
    return text;
}

QString TimelineView::regionListHtml(const model::RangeContents& contents) const
{
    QString text;
    const auto& capture = *m_capture;
    for (size_t i = 0; i < contents.regions.size() && i < kListedRegions; ++i) {
        const auto& share = contents.regions[i];
        text += tr("<br>%1 · %2%L3 calls · %4")
                    .arg(regionText(capture, share.region).toHtmlEscaped(),
                         contents.sampled ? QStringLiteral("≈") : QString())
                    .arg(qulonglong(share.calls))
                    .arg(duration(share.busyNs));
    }
    if (contents.regions.size() > kListedRegions)
        text += tr("<br>and %L1 more regions").arg(qulonglong(contents.regions.size() - kListedRegions));
    return text;
}

QString TimelineView::threadText(int32_t rank, int64_t thread) const
{
    const model::ThreadInfo* info = m_capture->thread(rank, thread);
    const QString name = info ? QString::fromStdString(m_capture->strings.text(info->name)) : QString();
    return name.isEmpty() ? tr("thread %1").arg(thread) : tr("thread %1 %2").arg(thread).arg(name);
}

void TimelineView::measure(int64_t t0, int64_t t1)
{
    if (t1 < t0)
        std::swap(t0, t1);
    m_measure = std::make_pair(t0, t1);
    m_measured.reset();
    if (m_capture && m_index && t1 > t0)
        m_measured = Measurement{t0, t1, model::rangeContents(*m_capture, *m_index, t0, t1, m_hidden)};
    update();
}

QStringList TimelineView::measurementLines() const
{
    QStringList lines{duration(m_measure->second > m_measure->first ? m_measure->second - m_measure->first
                                                                     : m_measure->first - m_measure->second)};
    if (!m_measured || m_drag == Drag::Measure)
        return lines; // still dragging: the duration only
    const auto& capture = *m_capture;
    const auto& contents = m_measured->contents;
    lines.front() += contents.calls == 1 ? tr(" · 1 call") : tr(" · %L1 calls").arg(qulonglong(contents.calls));
    if (!contents.listedCalls.empty()) {
        // Few calls: each of them, with its wall time.
        for (const uint32_t e : contents.listedCalls)
            lines << tr("%1  %2").arg(regionText(capture, capture.rows[m_index->rowOf(e)].region),
                                      duration(capture.events.end[e] - capture.events.start[e]));
        return lines;
    }
    for (size_t i = 0; i < contents.regions.size() && i < kListedRegions; ++i) {
        const auto& share = contents.regions[i];
        lines << tr("%1  %2%L3 × · %4 inside")
                     .arg(regionText(capture, share.region), contents.sampled ? QStringLiteral("≈") : QString())
                     .arg(qulonglong(share.calls))
                     .arg(duration(share.busyNs));
    }
    if (contents.regions.size() > kListedRegions)
        lines << tr("and %L1 more regions").arg(qulonglong(contents.regions.size() - kListedRegions));
    return lines;
}

} // namespace spanscope::views
