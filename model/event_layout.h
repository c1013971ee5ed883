#pragma once
// Moving a capture's calls to other places in its event columns, with every table that
// names calls by event index. A capture's rows may be held in several spans of the columns
// each, with events between them that no row holds (row_events.h); a file keeps each row
// in one span, so saving lays such a capture out again.

#include "capture.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace spanscope::model {

inline constexpr uint32_t kDroppedEvent = UINT32_MAX;

// Moves event i to newIndexOf[i] (kDroppedEvent: leaves it out) in columns of `newSize`
// events; positions nothing moves to are zero. Follows it in every table that names events
// by index: the event columns and NVTX per-call tables, the calls closed at the end, the
// ranges ended on other threads, the marks' enclosing ranges, the GPU activities and the
// flows (an entry naming an event left out goes too; a mark keeps no enclosing range).
// Rows are the caller's to set; the nesting order (NestingOrder) is cleared, as it names
// events. newIndexOf.size() must be the capture's event count, and no two events may move
// to one place.
void moveEvents(Capture& capture, const std::vector<uint32_t>& newIndexOf, uint64_t newSize);

// True when every row is one span (RegionRow::spanCount == 0).
bool rowsAreOneSpanEach(const Capture& capture);

// A copy of `capture` whose rows are one span each, one after the other in row order, and
// which leaves out the events no row holds; everything else as it was. For captures whose
// rows are held in several spans, or whose columns hold events no row holds (a file stores
// each row as one span, and the rows' calls only).
std::shared_ptr<Capture> withRowsInOneSpan(const Capture& capture);

} // namespace spanscope::model
