#include "timeline_zoom.h"

#include <algorithm>
#include <cmath>

namespace spanscope::views {

TimelineZoom::TimelineZoom(QObject* parent) : QObject(parent) {}

void TimelineZoom::setRun(int64_t start, int64_t end)
{
    m_runStart = start;
    m_runEnd = std::max(end, start + 1);
    fit();
}

void TimelineZoom::updateRun(int64_t start, int64_t end)
{
    const bool wholeRun = m_start <= m_runStart && m_end >= m_runEnd;
    const bool following = m_end >= m_runEnd;
    const int64_t span = m_end - m_start;
    m_runStart = start;
    m_runEnd = std::max(end, start + 1);
    if (wholeRun)
        fit();
    else if (following)
        setRange(m_runEnd - span, m_runEnd);
    else
        setRange(m_start, m_end);
}

void TimelineZoom::setRange(int64_t start, int64_t end)
{
    const int64_t runSpan = m_runEnd - m_runStart;
    const int64_t margin = std::max<int64_t>(runSpan / 2, kMinimumSpan);
    int64_t span = std::clamp<int64_t>(end - start, kMinimumSpan, runSpan + 2 * margin);
    // Keep the window inside the run plus a margin on each side.
    start = std::clamp(start, m_runStart - margin,
                       std::max(m_runStart - margin, m_runEnd + margin - span));
    end = start + span;
    if (start == m_start && end == m_end)
        return;
    m_start = start;
    m_end = end;
    emit changed();
}

void TimelineZoom::fit()
{
    const int64_t pad = std::max<int64_t>((m_runEnd - m_runStart) / 200, 1);
    setRange(m_runStart - pad, m_runEnd + pad);
}

void TimelineZoom::zoomAround(int64_t anchor, double factor)
{
    const double span = double(m_end - m_start);
    const double newSpan = std::max(double(kMinimumSpan), span * factor);
    const double fraction = span > 0 ? double(anchor - m_start) / span : 0.5;
    const auto start = int64_t(std::llround(double(anchor) - fraction * newSpan));
    setRange(start, start + int64_t(std::llround(newSpan)));
}

} // namespace spanscope::views
