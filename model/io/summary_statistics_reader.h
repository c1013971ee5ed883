#pragma once

#include "../capture.h"
#include "h5_file.h"

namespace spanscope::model::io {

// Reads the optional `summary_statistics` compound (one record per index row, members
// matched by name) into RegionRow::stored. Problems become warnings: the per-call data
// remains the source of truth.
void readSummaryStatistics(const H5File& file, const std::string& path, Capture& capture);

} // namespace spanscope::model::io
