#pragma once
// Sets of time as sorted, disjoint, non-empty half-open intervals [start, end) in ns, and
// the measures the GPU's utilization needs (|A|, |A ∩ B|, A ∪ B), each in one linear pass:
// for the analyses (model/analysis) and the utilization lane (gpu_counters.h) alike.

#include <algorithm>
#include <cstdint>
#include <vector>

namespace spanscope::model {

struct Interval
{
    int64_t start = 0, end = 0;
};
using IntervalSet = std::vector<Interval>;

// Builds a set from intervals given in ascending start order; empty ones add nothing.
class IntervalUnion
{
public:
    void add(int64_t start, int64_t end)
    {
        if (end <= start)
            return;
        if (!m_set.empty() && start <= m_set.back().end) {
            if (end > m_set.back().end)
                m_set.back().end = end;
            return;
        }
        m_set.push_back({start, end});
    }
    const IntervalSet& set() const { return m_set; }
    IntervalSet take() { return std::move(m_set); }

private:
    IntervalSet m_set;
};

inline int64_t measure(const IntervalSet& set)
{
    int64_t total = 0;
    for (const Interval& i : set)
        total += i.end - i.start; // disjoint within ±2^61: cannot overflow
    return total;
}

inline int64_t intersectionMeasure(const IntervalSet& a, const IntervalSet& b)
{
    int64_t total = 0;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const int64_t start = a[i].start > b[j].start ? a[i].start : b[j].start;
        const int64_t end = a[i].end < b[j].end ? a[i].end : b[j].end;
        if (end > start)
            total += end - start;
        if (a[i].end < b[j].end)
            ++i;
        else
            ++j;
    }
    return total;
}

inline IntervalSet unite(const IntervalSet& a, const IntervalSet& b)
{
    IntervalUnion out;
    size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
        const bool takeA = j >= b.size() || (i < a.size() && a[i].start <= b[j].start);
        const Interval& next = takeA ? a[i++] : b[j++];
        out.add(next.start, next.end);
    }
    return out.take();
}

// How much of [start, end) the set does not cover. O(log n + k) for k intervals inside.
inline int64_t uncoveredMeasure(const IntervalSet& set, int64_t start, int64_t end)
{
    if (end <= start)
        return 0;
    // The first interval ending after `start`.
    auto it = std::upper_bound(set.begin(), set.end(), start, [](int64_t t, const Interval& i) { return t < i.end; });
    int64_t covered = 0;
    for (; it != set.end() && it->start < end; ++it)
        covered += std::min(end, it->end) - std::max(start, it->start);
    return (end - start) - covered;
}

} // namespace spanscope::model
