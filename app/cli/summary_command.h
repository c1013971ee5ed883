#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace spanscope::app::cli {

// `spanscope-cli summary FILE... [--format text|json|csv] [--per-thread]`.
// --per-thread adds a per-(region, rank, thread) table to text and makes CSV rows per thread;
// JSON always carries the per-thread figures (docs/cli.md).
// Exit codes: 0 all files summarized, 1 some file could not be read (the others are still
// summarized), 2 usage error.
int runSummary(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace spanscope::app::cli
