#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace spanscope::app::cli {

// `spanscope-cli export --format chrome -o OUT.json[.gz] FILE`: any file spanscope opens,
// written as Chrome trace-event JSON (gzipped when OUT ends in .gz) for Perfetto UI and
// chrome://tracing. Exit codes: 0 written, 1 the file could not be read or written, 2
// usage error.
int runExport(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace spanscope::app::cli
