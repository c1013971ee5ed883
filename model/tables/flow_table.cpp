#include "flow_table.h"

#include <algorithm>
#include <tuple>

namespace spanscope::model {

const char* flowKindName(FlowKind kind)
{
    switch (kind) {
    case FlowKind::Launch:
        return "launch";
    case FlowKind::ForwardBackward:
        return "fwdbwd";
    case FlowKind::Sync:
        return "sync";
    case FlowKind::User:
        break;
    }
    return "user";
}

namespace {

bool byEnds(const FlowTable::Flow& a, const FlowTable::Flow& b)
{
    return std::tie(a.from, a.to) < std::tie(b.from, b.to);
}

} // namespace

void FlowTable::add(uint32_t from, uint32_t to, FlowKind kind)
{
    m_rows.push_back({from, to, kind});
}

void FlowTable::finish(const std::vector<uint32_t>* newIndexOf)
{
    std::vector<Flow> rows = m_rows.values();
    if (newIndexOf) {
        auto map = [&](uint32_t e) { return e < newIndexOf->size() ? (*newIndexOf)[e] : UINT32_MAX; };
        size_t kept = 0;
        for (const Flow& flow : rows) {
            const uint32_t from = map(flow.from), to = map(flow.to);
            if (from != UINT32_MAX && to != UINT32_MAX) // else an end left out: the flow goes with it
                rows[kept++] = {from, to, flow.kind};
        }
        rows.resize(kept);
    }
    // Sorted by (from, to), ties in the order added.
    if (!std::is_sorted(rows.begin(), rows.end(), byEnds))
        std::stable_sort(rows.begin(), rows.end(), byEnds);
    m_rows = {};
    m_byTo = {};
    update({}, std::move(rows));
}

std::vector<FlowTable::Flow> FlowTable::update(std::vector<Flow> removed, std::vector<Flow> added)
{
    std::sort(removed.begin(), removed.end(), byEnds);
    if (!std::is_sorted(added.begin(), added.end(), byEnds))
        std::stable_sort(added.begin(), added.end(), byEnds);
    // The rows first: only the flows they held are taken out of the index by `to`.
    std::vector<Flow> left = updateSorted(m_rows, removed, added, byEnds, std::equal_to<>());
    // Keys (to, from) of both, sorted: a key made once per flow, not read through rows.
    auto byTo = [](const std::vector<Flow>& flows) {
        std::vector<uint64_t> keys;
        keys.reserve(flows.size());
        for (const Flow& flow : flows)
            keys.push_back(key(flow.to, flow.from));
        std::sort(keys.begin(), keys.end());
        return keys;
    };
    updateSorted(m_byTo, byTo(left), byTo(added), std::less<>(), std::equal_to<>());
    return left;
}

size_t FlowTable::lowerBound(uint64_t fromTo) const
{
    return partitionPoint(m_rows, [fromTo](const Flow& flow) { return key(flow.from, flow.to) < fromTo; });
}

std::vector<size_t> FlowTable::outgoing(uint32_t event) const
{
    const auto [first, last] = leavingRange(event, event);
    std::vector<size_t> rows;
    for (size_t row = first; row < last; ++row)
        rows.push_back(row);
    return rows;
}

std::vector<size_t> FlowTable::incoming(uint32_t event) const
{
    // The flows' (to, from) keys ending at `event`, each distinct one's rows found by its
    // ends (rows of the same ends are together).
    const size_t low = partitionPoint(m_byTo, [event](uint64_t toFrom) { return toFrom < key(event, 0); });
    std::vector<size_t> rows;
    for (size_t k = low; k < m_byTo.size() && uint32_t(m_byTo[k] >> 32) == event; ++k) {
        if (k > low && m_byTo[k] == m_byTo[k - 1])
            continue;
        const auto [first, last] = rowsOf(uint32_t(m_byTo[k]), event);
        for (size_t row = first; row < last; ++row)
            rows.push_back(row);
    }
    std::sort(rows.begin(), rows.end());
    return rows;
}

std::pair<size_t, size_t> FlowTable::leavingRange(uint32_t firstEvent, uint32_t lastEvent) const
{
    const size_t first = lowerBound(key(firstEvent, 0));
    const size_t last = lastEvent == UINT32_MAX ? m_rows.size() : lowerBound(key(lastEvent + 1, 0));
    return {first, std::max(first, last)};
}

std::pair<size_t, size_t> FlowTable::rowsOf(uint32_t from, uint32_t to) const
{
    const size_t first = lowerBound(key(from, to));
    size_t last = first;
    while (last < m_rows.size() && m_rows[last].from == from && m_rows[last].to == to)
        ++last;
    return {first, last};
}

size_t FlowTable::count(FlowKind kind) const
{
    size_t n = 0;
    for (size_t row = 0; row < m_rows.size(); ++row)
        n += m_rows[row].kind == kind;
    return n;
}

size_t FlowTable::residentBytes() const
{
    return m_rows.residentBytes() + m_byTo.residentBytes();
}

} // namespace spanscope::model
