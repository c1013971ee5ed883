#pragma once
// The timeline: one lane per track (threads, tasks, GPU streams, counters) of nested calls
// over a time ruler, with flows as arrows and an overview strip of the whole run. Frames are built as draw lists on a worker thread
// (latest wins); the GUI thread only paints the last finished one, so a frame never
// costs more than painting what is on screen. GUI thread only.

#include "model/capture.h"
#include "model/timeline/call_search.h"
#include "model/timeline/draw_list.h"
#include "model/timeline/range_contents.h"
#include "model/timeline/timeline_index.h"
#include "lane_layout.h"
#include "timeline_painter.h"
#include "timeline_zoom.h"

#include <QFutureWatcher>
#include <QRegularExpression>
#include <QScrollBar>
#include <QWidget>

#include <memory>
#include <optional>

class QMenu;

namespace spanscope::views {

class TimelineView : public QWidget
{
    Q_OBJECT

public:
    explicit TimelineView(QWidget* parent = nullptr);
    ~TimelineView() override;

    void setCapture(std::shared_ptr<const model::Capture> capture,
                    std::shared_ptr<const model::TimelineIndex> index);
    // A newer snapshot of the same, growing capture (live): the view window (see
    // TimelineZoom::updateRun), folded and hidden lanes, the search and the highlighted
    // region stay; the selection stays if the call is still at the same index.
    void updateCapture(std::shared_ptr<const model::Capture> capture,
                       std::shared_ptr<const model::TimelineIndex> index);
    TimelineZoom* zoom() { return &m_zoom; }
    const std::shared_ptr<const model::TimelineIndex>& index() const { return m_index; }

    // Dark lane colours. Follows the widget palette by itself (the application's theme).
    void setDarkPalette(bool dark);
    bool darkPalette() const { return m_painter.style().dark; }
    void setAbsoluteTime(bool absolute);
    bool absoluteTime() const { return m_absoluteTime; }

    // Outlines every call of a region (-1: none).
    void setHighlightRegion(int region);
    int highlightRegion() const { return m_highlightRegion; }
    // Selects a call; with reveal, scrolls and zooms so it is visible.
    void selectEvent(uint32_t event, bool reveal);
    std::optional<uint32_t> selectedEvent() const { return m_selected; }
    // Dims calls of regions whose name does not match (an invalid or empty pattern clears).
    void setSearchPattern(const QRegularExpression& pattern);
    uint64_t searchMatchCount() const { return m_matchCount; }
    // Selects and reveals the next/previous matching call after the selection or view start.
    bool findNext(bool forward);
    void zoomToSelection();
    // Draws every flow with an end in view, not only the selected call's (at most
    // DrawList::kMaxFlowLines).
    void setShowAllFlows(bool all);
    bool showAllFlows() const { return m_allFlows; }
    // Shows only lanes whose title matches (an empty pattern shows all).
    void setLaneFilter(const QRegularExpression& pattern);
    void setCollapsedAll(bool collapsed);
    // The lanes' order, folds and row limits as shown.
    LaneLayout laneLayout() const;
    // A layout the user chose for lanes of these titles before (an earlier session, another
    // recording of the program): every capture this view shows takes it in place of the
    // default, until the user changes it or asks for the default layout.
    void setRememberedLayout(LaneLayout layout);
    // Asks for the default layout and forgets the remembered one (laneLayoutForgotten).
    void useDefaultLayout();
    // What a lane's header click and its menu do (lane: of the index).
    void toggleLane(uint32_t lane);
    static constexpr int kToTop = 0; // moveLane's `where`: to the top, -1 up, +1 down
    void moveLane(uint32_t lane, int where);
    // Draws a critical path (the GPU tab's "Show on timeline") over the lanes; null: none.
    void setCriticalPath(std::shared_ptr<const model::analysis::CriticalPath> path);
    const std::shared_ptr<const model::analysis::CriticalPath>& criticalPath() const { return m_criticalPath; }

    // The colours of the regions drawn. setCapture() gives the capture's own palette and
    // updateCapture() extends it; a comparison shares one over all its runs.
    void setRegionPalette(std::shared_ptr<const RegionPalette> palette);
    const std::shared_ptr<const RegionPalette>& regionPalette() const { return m_regionPalette; }

    // A Shift+drag measurement over [t0, t1) ns, as if the user had dragged it: the band,
    // its duration and what it holds (the calls when few, else the busiest regions).
    void measure(int64_t t0, int64_t t1);
    // The measured range and what it holds, once the drag has ended; nullopt otherwise.
    struct Measurement
    {
        int64_t t0 = 0, t1 = 0;
        model::RangeContents contents;
    };
    const std::optional<Measurement>& measurement() const { return m_measured; }
    // What a tooltip over the item at (x, y) of the lane area says (HTML); empty over nothing.
    QString toolTipAt(const QPoint& lanePosition) const;

