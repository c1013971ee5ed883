#include "args_fields.h"

#include "../json_string.h"

#include <charconv>
#include <cstdint>

namespace spanscope::model {

namespace {

void skipSpace(std::string_view s, size_t& i)
{
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        ++i;
}

// Past the string starting at s[i] (a quote); false when it never ends.
bool skipString(std::string_view s, size_t& i)
{
    for (++i; i < s.size(); ++i) {
        if (s[i] == '\\')
            ++i;
        else if (s[i] == '"') {
            ++i;
            return true;
        }
    }
    return false;
}

// Past one JSON value starting at s[i]; false when it is cut short.
bool skipValue(std::string_view s, size_t& i)
{
    if (i >= s.size())
        return false;
    if (s[i] == '"')
        return skipString(s, i);
    if (s[i] == '{' || s[i] == '[') {
        int depth = 0;
        while (i < s.size()) {
            const char c = s[i];
            if (c == '"') {
                if (!skipString(s, i))
                    return false;
                continue;
            }
            if (c == '{' || c == '[')
                ++depth;
            else if (c == '}' || c == ']') {
                if (--depth == 0) {
                    ++i;
                    return true;
                }
            }
            ++i;
        }
        return false;
    }
    while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']')
        ++i;
    return true;
}

// The text of a complete string literal; as written when it does not decode.
std::string unescape(std::string_view quoted)
{
    size_t pos = 0;
    std::string out;
    return decodeJsonString(quoted, pos, out) ? out : std::string(quoted);
}

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

} // namespace

std::vector<ArgsField> argsFields(std::string_view json)
{
    std::vector<ArgsField> fields;
    size_t i = 0;
    skipSpace(json, i);
    if (i >= json.size() || json[i] != '{')
        return fields;
    ++i;
    while (true) {
        skipSpace(json, i);
        if (i >= json.size() || json[i] != '"')
            return fields;
        const size_t keyStart = i;
        if (!skipString(json, i))
            return fields;
        const std::string key = unescape(json.substr(keyStart, i - keyStart));
        skipSpace(json, i);
        if (i >= json.size() || json[i] != ':')
            return fields;
        ++i;
        skipSpace(json, i);
        const size_t valueStart = i;
        if (!skipValue(json, i))
            return fields;
        fields.push_back({key, std::string(trimmed(json.substr(valueStart, i - valueStart)))});
        skipSpace(json, i);
        if (i >= json.size() || json[i] != ',')
            return fields;
        ++i;
    }
}

std::string argsValueText(std::string_view rawValue)
{
    if (rawValue.size() >= 2 && rawValue.front() == '"' && rawValue.back() == '"')
        return unescape(rawValue);
    return std::string(rawValue);
}

std::optional<std::string> argsText(const std::vector<ArgsField>& fields, std::string_view key)
{
    for (const ArgsField& f : fields)
        if (f.key == key)
            return argsValueText(f.value);
    return std::nullopt;
}

std::optional<int64_t> argsInteger(const std::vector<ArgsField>& fields, std::string_view key)
{
    const auto text = argsText(fields, key);
    if (!text || text->empty())
        return std::nullopt;
    int64_t value = 0;
    const auto r = std::from_chars(text->data(), text->data() + text->size(), value);
    if (r.ec != std::errc() || r.ptr != text->data() + text->size())
        return std::nullopt;
    return value;
}

} // namespace spanscope::model
