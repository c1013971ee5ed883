#include "json_values.h"

#include "decimal_time.h"

namespace spanscope::model::io::chrome {

std::string_view utf8Prefix(std::string_view text, size_t bytes)
{
    if (text.size() <= bytes)
        return text;
    while (bytes > 0 && (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80)
        --bytes;
    return text.substr(0, bytes);
}

std::string_view trimmed(std::string_view text)
{
    while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' ||
                             text.back() == '\t'))
        text.remove_suffix(1);
    return text;
}

// A string without escapes is viewed where it lies in the input: no copy into the
// parser's string buffer, whose pages would otherwise be faulted in for every name.
bool stringText(sj::value value, std::string_view& text)
{
    const std::string_view token = trimmed(value.raw_json_token());
    if (token.size() < 2 || token.front() != '"')
        return false;
    if (token.back() == '"' && token.find('\\') == std::string_view::npos) {
        text = token.substr(1, token.size() - 2);
        return true;
    }
    return !value.get_string().get(text);
}

bool scalarText(sj::value value, std::string_view& text)
{
    sj::json_type type;
    if (value.type().get(type))
        return false;
    if (type == sj::json_type::string)
        return stringText(value, text);
    if (type == sj::json_type::number || type == sj::json_type::boolean) {
        text = trimmed(value.raw_json_token());
        return true;
    }
    return false;
}

std::optional<int64_t> integerOf(sj::value value)
{
    std::string_view text;
    if (!scalarText(value, text))
        return std::nullopt;
    return decimalToInt64(text);
}

std::optional<double> numberOf(sj::value value)
{
    sj::json_type type;
    if (value.type().get(type))
        return std::nullopt;
    double number = 0;
    if (type == sj::json_type::number && !value.get_double().get(number))
        return number;
    if (type == sj::json_type::boolean) {
        bool flag = false;
        if (!value.get_bool().get(flag))
            return flag ? 1.0 : 0.0;
    }
    return std::nullopt;
}

uint64_t hashText(std::string_view text)
{
    uint64_t hash = 1469598103934665603ull;
    for (const char c : text) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 1099511628211ull;
    }
    hash ^= hash >> 30;
    hash *= 0xbf58476d1ce4e5b9ull;
    hash ^= hash >> 27;
    hash *= 0x94d049bb133111ebull;
    return hash ^ (hash >> 31);
}

bool listOfStrings(std::string_view raw, std::vector<std::string>& list)
{
    simdjson::padded_string padded(raw);
    sj::parser parser;
    sj::document doc;
    sj::array array;
    if (parser.iterate(padded).get(doc) || doc.get_array().get(array))
        return false;
    std::vector<std::string> items;
    for (auto element : array) {
        std::string_view text;
        if (element.get_string().get(text))
            return false;
        items.emplace_back(text.substr(0, kMaxMetadataBytes));
    }
    list = std::move(items);
    return true;
}

} // namespace spanscope::model::io::chrome
