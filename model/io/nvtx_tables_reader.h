#pragma once
// Reads spanscope's NVTX side tables (/spanscope/nvtx, docs/capture-format.md) back into
// Capture::nvtx. Internal to model/io.

#include "../capture.h"
#include "h5_file.h"

namespace spanscope::model::io {

// Fills capture.nvtx when the file has /spanscope/nvtx. A damaged group becomes a warning
// and leaves capture.nvtx empty; never fails the read. Call after the events are read.
void readNvtxTables(const H5File& file, Capture& capture);

} // namespace spanscope::model::io
