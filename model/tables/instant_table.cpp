#include "instant_table.h"

#include <algorithm>
#include <numeric>

namespace spanscope::model {

void InstantTable::add(int64_t timeNs, TrackId track, NameId name, ArgsRef args)
{
    m_time.push_back(timeNs);
    m_track.push_back(track.value);
    m_name.push_back(name.value);
    m_args.push_back(args.packed);
}

void InstantTable::finish()
{
    m_time.shrink_to_fit(); // grown by push_back: give back what doubling reserved
    m_track.shrink_to_fit();
    m_name.shrink_to_fit();
    m_args.shrink_to_fit();
    std::vector<uint32_t> order(m_time.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return m_track[a] != m_track[b] ? m_track[a] < m_track[b] : m_time[a] < m_time[b];
    });
    auto permute = [&order](auto& column) {
        auto copy = column;
        for (size_t i = 0; i < order.size(); ++i)
            column[i] = copy[order[i]];
    };
    permute(m_time);
    permute(m_track);
    permute(m_name);
    permute(m_args);
}

std::pair<size_t, size_t> InstantTable::range(TrackId track, int64_t t0, int64_t t1) const
{
    auto key = [&](size_t i) { return std::make_pair(m_track[i], m_time[i]); };
    size_t lo = 0, hi = m_time.size();
    const auto lowKey = std::make_pair(track.value, t0);
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (key(mid) < lowKey)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t first = lo;
    hi = m_time.size();
    const auto highKey = std::make_pair(track.value, t1);
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (key(mid) < highKey)
            lo = mid + 1;
        else
            hi = mid;
    }
    return {first, lo};
}

size_t InstantTable::residentBytes() const
{
    return m_time.capacity() * 8 + m_track.capacity() * 4 + m_name.capacity() * 4 + m_args.capacity() * 8;
}

} // namespace spanscope::model
