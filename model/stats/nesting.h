#pragma once
// Nesting from containment: which call encloses which, per rank and per thread/task lane.

#include "../capture.h"
#include "../load_control.h"

namespace spanscope::model {

// Fills capture.events.depth, capture.rowExclusive and (when the events carry thread or
// task ids) capture.laneExclusive, and adds a warning per rank with partial overlaps.
//
// Rules (format spec §14): per rank and lane, calls sorted by start ascending, then end
// descending, ties in input order; a call is the child of the nearest still-open call; an
// open call closes for a later call starting at s when its end <= s, except that a
// zero-length call stays open through its own instant. A child that ends after its
// parent is a partial overlap: counted, warned about, and treated as a sibling. Calls
// whose end precedes their start (never closed) take no part and get depth 0.
//
// O(N log R) for N calls in R already-sorted rows per lane (the usual case), O(N log N)
// otherwise. Run before the capture is published; returns false if cancelled.
//
// `visitor`, when given, sees every call of every lane in nesting order (see below).
class NestingVisitor;
bool computeNesting(Capture& capture, const ProgressRange& progress = {nullptr, 0, 1},
                    NestingVisitor* visitor = nullptr);

// Receives the walk: for each rank (ascending) and lane, lane() once, then call() for each
// closed call in (start asc, end desc) order with its depth; unclosed() for calls that
// never closed (they take no part in nesting).
class NestingVisitor
{
public:
    virtual ~NestingVisitor() = default;
    virtual void lane(int32_t rank, int64_t laneKey) = 0;
    virtual void call(uint32_t event, uint16_t depth) = 0;
    virtual void unclosed(uint32_t event, int32_t rank, int64_t laneKey) = 0;
};

// The same walk over a published capture, storing nothing; for building views of it.
void walkNesting(const Capture& capture, NestingVisitor& visitor);

// The lane key of a call as the format defines it: task id if >= 0, otherwise -2 - thread
// id if the thread id >= 0, otherwise -1.
inline int64_t laneKey(int64_t taskId, int64_t threadId)
{
    if (taskId >= 0)
        return taskId;
    if (threadId >= 0)
        return -2 - threadId;
    return -1;
}

} // namespace spanscope::model
