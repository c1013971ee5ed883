#include "instant_table.h"

#include "permutation.h"

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
    const auto order = sortedOrder(m_time.size(), [&](uint32_t a, uint32_t b) {
        return m_track[a] != m_track[b] ? m_track[a] < m_track[b] : m_time[a] < m_time[b];
    });
    permute(m_time, order);
    permute(m_track, order);
    permute(m_name, order);
    permute(m_args, order);
}

std::pair<size_t, size_t> InstantTable::range(TrackId track, int64_t t0, int64_t t1) const
{
    // First row whose (track, time) is not below (track, t), searching from `lo`.
    auto firstAtOrAfter = [&](size_t lo, int64_t t) {
        size_t hi = m_time.size();
        const auto key = std::make_pair(track.value, t);
        while (lo < hi) {
            const size_t mid = (lo + hi) / 2;
            if (std::make_pair(m_track[mid], m_time[mid]) < key)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    };
    const size_t first = firstAtOrAfter(0, t0);
    return {first, firstAtOrAfter(first, t1)};
}

size_t InstantTable::residentBytes() const
{
    return m_time.capacity() * 8 + m_track.capacity() * 4 + m_name.capacity() * 4 +
           m_args.capacity() * 8;
}

} // namespace spanscope::model
