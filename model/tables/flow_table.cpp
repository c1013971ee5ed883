#include "flow_table.h"

#include <algorithm>
#include <numeric>

namespace spanscope::model {

const char* flowKindName(FlowKind kind)
{
    switch (kind) {
    case FlowKind::Launch:
        return "launch";
    case FlowKind::ForwardBackward:
        return "fwdbwd";
    case FlowKind::User:
        break;
    }
    return "user";
}

void FlowTable::add(uint32_t from, uint32_t to, FlowKind kind)
{
    m_from.push_back(from);
    m_to.push_back(to);
    m_kind.push_back(uint8_t(kind));
}

void FlowTable::finish(const std::vector<uint32_t>* newIndexOf)
{
    if (newIndexOf) {
        auto map = [&](uint32_t e) { return e < newIndexOf->size() ? (*newIndexOf)[e] : UINT32_MAX; };
        size_t kept = 0;
        for (size_t i = 0; i < m_from.size(); ++i) {
            const uint32_t from = map(m_from[i]), to = map(m_to[i]);
            if (from == UINT32_MAX || to == UINT32_MAX)
                continue; // an end left out: the flow goes with it
            m_from[kept] = from;
            m_to[kept] = to;
            m_kind[kept++] = m_kind[i];
        }
        m_from.resize(kept);
        m_to.resize(kept);
        m_kind.resize(kept);
    }
    const size_t n = m_from.size();
    // Sorted by (from, to), ties in the order added; then the rows by `to`, ties by row.
    // Each sort runs over keys made once (a CUDA job's live update sorts millions of launch
    // flows: comparisons that read the columns through row numbers missed the cache).
    Column<std::pair<uint64_t, uint32_t>> keyed(n);
    for (size_t i = 0; i < n; ++i)
        keyed[i] = {(uint64_t(m_from[i]) << 32) | m_to[i], uint32_t(i)};
    if (!std::is_sorted(keyed.begin(), keyed.end())) {
        std::sort(keyed.begin(), keyed.end());
        const Column<uint8_t> kind = m_kind;
        for (size_t i = 0; i < n; ++i) {
            m_from[i] = uint32_t(keyed[i].first >> 32);
            m_to[i] = uint32_t(keyed[i].first);
            m_kind[i] = kind[keyed[i].second];
        }
    }
    m_from.shrink_to_fit(); // grown by push_back: give back what doubling reserved
    m_to.shrink_to_fit();
    m_kind.shrink_to_fit();
    Column<uint64_t> byTo(n); // (to, row)
    for (size_t i = 0; i < n; ++i)
        byTo[i] = (uint64_t(m_to[i]) << 32) | i;
    if (!std::is_sorted(byTo.begin(), byTo.end()))
        std::sort(byTo.begin(), byTo.end());
    m_byTo.resize(n);
    for (size_t i = 0; i < n; ++i)
        m_byTo[i] = uint32_t(byTo[i]);
}

std::vector<size_t> FlowTable::outgoing(uint32_t event) const
{
    const auto [first, last] = leavingRange(event, event);
    std::vector<size_t> rows(last - first);
    std::iota(rows.begin(), rows.end(), first);
    return rows;
}

std::vector<size_t> FlowTable::incoming(uint32_t event) const
{
    const auto first = std::partition_point(m_byTo.begin(), m_byTo.end(),
                                            [&](uint32_t row) { return m_to[row] < event; });
    std::vector<size_t> rows;
    for (auto it = first; it != m_byTo.end() && m_to[*it] == event; ++it)
        rows.push_back(*it);
    return rows;
}

std::pair<size_t, size_t> FlowTable::leavingRange(uint32_t firstEvent, uint32_t lastEvent) const
{
    const auto first = std::lower_bound(m_from.begin(), m_from.end(), firstEvent);
    const auto last = std::upper_bound(first, m_from.end(), lastEvent);
    return {size_t(first - m_from.begin()), size_t(last - m_from.begin())};
}

size_t FlowTable::count(FlowKind kind) const
{
    return size_t(std::count(m_kind.begin(), m_kind.end(), uint8_t(kind)));
}

size_t FlowTable::residentBytes() const
{
    return m_from.capacity() * 4 + m_to.capacity() * 4 + m_kind.capacity() + m_byTo.capacity() * 4;
}

} // namespace spanscope::model
