#pragma once
// Reads spanscope's counter and allocation tables (/spanscope/counters, /spanscope/alloc,
// docs/capture-format.md) back into Capture::counters, allocations and countedAllocations.
// Internal to model/io.

#include "../capture.h"
#include "h5_file.h"

namespace spanscope::model::io {

// Fills the tables when the file has the groups, giving the capture its tracks (they sit
// on them). A damaged group becomes a warning and is left out; never fails the read. Call
// after the events and lane tables are read.
void readAllocationTables(const H5File& file, Capture& capture);

} // namespace spanscope::model::io
