#pragma once
// A frame of the timeline as a list of rectangles, built off the GUI thread from an
// immutable capture + timeline index + viewport; the GUI thread only paints it. Cost is
// bounded by pixels x visible rows: per depth row two binary searches cull, and every
// run of calls narrower than a pixel is folded into one block that keeps their count and
// busy time, so no call ever vanishes from the picture.

#include "../analysis/critical_path.h"
#include "../capture.h"
#include "timeline_index.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace spanscope::model {

// What part of the run is on screen and how lanes are laid out. Pixel units.
struct TimelineViewport
{
    int64_t t0 = 0, t1 = 1;   // visible time range, ns, t1 > t0
    int width = 1;            // px
    int height = 1;           // px of the lane area
    int scrollY = 0;          // px of content scrolled above the top edge
    int headerHeight = 20;    // lane title bar
    int rowHeight = 18;       // one nesting depth
    int laneGap = 4;          // space after each lane
    std::vector<bool> collapsed; // per lane; missing entries mean expanded. A collapsed lane
                                 // keeps its header, with a strip of its outermost calls in it
    std::vector<bool> hidden;    // per lane; hidden lanes take no space at all
    // The order lanes are laid out in, top to bottom (lane indices, each once); empty: the
    // index's order. Lanes missing from it come after, in the index's order.
    std::vector<uint32_t> order;
    // Per lane: at most this many nesting rows are shown (the deeper ones are cut off); 0 or
    // missing: all of them.
    std::vector<uint16_t> rowLimit;
    bool useLod = true;          // false: fold from the calls alone (tests compare both)
    int counterRows = 3;         // height of a counter lane, in rows
    // Flows to draw: those of this call (both ways), and with allFlows every flow with an
    // end in view (at most kMaxFlowLines distinct arrows).
    std::optional<uint32_t> flowsOf;
    bool allFlows = false;
    // A critical path to draw over the lanes (the GPU tab's "Show on timeline"), or null.
    std::shared_ptr<const analysis::CriticalPath> criticalPath;

    bool isCollapsed(size_t lane) const { return lane < collapsed.size() && collapsed[lane]; }
    // The lanes in the order they are laid out (`order`, then the rest).
    std::vector<uint32_t> laneOrder(size_t lanes) const;
    bool isHidden(size_t lane) const { return lane < hidden.size() && hidden[lane]; }
    double pxPerNs() const { return double(width) / double(t1 - t0); }
};

enum class DrawKind : uint8_t {
    LaneHeader, // the title bar of a lane (event = lane's call count in `count`)
    Call,       // one call, at least a pixel wide (in a collapsed lane's strip: a thin bar)
    Folded,     // `count` calls under a pixel each, merged
    Unclosed,   // a call that never closed, drawn to the end of the run
    GpuBar,     // a call's device time, under the call
    Await,      // the share of a call its task spent suspended, along its top
    Counter,    // a counter's largest value over [x0, x1): a bar up from the lane's baseline
    Instant,    // `count` instants at x0 (the first is `event`, an InstantTable row)
    Mark,       // `count` NVTX marks at x0 (the first is `event`, an index into Capture::nvtx.marks)
};

struct DrawItem
{
    float x0 = 0, x1 = 0; // px from the left edge; may extend past the edges
    int32_t y = 0;        // px from the top of the lane area (scroll applied)
    uint16_t height = 0;
    DrawKind kind = DrawKind::Call;
    uint16_t depth = 0;
    uint32_t lane = 0;
    uint32_t event = 0;   // Call/Unclosed/GpuBar/Await: the call; Folded: its first call
    uint64_t count = 0;   // calls this item stands for (Call 1, Folded n, others 0)
    float busy = 0;       // Folded: busy time / block time span, 0..1; Counter: the value
};

// An arrow between two calls (a flow), in px of the lane area.
struct FlowLine
{
    // `flow` of the arrow from the thread that started the selected start/end range to the
    // thread that ended it (an NVTX range ended on another thread), not a FlowTable row.
    static constexpr uint32_t kRangeEnd = UINT32_MAX;
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    uint32_t flow = 0; // row in Capture::flows, or kRangeEnd
};

// One step of a drawn critical path, from one node to the next, in px of the lane area:
// along a row when both are on one lane, across lanes for a launch or a synchronization.
struct PathSegment
{
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    analysis::PathShare share = analysis::PathShare::Cpu; // what bounds the step
};

struct LaneGeometry
{
    int32_t y = 0;        // top of the header, scroll applied
    int32_t height = 0;   // header + rows (+ gap excluded)
    bool collapsed = false;
};

struct DrawList
{
    static constexpr size_t kMaxFlowLines = 1000; // distinct arrows drawn at most (the selection's always)
    std::vector<DrawItem> items;
    std::vector<FlowLine> flows;
    bool flowsTruncated = false; // more flows were in view than kMaxFlowLines
    // The critical path's steps in view; consecutive steps within a pixel of each other on
    // one row are merged, so a path of millions of nodes draws in O(pixels x lanes).
    std::vector<PathSegment> path;
    std::vector<LaneGeometry> lanes;
    int contentHeight = 0;    // px of all lanes, unscrolled
    uint64_t callsInView = 0; // sum of `count` over call items = calls intersecting the view
};

DrawList buildDrawList(const Capture& capture, const TimelineIndex& index,
                       const TimelineViewport& viewport);

// Rows a lane takes when expanded: its nesting depths, one for instants, marks or range
// ends alone, or the counter's height.
int32_t laneRowCount(const TimelineLane& lane, const TimelineViewport& viewport);
// The rows lane `index` shows when expanded: laneRowCount cut to its row limit.
int32_t shownRowCount(const TimelineLane& lane, size_t index, const TimelineViewport& viewport);
// Height of a collapsed lane's busy strip, px, at the bottom of its header.
inline constexpr int kStripHeight = 4;
// Height in px of every lane laid out as buildDrawList() lays them (DrawList::contentHeight),
// without building a frame. O(lanes).
int contentHeight(const TimelineIndex& index, const TimelineViewport& viewport);

// Index of the topmost item under (x, y), preferring calls over headers; -1 if none.
// Items narrower than 3 px are hit within 1 px on either side.
int hitTest(const DrawList& list, float x, int y);

} // namespace spanscope::model
