#include "text_table.h"

#include <algorithm>

namespace spanscope::model::report {

namespace {
size_t displayWidth(const std::string& text)
{
    return size_t(std::count_if(text.begin(), text.end(),
                                [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}
// The byte offset of code point `n` of `text` (its size when it has fewer).
size_t offsetOfCodePoint(const std::string& text, size_t n)
{
    size_t at = 0;
    for (; at < text.size(); ++at)
        if ((static_cast<unsigned char>(text[at]) & 0xC0) != 0x80 && n-- == 0)
            break;
    return at;
}

// `text` shortened to `limit` code points by an ellipsis in its middle: two thirds of
// what is kept from its beginning, the rest from its end.
std::string shortened(const std::string& text, size_t limit)
{
    const size_t width = displayWidth(text);
    if (width <= limit)
        return text;
    const size_t head = (limit - 1) * 2 / 3, tail = limit - 1 - head;
    return text.substr(0, offsetOfCodePoint(text, head)) + "\u2026"
           + text.substr(offsetOfCodePoint(text, width - tail));
}
} // namespace

TextTable::TextTable(std::vector<std::string> header)
{
    add(std::move(header));
}

void TextTable::add(std::vector<std::string> row)
{
    for (auto& cell : row)
        if (cell.size() > kMaxCellWidth) // bytes: fewer code points need no look
            cell = shortened(cell, kMaxCellWidth);
    m_rows.push_back(std::move(row));
}

std::string TextTable::render() const
{
    const auto& rows = m_rows;
    std::vector<size_t> widths(rows.front().size(), 0);
    for (const auto& row : rows)
        for (size_t c = 0; c < row.size() && c < widths.size(); ++c)
            widths[c] = std::max(widths[c], displayWidth(row[c]));
    std::string out;
    for (size_t r = 0; r < rows.size(); ++r) {
        for (size_t c = 0; c < rows[r].size() && c < widths.size(); ++c) {
            const auto& cell = rows[r][c];
            const std::string pad(widths[c] - displayWidth(cell), ' ');
            if (c)
                out += "  ";
            out += c == 0 ? cell + pad : pad + cell;
        }
        while (!out.empty() && out.back() == ' ')
            out.pop_back();
        out += '\n';
        if (r == 0) {
            size_t width = 0;
            for (const auto w : widths)
                width += w + 2;
            out += std::string(width - 2, '-') + '\n';
        }
    }
    return out;
}

std::string csvField(const std::string& text)
{
    if (text.find_first_of(",\"\n\r") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (const char c : text) {
        if (c == '"')
            quoted += '"';
        quoted += c;
    }
    return quoted + "\"";
}

} // namespace spanscope::model::report
