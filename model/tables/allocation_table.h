#pragma once
// Allocation events: one row per allocation (bytes > 0) or free (bytes < 0), columnar,
// ordered by time, each on the track (thread) that made it; stats/allocation_stats.h
// attributes them to the ranges open on that track. Immutable once published; any thread.

#include "../column.h"
#include "../track.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spanscope::model {

class AllocationTable
{
public:
    static constexpr int32_t kHost = -1; // `device` of host (CPU) memory

    void add(int64_t timeNs, TrackId track, uint64_t address, int64_t bytes, int32_t device);
    // Orders rows by time (stable). Call once after the last add().
    void finish();

    size_t size() const { return m_time.size(); }
    bool empty() const { return m_time.empty(); }
    int64_t time(size_t i) const { return m_time[i]; }
    TrackId track(size_t i) const { return TrackId{m_track[i]}; }
    uint64_t address(size_t i) const { return m_address[i]; }
    int64_t bytes(size_t i) const { return m_bytes[i]; } // > 0 allocated, < 0 freed
    int32_t device(size_t i) const { return m_device[i]; }
    // Devices that have allocations, ascending (kHost first).
    std::vector<int32_t> devices() const;

    size_t residentBytes() const;

private:
    Column<int64_t> m_time;
    Column<uint32_t> m_track;
    Column<uint64_t> m_address;
    Column<int64_t> m_bytes;
    Column<int32_t> m_device;
};

// "cpu" for the host, "cuda:<n>" for a GPU: the names the CLI uses.
std::string memoryDeviceName(int32_t device);

} // namespace spanscope::model
