#pragma once
// The parts of saving a capture that are not HDF5: refusing captures the readers would
// reject before any file is touched, checking the target path, and making the finished
// temporary file visible atomically. Used by capture_writer.cpp; regionFileLoses() also
// by whoever offers a file format to save in.

#include "../capture.h"
#include "../result.h"

#include <string>

namespace spanscope::model::io {

// What of `capture` a region file has no place for ("instants and threads and async
// tracks"), or empty when it holds everything. Such captures are saved as
// Chrome trace JSON instead (io/chrome/chrome_trace_writer.h).
std::string regionFileLoses(const Capture& capture);
// The capture has GPU work, flows or devices: saved in /spanscope/gpu.
bool hasGpuTables(const Capture& capture);
// Rows held in several spans (RegionRow::spanCount) name spans that exist, are not empty,
// lie within the event columns and add up to the row's count.
Status checkRowSpans(const Capture& capture, const std::string& path);
// Everything the readers would reject (rows beyond the events, overlapping rows, ...), and
// captures a region file would keep only in part (regionFileLoses).
Status checkCapture(const Capture& capture, const std::string& path);
// The directory exists and the target is not a directory.
Status checkTarget(const std::string& path);
// fsync the data, rename over the target, fsync the directory.
Status publish(const std::string& temp, const std::string& path);

} // namespace spanscope::model::io