    // For tests and reports: the frame last painted, and whether a newer one is pending.
    const model::DrawList& drawList() const { return m_list; }
    bool frameUpToDate() const { return !m_building && !m_dirty; }
    model::TimelineViewport viewport() const;
    // The height that shows every lane without scrolling, ruler, overview and scroll bar
    // included (at least the minimum height): for layouts that size the view to fit.
    int fullHeight() const;
    // The height that shows the lanes a GPU-first default layout must keep in view (each
    // device's utilization and streams, the busiest CPU thread) as laid out now; 0 when no
    // such layout is shown (a CPU capture, the user's own layout).
    int essentialHeight() const;
    // The most a container would give this view to fit its lanes: the default layout folds
    // and shortens lanes until its essential ones fit that (or the view as it is, if taller).
    void setFitHeight(int height);
    // Where the lanes are drawn, in widget coordinates (draw-list x and y start there).
    QRect laneArea() const;

    static constexpr int kRulerHeight = 24;
    static constexpr int kOverviewHeight = 30;
    static constexpr int kScrollBarExtent = 14;

signals:
    void callSelected(quint32 event); // the user picked a call
    void frameReady();
    // The user folded, unfolded, moved a lane or changed its rows: laneLayout() is theirs.
    void laneLayoutChosen();
    // The user asked for the default layout: what was remembered is of no use.
    void laneLayoutForgotten();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    struct Frame
    {
        model::DrawList list;
        std::vector<float> overview; // busy share per overview pixel column, empty if unchanged
    };

    QRect overviewArea() const;
    int64_t timeAt(double x) const;
    double xAt(int64_t t) const;
    void requestFrame();
    void frameFinished();
    void updateScrollBars();
    void paintRuler(QPainter& painter);
    void paintOverview(QPainter& painter);
    void paintMeasure(QPainter& painter);
    void showToolTip(const QPoint& position);
    QString describeItem(const model::DrawItem& item) const;
    QString describeMark(const model::DrawItem& item) const;
    // "<br>" + the busiest regions of `contents`, one per line (at most a few).
    QString regionListHtml(const model::RangeContents& contents) const;
    // "thread 3 worker" of a rank's thread_table row, or "thread 3".
    QString threadText(int32_t rank, int64_t thread) const;
    // Times as the ruler shows them: from the run's start, or absolute; to about a pixel.
    int64_t timeOrigin() const;
    QString timeText(int64_t t) const;
    int64_t selfTime(uint32_t lane, uint16_t depth, uint32_t event) const;
    // Lanes (timeline_view_lanes.cpp).
    void applyDefaultLayout();
    void defaultLayout();
    int fullHeight(int lanesHeight) const; // with the ruler, overview and scroll bar
    int lanesHeight(size_t count) const;   // of the first `count` lanes in order, as laid out
    void chooseLayout(); // the user changed the layout: keep it, remember it, say so
    void revealLane(uint32_t event);
    void addLaneActions(QMenu& menu, uint32_t lane);

    std::shared_ptr<const model::Capture> m_capture;
    std::shared_ptr<const model::TimelineIndex> m_index;
    // Built on first use: O(events), not worth paying on every live update.
    const model::CallSearch& search();
    std::unique_ptr<model::CallSearch> m_search;
    QRegularExpression m_searchPattern, m_laneFilter;
    TimelineZoom m_zoom;
    QScrollBar* m_vertical;
    QScrollBar* m_horizontal;
    TimelinePainter m_painter;
    std::shared_ptr<const RegionPalette> m_regionPalette;

    model::DrawList m_list;
    std::vector<float> m_overview;
    int m_overviewWidth = -1;
    std::pair<int64_t, int64_t> m_overviewRun{0, 0}; // the zoom's run range the strip was built for
    QFutureWatcher<Frame> m_watcher;
    bool m_building = false, m_dirty = false;
    std::vector<bool> m_collapsed;
    std::vector<bool> m_hidden;
    std::vector<uint32_t> m_order;    // lanes top to bottom; empty: the index's order
    std::vector<uint16_t> m_rowLimit; // per lane: rows shown at most, 0 = all
    bool m_layoutChosen = false;      // the user folded or moved a lane: no default layout
    LaneLayout m_remembered;          // applied over the default layout; empty = none
    int m_fitHeight = 0;              // setFitHeight's; 0 = none given
    size_t m_essentialLanes = 0;      // the first lanes in order the default layout must show

    bool m_absoluteTime = false;
    bool m_allFlows = false;
    std::shared_ptr<const model::analysis::CriticalPath> m_criticalPath;
    int m_highlightRegion = -1;
    std::optional<uint32_t> m_selected;
    std::vector<bool> m_matches;
    bool m_searching = false;
    uint64_t m_matchCount = 0;

    enum class Drag { None, Pan, Measure, ZoomBox, Overview };
    Drag m_drag = Drag::None;
    QPoint m_pressPosition;
    int64_t m_pressStart = 0, m_pressEnd = 0;
    int m_pressScroll = 0;
    bool m_moved = false;
    std::optional<std::pair<int64_t, int64_t>> m_measure; // ns range shown by shift-drag
    std::optional<Measurement> m_measured; // what the last finished measurement holds
    QStringList measurementLines() const;
};

} // namespace spanscope::views
