#pragma once
// The parts of saving a capture that are not HDF5: refusing captures the readers would
// reject before any file is touched, checking the target path, and making the finished
// temporary file visible atomically. Internal to capture_writer.cpp.

#include "../capture.h"
#include "../result.h"

#include <string>

namespace spanscope::model::io {

// Everything the readers would reject (rows beyond the events, overlapping rows, ...).
Status checkCapture(const Capture& capture, const std::string& path);
// The directory exists and the target is not a directory.
Status checkTarget(const std::string& path);
// fsync the data, rename over the target, fsync the directory.
Status publish(const std::string& temp, const std::string& path);

} // namespace spanscope::model::io
