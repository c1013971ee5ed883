#pragma once
// Calls on one track that overlap without nesting (a file written by several threads that
// recorded no thread ids, or a source that interleaves unrelated calls on one thread)
// cannot be nested honestly: the call that seems to enclose them would get a negative
// exclusive time and its children shares above 100 %. Such calls are spread over inferred
// lanes instead, as async ranges are packed: extra tracks beside the original, equal to it
// but for Track::inferredLane, filled greedily so that on every lane each call either nests
// inside the call open before it or starts after that one ended. Calls keep their rows
// (regions); only their tracks change.

#include "../capture.h"

#include <optional>

namespace spanscope::model {

// Lanes added beside one track at the most; calls that fit none stay on the last one (and
// nesting then warns about their partial overlap).
inline constexpr uint16_t kMaxInferredLanes = 64;

// Spreads the overlapping calls of every track over inferred lanes, filling
// events.track. Returns a warning that says how many calls moved, from which regions and
// onto how many lanes, or nothing when every track already nests. Run before nesting.
// O(N log N) for N calls, O(N) memory; meant for captures in which nesting found overlaps.
std::optional<Warning> inferOverlapLanes(Capture& capture);

} // namespace spanscope::model
