// Report: figures from the spans, merging, the table and the JSON.
#include "alloc_counters.h"
#include "report_data.h"

#include <spanscope/alloc.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <ostream>

namespace spanscope::alloc {

using alloc_internal::SpanRecord;
using alloc_internal::SuppressCounting;


// Every member counts nothing of its own work: a report may be made, copied and printed
// inside a span's window.
Report::Report()
{
    const SuppressCounting quiet;
    m_data = std::make_unique<Data>();
}
Report::~Report()
{
    const SuppressCounting quiet;
    m_data.reset();
}
Report::Report(const Report& other)
{
    const SuppressCounting quiet;
    m_data = std::make_unique<Data>(*other.m_data);
}
Report::Report(Report&& other) noexcept : Report()
{
    std::swap(m_data, other.m_data);
}
Report& Report::operator=(const Report& other)
{
    const SuppressCounting quiet;
    if (this != &other)
        *m_data = *other.m_data;
    return *this;
}
Report& Report::operator=(Report&& other) noexcept
{
    std::swap(m_data, other.m_data);
    return *this;
}

bool Report::empty() const
{
    return m_data->operations.empty();
}

void Report::merge(const Report& other)
{
    const SuppressCounting quiet;
    for (const auto& [name, spans] : other.m_data->operations) {
        auto& mine = m_data->operations[name];
        const auto middle = mine.insert(mine.end(), spans.begin(), spans.end());
        std::inplace_merge(mine.begin(), middle, mine.end());
    }
}

std::vector<OperationReport> Report::operations() const
{
    const SuppressCounting quiet;
    std::vector<OperationReport> result;
    for (const auto& [name, spans] : m_data->operations)
        result.push_back(alloc_internal::operationReport(name, spans));
    return result;
}

namespace {

// Shortest text that reads back as the same double; "null" where not finite.
std::string jsonNumber(double value)
{
    if (!std::isfinite(value))
        return "null";
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    return std::string(text, end);
}

// JSON string escaping, as model/report/json_writer does it: this library goes into users'
// programs and links nothing else of spanscope's.
std::string jsonString(std::string_view text)
{
    std::string out = "\"";
    for (const unsigned char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
            if (c < 0x20) {
                static const char hex[] = "0123456789abcdef";
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 15];
            } else {
                out += char(c);
            }
        }
    }
    return out + "\"";
}

std::string jsonInterval(const Interval& interval)
{
    if (!std::isfinite(interval.low) || !std::isfinite(interval.high))
        return "null";
    return "[" + jsonNumber(interval.low) + ", " + jsonNumber(interval.high) + "]";
}

// "12.5 [12.1, 12.9]", "12.5" with one span, "n/a" without iterations.
std::string tableFigure(double value, const Interval& interval)
{
    if (!std::isfinite(value))
        return "n/a";
    auto fixed = [](double v) {
        char text[48];
        const auto end = std::to_chars(text, text + sizeof text, v, std::chars_format::fixed, 1).ptr;
        return std::string(text, end);
    };
    std::string out = fixed(value);
    if (std::isfinite(interval.low) && std::isfinite(interval.high))
        out += " [" + fixed(interval.low) + ", " + fixed(interval.high) + "]";
    return out;
}

} // namespace

void Report::print(std::ostream& out) const
{
    const SuppressCounting quiet;
    const std::vector<OperationReport> ops = operations();
    std::vector<std::array<std::string, 3>> lines;
    lines.push_back({"Operation", "Bytes/iter", "Allocations/iter"});
    for (const OperationReport& op : ops)
        lines.push_back({op.name, tableFigure(op.bytesPerIteration, op.bytesInterval),
                         tableFigure(op.allocationsPerIteration, op.allocationsInterval)});
    size_t width[3] = {};
    for (const auto& line : lines)
        for (size_t c = 0; c < 3; ++c)
            width[c] = std::max(width[c], line[c].size());
    auto row = [&](const std::array<std::string, 3>& line) {
        for (size_t c = 0; c < 3; ++c) {
            out << (c ? " | " : "") << line[c];
            if (c < 2)
                out << std::string(width[c] - line[c].size(), ' ');
        }
        out << '\n';
    };
    row(lines[0]);
    out << std::string(width[0], '-') << "-|-" << std::string(width[1], '-') << "-|-"
        << std::string(width[2], '-') << '\n';
    for (size_t i = 1; i < lines.size(); ++i)
        row(lines[i]);
    if (ops.empty())
        out << "(no operation measured)\n";
}

void Report::writeJson(std::ostream& out) const
{
    const SuppressCounting quiet;
    out << "{\"operations\": [";
    bool first = true;
    for (const OperationReport& op : operations()) {
        out << (first ? "\n" : ",\n") << "  {\"name\": " << jsonString(op.name)
            << ", \"spans\": " << op.spans << ", \"iterations\": " << op.iterations
            << ", \"bytes\": " << op.bytes << ", \"allocations\": " << op.allocations
            << ", \"bytes_per_iteration\": " << jsonNumber(op.bytesPerIteration)
            << ", \"allocations_per_iteration\": " << jsonNumber(op.allocationsPerIteration)
            << ", \"bytes_interval\": " << jsonInterval(op.bytesInterval)
            << ", \"allocations_interval\": " << jsonInterval(op.allocationsInterval) << "}";
        first = false;
    }
    out << (first ? "]}\n" : "\n]}\n");
}

} // namespace spanscope::alloc
