#include "call_search.h"

#include <algorithm>

namespace spanscope::model {

CallSearch::CallSearch(const Capture& capture) : m_capture(capture)
{
    const auto& start = capture.events.start;
    m_rowSorted.reserve(capture.rows.size());
    for (const auto& row : capture.rows) {
        const RowEvents calls = capture.rowEvents(row);
        m_rowSorted.push_back(
            std::is_sorted(calls.begin(), calls.end(), [&](uint64_t a, uint64_t b) { return start[a] < start[b]; }));
    }
}

std::optional<uint32_t> CallSearch::step(const std::vector<bool>& regions, int64_t time, uint32_t current,
                                         bool forward) const
{
    const auto& start = m_capture.events.start;
    // Order of calls: (start, event index). The answer is the neighbour of (time, current).
    auto after = [&](uint64_t e) { return start[e] > time || (start[e] == time && e > current); };
    auto before = [&](uint64_t e) { return start[e] < time || (start[e] == time && e < current); };
    std::optional<uint32_t> best;
    auto better = [&](uint64_t e) {
        if (!best)
            return true;
        const int64_t s = start[e], b = start[*best];
        return forward ? (s < b || (s == b && e < *best)) : (s > b || (s == b && e > *best));
    };
    for (size_t r = 0; r < m_capture.rows.size(); ++r) {
        const auto& row = m_capture.rows[r];
        if (row.region >= regions.size() || !regions[row.region] || row.count == 0)
            continue;
        const RowEvents calls = m_capture.rowEvents(row);
        if (m_rowSorted[r]) {
            // First call not before (time, current) / last call before it (positions in the row).
            uint64_t lo = 0, hi = calls.size();
            while (lo < hi) {
                const uint64_t mid = lo + (hi - lo) / 2;
                if (forward ? !after(calls[mid]) : before(calls[mid]))
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (forward) {
                if (lo < calls.size() && better(calls[lo]))
                    best = uint32_t(calls[lo]);
            } else if (lo > 0 && better(calls[lo - 1])) {
                best = uint32_t(calls[lo - 1]);
            }
        } else {
            for (const uint64_t e : calls)
                if ((forward ? after(e) : before(e)) && better(e))
                    best = uint32_t(e);
        }
    }
    return best;
}

uint64_t CallSearch::count(const std::vector<bool>& regions) const
{
    uint64_t n = 0;
    for (const auto& row : m_capture.rows)
        if (row.region < regions.size() && regions[row.region])
            n += row.count;
    return n;
}

} // namespace spanscope::model
