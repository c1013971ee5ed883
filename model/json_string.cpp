#include "json_string.h"

#include "utf8.h"

#include <cstdint>

namespace spanscope::model {

namespace {

void appendUtf8(std::string& out, uint32_t cp)
{
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

bool parseHex4(std::string_view text, size_t& pos, uint32_t& value)
{
    if (pos + 4 > text.size())
        return false;
    value = 0;
    for (int i = 0; i < 4; ++i) {
        const char c = text[pos++];
        value <<= 4;
        if (c >= '0' && c <= '9')
            value |= uint32_t(c - '0');
        else if (c >= 'a' && c <= 'f')
            value |= uint32_t(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            value |= uint32_t(c - 'A' + 10);
        else
            return false;
    }
    return true;
}

} // namespace

bool decodeJsonString(std::string_view text, size_t& pos, std::string& out)
{
    if (pos >= text.size() || text[pos] != '"')
        return false;
    ++pos;
    while (pos < text.size()) {
        const char c = text[pos++];
        if (c == '"') {
            out = sanitizeUtf8(out);
            return true;
        }
        if (c != '\\') {
            out += c;
            continue;
        }
        if (pos >= text.size())
            return false;
        const char escape = text[pos++];
        switch (escape) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
            uint32_t cp = 0;
            if (!parseHex4(text, pos, cp))
                return false;
            if (cp >= 0xD800 && cp <= 0xDBFF && pos + 6 <= text.size() && text[pos] == '\\' && text[pos + 1] == 'u') {
                size_t after = pos + 2;
                uint32_t low = 0;
                if (parseHex4(text, after, low) && low >= 0xDC00 && low <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    pos = after;
                }
            }
            appendUtf8(out, cp >= 0xD800 && cp <= 0xDFFF ? 0xFFFD : cp);
            break;
        }
        default: return false;
        }
    }
    return false;
}

} // namespace spanscope::model
