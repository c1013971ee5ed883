#pragma once
// The top-level fields of an event's args (a JSON object, as a trace wrote it), in the order
// written: each key unescaped and its value as raw JSON text (strings with their quotes).
// For tables of attributes and for reading a few known fields without a JSON library. A
// malformed text gives the fields before the damage. Pure functions; any thread.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spanscope::model {

struct ArgsField
{
    std::string key;
    std::string value; // raw JSON: "\"Sum\"", "1024", "[16, 1, 1]", "{...}"
};

// O(length of the text).
std::vector<ArgsField> argsFields(std::string_view json);
// A JSON string value without its quotes and escapes; other values as they are.
std::string argsValueText(std::string_view rawValue);
// The value of `key` as an integer (a JSON number or a string of digits), if it is one.
std::optional<int64_t> argsInteger(const std::vector<ArgsField>& fields, std::string_view key);
// The value of `key` as text (argsValueText), if present.
std::optional<std::string> argsText(const std::vector<ArgsField>& fields, std::string_view key);

} // namespace spanscope::model
