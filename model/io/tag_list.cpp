#include "tag_list.h"

#include "../json_string.h"

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
    bool parseString(std::string& out) { return decodeJsonString(m_text, m_pos, out); }

    std::string_view m_text;
    size_t m_pos = 0;
};

} // namespace

Result<std::vector<std::string>> parseTagList(std::string_view json)
{
    return Parser(json).parse();
}

} // namespace spanscope::model::io
