#pragma once
// Plain-text tables and CSV cells for the CLI's reports.

#include <string>
#include <vector>

namespace spanscope::model::report {

// Columns aligned by code points (so "µs" lines up): the first left-aligned, the others
// right-aligned, a rule under the header. A cell wider than kMaxCellWidth (a C++ kernel's
// whole signature runs to thousands of characters) is shortened in the middle, keeping its
// beginning and end ("void gemm<…>(…) [kernel]"), so one name cannot push every row of
// the table off the screen; CSV and JSON reports keep names whole.
class TextTable
{
public:
    static constexpr size_t kMaxCellWidth = 80; // code points
    explicit TextTable(std::vector<std::string> header);
    void add(std::vector<std::string> row);
    std::string render() const;

private:
    std::vector<std::vector<std::string>> m_rows;
};

// The text as one CSV field, quoted when it holds a comma, quote or line break.
std::string csvField(const std::string& text);

} // namespace spanscope::model::report
