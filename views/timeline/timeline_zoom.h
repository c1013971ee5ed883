#pragma once
// The visible time window of a timeline, apart from any widget (as Qt Creator's
// TimelineZoomControl): zoom around a point, pan, fit, zoom to a range, clamped to the run
// with a little margin. All times in ns. GUI thread only.

#include <QObject>
#include <cstdint>

namespace spanscope::views {

class TimelineZoom : public QObject
{
    Q_OBJECT

public:
    explicit TimelineZoom(QObject* parent = nullptr);

    int64_t start() const { return m_start; }
    int64_t end() const { return m_end; }
    int64_t span() const { return m_end - m_start; }
    int64_t runStart() const { return m_runStart; }
    int64_t runEnd() const { return m_runEnd; }

    // The whole run; the view shows it all and cannot zoom out further than 2x it.
    void setRun(int64_t start, int64_t end);
    // The run grew (a live capture): a view showing the whole run keeps showing all of it;
    // one whose end was at the run's end follows the end with the same span; any other
    // stays where it is.
    void updateRun(int64_t start, int64_t end);
    void setRange(int64_t start, int64_t end);
    // The whole run with half a percent to spare on each side, so the first and last calls
    // are never drawn on the very edge (or past it, rounded).
    void fit();
    // factor < 1 zooms in. `anchor` (ns) stays where it is on screen.
    void zoomAround(int64_t anchor, double factor);
    void pan(int64_t deltaNs) { setRange(m_start + deltaNs, m_end + deltaNs); }

    static constexpr int64_t kMinimumSpan = 10; // ns: one call fills the view at most this deep

signals:
    void changed();

private:
    int64_t m_runStart = 0, m_runEnd = 1;
    int64_t m_start = 0, m_end = 1;
};

} // namespace spanscope::views
