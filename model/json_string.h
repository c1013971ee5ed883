#pragma once
// JSON string literals read by hand where a document is small and no parser is at hand (a
// tag list, an event's args): escapes decoded, surrogate pairs joined, invalid UTF-8 replaced.

#include <cstddef>
#include <string>
#include <string_view>

namespace spanscope::model {

// Decodes the string literal starting at text[pos] (its opening quote) into `out` and moves
// `pos` past its closing quote; false when there is none there, or it is cut short or holds
// a bad escape. A lone surrogate becomes U+FFFD. O(length).
bool decodeJsonString(std::string_view text, size_t& pos, std::string& out);

} // namespace spanscope::model
