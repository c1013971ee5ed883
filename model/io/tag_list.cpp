#include "tag_list.h"

#include "../utf8.h"

namespace spanscope::model::io {

namespace {

class Parser
{
public:
    explicit Parser(std::string_view text) : m_text(text) {}

    Result<std::vector<std::string>> parse()
    {
        std::vector<std::string> tags;
        skipSpace();
        if (atEnd())
            return tags;
        if (!consume('['))
            return fail("a tag list must be a JSON array");
        skipSpace();
        if (consume(']'))
            return finish(std::move(tags));
        while (true) {
            skipSpace();
            std::string tag;
            if (!parseString(tag))
                return fail("tags must be JSON strings");
            tags.push_back(std::move(tag));
            skipSpace();
            if (consume(']'))
                return finish(std::move(tags));
            if (!consume(','))
                return fail("expected ',' or ']' in the tag list");
        }
    }

private:
    Result<std::vector<std::string>> finish(std::vector<std::string> tags)
    {
        skipSpace();
        if (!atEnd())
            return fail("unexpected text after the tag list");
        return tags;
    }
    Error fail(std::string message) const
    {
        return Error{ErrorCode::InvalidSchema, std::move(message), {}, {}};
    }
    bool atEnd() const { return m_pos >= m_text.size(); }
    void skipSpace()
    {
        while (!atEnd() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' || m_text[m_pos] == '\n'
                            || m_text[m_pos] == '\r'))
            ++m_pos;
    }
    bool consume(char c)
    {
        if (!atEnd() && m_text[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }
    static void appendUtf8(std::string& out, uint32_t cp)
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
    bool parseHex4(uint32_t& value)
    {
        if (m_pos + 4 > m_text.size())
            return false;
        value = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = m_text[m_pos++];
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
    bool parseString(std::string& out)
    {
        if (!consume('"'))
            return false;
        while (!atEnd()) {
            const char c = m_text[m_pos++];
            if (c == '"') {
                out = sanitizeUtf8(out);
                return true;
            }
            if (c != '\\') {
                out += c;
                continue;
            }
            if (atEnd())
                return false;
            const char escape = m_text[m_pos++];
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
                if (!parseHex4(cp))
                    return false;
                if (cp >= 0xD800 && cp <= 0xDBFF && m_pos + 6 <= m_text.size()
                    && m_text[m_pos] == '\\' && m_text[m_pos + 1] == 'u') {
                    m_pos += 2;
                    uint32_t low = 0;
                    if (!parseHex4(low))
                        return false;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                }
                appendUtf8(out, cp);
                break;
            }
            default: return false;
            }
        }
        return false;
    }

    std::string_view m_text;
    size_t m_pos = 0;
};

} // namespace

Result<std::vector<std::string>> parseTagList(std::string_view json)
{
    return Parser(json).parse();
}

} // namespace spanscope::model::io
