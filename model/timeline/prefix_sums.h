#pragma once
// A depth row's busy-time prefix sums (TimelineIndex), kept in chunks of 65,536 values that
// the rows of successive live snapshots share (ChunkedArray): the sums over a row's closed
// calls never change, so the next snapshot's row keeps every whole chunk of them and copies
// only the last, partial one (0.5 MiB at most, into a pooled chunk already faulted in)
// instead of 8 bytes per call (docs/live-updates.md, "The walk carried over").

#include "../chunked_array.h"

#include <cstdint>

namespace spanscope::model {

using PrefixSums = ChunkedArray<int64_t, std::size_t(1) << 16>;

} // namespace spanscope::model
