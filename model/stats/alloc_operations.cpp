#include "alloc_operations.h"

#include "collector/alloc/span_statistics.h"

#include <algorithm>
#include <map>
#include <string>

namespace spanscope::model {

std::vector<alloc::OperationReport> allocOperations(const Capture& capture)
{
    std::vector<alloc::OperationReport> result;
    const EventColumns& e = capture.events;
    if (e.allocIterations.empty() || !e.hasAllocations())
        return result;
    const std::string prefix = kAllocSpanRegionPrefix;
    std::map<std::string, std::vector<alloc_internal::SpanRecord>> operations;
    for (const RegionRow& row : capture.rows) {
        const std::string& name = capture.regionName(row.region);
        if (name.compare(0, prefix.size(), prefix) != 0)
            continue;
        auto& spans = operations[name.substr(prefix.size())];
        for (const uint64_t i : capture.rowEvents(row))
            if (i < e.size() && e.allocIterations[i] >= 0 && e.allocCounts[i] >= 0 && e.allocBytes[i] >= 0)
                spans.push_back({uint64_t(e.allocIterations[i]), uint64_t(e.allocBytes[i]),
                                 uint64_t(e.allocCounts[i])});
    }
    for (auto& [name, spans] : operations) {
        if (spans.empty())
            continue;
        std::sort(spans.begin(), spans.end());
        result.push_back(alloc_internal::operationReport(name, spans));
    }
    return result;
}

} // namespace spanscope::model
