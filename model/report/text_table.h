#pragma once
// Plain-text tables and CSV cells for the CLI's reports.

#include <string>
#include <vector>

namespace spanscope::model::report {

// Columns aligned by code points (so "µs" lines up): the first left-aligned, the others
// right-aligned, a rule under the header.
class TextTable
{
public:
    explicit TextTable(std::vector<std::string> header) { m_rows.push_back(std::move(header)); }
    void add(std::vector<std::string> row) { m_rows.push_back(std::move(row)); }
    std::string render() const;

private:
    std::vector<std::vector<std::string>> m_rows;
};

// The text as one CSV field, quoted when it holds a comma, quote or line break.
std::string csvField(const std::string& text);

} // namespace spanscope::model::report
