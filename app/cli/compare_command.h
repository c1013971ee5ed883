#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace spanscope::app::cli {

// `spanscope-cli compare BASELINE CANDIDATE... [--format text|json|csv] [--threshold PCT]
// [--metric mean|p50|p95|total|allocs|bytes] [--region REGEX] [--per-rank]`.
// Exit codes: 0 no matching region got significantly slower than the threshold; 1 some did,
// or a file could not be read; 2 usage error. CI jobs gate on it.
int runCompare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace spanscope::app::cli
