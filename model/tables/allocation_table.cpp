#include "allocation_table.h"

#include "permutation.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace spanscope::model {

void AllocationTable::add(int64_t timeNs, TrackId track, uint64_t address, int64_t bytes,
                          int32_t device)
{
    m_time.push_back(timeNs);
    m_track.push_back(track.value);
    m_address.push_back(address);
    m_bytes.push_back(bytes);
    m_device.push_back(device);
}

void AllocationTable::finish()
{
    m_time.shrink_to_fit(); // grown by push_back: give back what doubling reserved
    m_track.shrink_to_fit();
    m_address.shrink_to_fit();
    m_bytes.shrink_to_fit();
    m_device.shrink_to_fit();
    if (std::is_sorted(m_time.begin(), m_time.end()))
        return;
    const auto order =
        sortedOrder(m_time.size(), [&](uint32_t a, uint32_t b) { return m_time[a] < m_time[b]; });
    permute(m_time, order);
    permute(m_track, order);
    permute(m_address, order);
    permute(m_bytes, order);
    permute(m_device, order);
}

std::vector<int32_t> AllocationTable::devices() const
{
    const std::set<int32_t> seen(m_device.begin(), m_device.end());
    return {seen.begin(), seen.end()};
}

size_t AllocationTable::residentBytes() const
{
    return m_time.capacity() * 8 + m_track.capacity() * 4 + m_address.capacity() * 8 +
           m_bytes.capacity() * 8 + m_device.capacity() * 4;
}

std::string memoryDeviceName(int32_t device)
{
    return device < 0 ? std::string("cpu") : "cuda:" + std::to_string(device);
}

} // namespace spanscope::model
