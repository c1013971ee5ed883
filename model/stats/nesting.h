#pragma once
// Nesting from containment: which call encloses which, per track (a rank's thread, task,
// NVTX lane or GPU stream; see track.h).

#include "../capture.h"
#include "../load_control.h"

#include <memory>

namespace spanscope::model {

// Gives the capture its tracks when it has none (assignTracks), then fills
// capture.events.depth, capture.rowExclusive and (when calls carry their own tracks)
// capture.laneExclusive. Calls that overlap partially on a track are first moved to
// inferred lanes beside it (overlap_lanes.h), with a warning that names them.
//
// Rules (format spec §14): per track, calls sorted by start ascending, then end
// descending, ties in input order; a call is the child of the nearest still-open call; an
// open call closes for a later call starting at s when its end <= s, except that a
// zero-length call stays open through its own instant. A child that ends after its
// parent is a partial overlap: such calls are moved to inferred lanes before nesting; any
// left (past kMaxInferredLanes) are counted, warned about and treated as siblings. Calls
// whose end precedes their start (never closed) take no part and get depth 0.
//
// O(N log R) for N calls in R already-sorted rows per track (the usual case), O(N log N)
// otherwise. A track that Capture::nestingOrder lists is read from its list as one run
// (O(N), no gathering from the rows) when the lists agree with the rows: as many calls
// left to listed tracks as listed, every listed call closed and in order; otherwise the
// lists are dropped (capture.nestingOrder emptied) and the rows walked. Run before the
// capture is published; returns false if cancelled.
//
// `visitor`, when given, sees every call of every lane in nesting order (see below).
//
// Captures of at least `parallelMinimumCalls` calls are walked on two threads (with a
// visitor only if it takes the walk in pieces, see NestingVisitor::piece): tracks are shared out, and a track holding a quarter of the calls or more is
// cut in two at a time inside it, the later half starting from the calls open at the cut
// (exact when the rows on that track hold disjoint calls; otherwise the track is walked
// whole). The results are those of the serial walk; a capture with partial overlaps is
// walked serially again.
// A live snapshot's listed tracks may go on from the walk of the snapshot before
// (`resumeFrom`, made from the snapshot its calls were appended to), and leave where their
// walk stopped in `carryOut` (nesting_carry.h); either may be null.
struct NestingCarry;
struct TrackCarry;
struct NestingOptions
{
    uint64_t parallelMinimumCalls = uint64_t(1) << 20;
    const NestingCarry* resumeFrom = nullptr;
    NestingCarry* carryOut = nullptr;
};
class NestingVisitor;
bool computeNesting(Capture& capture, const ProgressRange& progress = {nullptr, 0, 1},
                    NestingVisitor* visitor = nullptr, const NestingOptions& options = {});

// Receives the walk: for each track with closed calls, in display order
// (tracksInDisplayOrder), track() once, then call() for each closed call in (start asc,
// end desc) order with its depth, start and end (ns: the event's own, which the walk has
// just read; a visitor that read them again through the event index would miss the cache
// about once per call); unclosed() for calls that never closed (they take no part in
// nesting), before any track() call.
class NestingVisitor
{
public:
    virtual ~NestingVisitor() = default;
    virtual void track(TrackId track) = 0;
    virtual void call(uint32_t event, uint16_t depth, int64_t start, int64_t end) = 0;
    virtual void unclosed(uint32_t event, TrackId track) = 0;
    // A listed track's walk may go on from a carry (NestingOptions::resumeFrom) only where
    // the visitor can take what it saw of the track before from there (false: the track is
    // walked whole); then resumeTrack() comes instead of track(), and the calls after it
    // are those the walk visits from the carry on.
    virtual bool canResume(const TrackCarry& /*carry*/) const { return false; }
    virtual void resumeTrack(TrackId track, const TrackCarry& /*carry*/) { this->track(track); }
    // Where a listed track leaves a carry (NestingOptions::carryOut), it is taken at a
    // checkpoint of its walk: this comes there, between two call()s of the track (or after
    // its last); what the visitor saw of the track before it is what the carry stands for.
    virtual void checkpoint() {}
    // Forget everything seen: the walk starts over. computeNesting() does this once when
    // its first walk found partial overlaps and it moved calls to inferred lanes
    // (overlap_lanes.h); walkNesting() never does. Visitors passed to computeNesting()
    // that keep what they saw must override it.
    virtual void restart() {}

    // For a walk shared out over two cores: a new, empty visitor of the same kind for one
    // piece of the walk (a track, or the calls of one track that start in one part of its
    // time), which sees that piece's track() and call()s on a worker thread. Null (the
    // default): this visitor needs the whole walk, in order, on one thread.
    virtual std::unique_ptr<NestingVisitor> piece() { return nullptr; }
    // Takes in what a piece saw; called on the walk's own thread once the pieces are done,
    // in walk order (of a track cut in two, the earlier part first).
    virtual void join(NestingVisitor& /*piece*/) {}
};

// The same walk over a published capture (tracks assigned), storing nothing; for building
// views of it.
void walkNesting(const Capture& capture, NestingVisitor& visitor);

} // namespace spanscope::model
