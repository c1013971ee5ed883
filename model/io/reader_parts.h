#pragma once
// Pieces shared by the schema readers. Internal to model/io.

#include "../capture.h"
#include "../load_control.h"
#include "../result.h"
#include "h5_file.h"

namespace spanscope::model::io {

// Schema 1: /rank<N>/regions/<name>/{start_times,end_times,...}.
Status readPerRankGroups(const H5File& file, Capture& capture, const ProgressRange& progress);
// Schemas 2 and 3 (absolute or delta-encoded events, columnar or aggregate).
Status readColumnar(const H5File& file, Capture& capture, const ProgressRange& progress);

// /metadata attributes; unreadable ones become warnings.
void readMetadata(const H5File& file, Capture& capture);
// /thread_table and /task_table when present.
Status readLaneTables(const H5File& file, Capture& capture);

// Checks that need the whole capture: calls that never closed, lane ids that point
// nowhere. Adds warnings; never fails.
void checkEvents(Capture& capture);

// Walks the file as readRegionFile would, reading everything but the bulk of large
// numeric columns. For crash isolation (crash_guard.h); true if it read without error.
bool readRegionStructure(const std::string& path);

// Parses "rank<digits>" into its number; false for any other name.
bool parseRankGroupName(const std::string& name, int32_t& rank);

} // namespace spanscope::model::io
