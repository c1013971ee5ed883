#pragma once
// What the targets share: scratch files, and the analysis every accepted capture goes through.
#include "model/capture.h"
#include "model/result.h"

#include <memory>
#include <string>

namespace spanscope::fuzz {

// A path in this process's scratch folder (tmpfs where there is one), removed at exit.
std::string scratchPath(const std::string& name);

// Writes `bytes` to an in-memory file; returns a path that opens it ("/proc/self/fd/N"),
// valid until the next call.
std::string memoryFile(const std::string& bytes);

// Nesting, summary, timeline index and the JSON summary of a capture a reader accepted:
// whatever it holds, none of them may crash.
void analyze(std::shared_ptr<model::Capture> capture);

} // namespace spanscope::fuzz
