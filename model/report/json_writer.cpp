#include "json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace spanscope::model::report {

std::string JsonWriter::escape(std::string_view text)
{
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    for (const char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buffer[8];
                std::snprintf(buffer, sizeof buffer, "\\u%04x", unsigned(static_cast<unsigned char>(c)));
                out += buffer;
            } else {
                out += c;
            }
        }
    }
    out += '"';
    return out;
}

void JsonWriter::newline()
{
    if (m_indent <= 0)
        return;
    m_out += '\n';
    m_out.append(m_hasItems.size() * size_t(m_indent), ' ');
}

void JsonWriter::beforeValue()
{
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (!m_hasItems.empty()) {
        if (m_hasItems.back())
            m_out += ',';
        m_hasItems.back() = true;
        newline();
    }
}

void JsonWriter::open(char bracket)
{
    beforeValue();
    m_out += bracket;
    m_hasItems.push_back(false);
}

void JsonWriter::close(char bracket)
{
    const bool hadItems = m_hasItems.back();
    m_hasItems.pop_back();
    if (hadItems)
        newline();
    m_out += bracket;
}

void JsonWriter::key(std::string_view name)
{
    beforeValue();
    m_out += escape(name);
    m_out += m_indent > 0 ? ": " : ":";
    m_afterKey = true;
}

void JsonWriter::value(std::string_view text)
{
    beforeValue();
    m_out += escape(text);
}

void JsonWriter::value(int64_t number)
{
    beforeValue();
    m_out += std::to_string(number);
}

void JsonWriter::value(uint64_t number)
{
    beforeValue();
    m_out += std::to_string(number);
}

void JsonWriter::value(double number)
{
    if (!std::isfinite(number)) {
        null();
        return;
    }
    beforeValue();
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, number);
    m_out.append(buffer, result.ptr);
}

void JsonWriter::value(bool flag)
{
    beforeValue();
    m_out += flag ? "true" : "false";
}

void JsonWriter::null()
{
    beforeValue();
    m_out += "null";
}

} // namespace spanscope::model::report
