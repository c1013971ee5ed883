#include "text_table.h"

#include <algorithm>

namespace spanscope::model::report {

namespace {
size_t displayWidth(const std::string& text)
{
    return size_t(std::count_if(text.begin(), text.end(),
                                [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}
} // namespace

std::string TextTable::render() const
{
    std::vector<size_t> widths(m_rows.front().size(), 0);
    for (const auto& row : m_rows)
        for (size_t c = 0; c < row.size() && c < widths.size(); ++c)
            widths[c] = std::max(widths[c], displayWidth(row[c]));
    std::string out;
    for (size_t r = 0; r < m_rows.size(); ++r) {
        for (size_t c = 0; c < m_rows[r].size() && c < widths.size(); ++c) {
            const auto& cell = m_rows[r][c];
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
