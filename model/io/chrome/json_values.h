#pragma once
// Small readers of simdjson On-Demand values shared by the Chrome trace walk: a value's
// text, integers from their exact decimal text, hashes of ids. Internal to model/io/chrome.

#include <cstdint>
#include <optional>
#include <simdjson.h>
#include <string>
#include <string_view>
#include <vector>

namespace spanscope::model::io::chrome {

namespace sj = simdjson::ondemand;

constexpr size_t kMaxMetadataBytes = 4096; // top-level values kept as metadata text

// The first `bytes` bytes of `text`, not splitting a UTF-8 sequence.
std::string_view utf8Prefix(std::string_view text, size_t bytes);
std::string_view trimmed(std::string_view text); // trailing whitespace removed
// A JSON value's text: a string's contents, a scalar's token; false for anything else. A
// string without escapes is viewed where it lies in the input (no copy).
bool scalarText(sj::value value, std::string_view& text);
// Like scalarText but only for strings: false for a number, boolean or anything else.
bool stringText(sj::value value, std::string_view& text);
std::optional<int64_t> integerOf(sj::value value); // exact, from the decimal text
std::optional<double> numberOf(sj::value value);   // numbers and booleans
// The JSON text of an array whose elements are all strings, as a list; false otherwise.
bool listOfStrings(std::string_view raw, std::vector<std::string>& list);
// FNV-1a over the bytes, then a 64-bit finalizer (splitmix): stable, and well spread.
uint64_t hashText(std::string_view text);

} // namespace spanscope::model::io::chrome
