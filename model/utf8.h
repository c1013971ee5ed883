#pragma once
// Text from files is UTF-8 by contract but not always in fact: replace what is invalid
// instead of failing, so a bad byte never hides a whole file.

#include <cstdint>
#include <string>
#include <string_view>

namespace spanscope::model {

// Copy of text with each invalid UTF-8 sequence replaced by U+FFFD and trailing NULs
// (padding of fixed-length HDF5 strings) removed.
std::string sanitizeUtf8(std::string_view text);

} // namespace spanscope::model
