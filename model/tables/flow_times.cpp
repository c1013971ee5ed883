#include "flow_times.h"

#include <algorithm>
#include <tuple>

namespace spanscope::model {

namespace {

bool earlier(const FlowTimes::Entry& a, const FlowTimes::Entry& b)
{
    return std::tie(a.start, a.from, a.to) < std::tie(b.start, b.from, b.to);
}

// The entries of `flows` by the start of their `from` (else `to`) end, sorted.
std::vector<FlowTimes::Entry> entries(const std::vector<FlowTable::Flow>& flows, bool from,
                                      const std::function<int64_t(uint32_t)>& startOf)
{
    std::vector<FlowTimes::Entry> out;
    out.reserve(flows.size());
    for (const FlowTable::Flow& flow : flows)
        out.push_back({startOf(from ? flow.from : flow.to), flow.from, flow.to});
    std::sort(out.begin(), out.end(), earlier);
    return out;
}

} // namespace

FlowTimes FlowTimes::make(const FlowTable& flows, const std::function<int64_t(uint32_t)>& startOf)
{
    std::vector<FlowTable::Flow> all;
    all.reserve(flows.size());
    for (size_t row = 0; row < flows.size(); ++row)
        all.push_back({flows.from(row), flows.to(row), flows.kind(row)});
    FlowTimes times;
    times.update({}, all, startOf);
    return times;
}

void FlowTimes::update(const std::vector<FlowTable::Flow>& removed, const std::vector<FlowTable::Flow>& added,
                       const std::function<int64_t(uint32_t)>& startOf)
{
    for (const bool from : {true, false})
        updateSorted(from ? m_byFrom : m_byTo, entries(removed, from, startOf), entries(added, from, startOf), earlier,
                     std::equal_to<>());
}

size_t FlowTimes::lowerBound(const Entries& entries, int64_t t)
{
    return partitionPoint(entries, [t](const Entry& entry) { return entry.start < t; });
}

} // namespace spanscope::model
