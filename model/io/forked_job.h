#pragma once
// Runs a job that uses libhdf5 in a forked child process: whatever state a failure leaves
// in the library (1.10 cannot close a file whose flush failed and crashes on it at exit)
// dies with the child. The child reports progress and its error through a pipe.
// Call with hdf5Mutex() held (crash_guard.h), never in sanitizer builds.

#include "../load_control.h"
#include "../result.h"

#include <functional>
#include <string>

namespace spanscope::model::io {

// The job gets a function to report its progress (0..1) and returns its status.
using ChildJob = std::function<Status(const std::function<void(double)>& report)>;

// Returns the job's status; Cancelled (the child is killed) when `progress` is cancelled;
// an Error naming `path` when the child crashed. `forked` is false when no child could be
// started: the caller then runs the job in-process.
Status runInChild(const std::string& path, const ProgressRange& progress, const ChildJob& job, bool& forked);

} // namespace spanscope::model::io
