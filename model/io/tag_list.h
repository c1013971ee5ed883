#pragma once
// Region tags as schemas 2/3 store them: a JSON array of strings per index row.

#include "../result.h"

#include <string>
#include <string_view>
#include <vector>

namespace spanscope::model::io {

// Parses `["a", "b\"c"]`. "" and "[]" give no tags. Returns an error message (not an
// Error: the caller knows the file and row) for anything else.
Result<std::vector<std::string>> parseTagList(std::string_view json);

} // namespace spanscope::model::io
