#pragma once
// libhdf5 is not hardened against damaged files: a corrupt global heap or B-tree can make
// it read out of bounds and crash the whole viewer, taking every other open tab with it.
// Before a file is read in-process, a forked child walks its structure (every group,
// attribute, string and small dataset the reader touches; large numeric columns only
// checked) and the parent looks at how the child ended.

#include "../result.h"

#include <mutex>
#include <string>

namespace spanscope::model::io {

// Serializes this process's use of HDF5 so that no thread is inside the library when the
// guard forks (the child would inherit a held HDF5 lock). HDF5 serializes calls
// internally anyway, so this costs no parallelism.
std::mutex& hdf5Mutex();

// Not in sanitizer builds (see crash_guard.cpp). Returns an error if reading the file's structure crashes or hangs; Ok otherwise (also
// when the structure is invalid in an orderly way: the real read reports that precisely).
// Call with hdf5Mutex() held.
Status probeStructureInChild(const std::string& path);

} // namespace spanscope::model::io
