#pragma once
// How spanscope's programs find each other and the collector, from their own location, so
// the same lookup works in the build tree and in an installed (or moved) tree. The
// installed layout is in cmake/install_layout.cmake; the build tree keeps every program in
// <build>/bin and the collector in <build>/lib. Plain C++ (the CLI launcher links nothing
// else).

#include <string>
#include <vector>

namespace spanscope::app {

// The folder of the running executable (from /proc/self/exe), with a trailing '/'; empty
// when it cannot be read.
std::string ownDirectory();

// Where a helper program of spanscope-cli (spanscope-cli-core, spanscope-render) may be,
// most likely first: the installed libexec folder, then beside `programDir`.
std::vector<std::string> helperProgramCandidates(const std::string& programDir,
                                                 const std::string& name);

// Where the NVTX collector library may be: $SPANSCOPE_COLLECTOR when set (alone), else the
// installed plugin folder, then the build tree's lib/.
std::vector<std::string> collectorCandidates(const std::string& programDir);

// Where libspanscope-alloc (the allocation interposer, spanscope-run --alloc) may be:
// $SPANSCOPE_ALLOC_LIBRARY if set, else next to an installed or built tree's libraries.
std::vector<std::string> allocLibraryCandidates(const std::string& programDir);

// The first candidate that exists (is executable, for programs); empty if none does.
std::string firstExisting(const std::vector<std::string>& candidates, bool executable);

} // namespace spanscope::app
