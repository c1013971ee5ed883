#pragma once
// Which API call launched each piece of GPU work, by CUPTI correlation id, for one snapshot
// (NvtxAssembler::addGpuTables). Only the ids some work names are kept (want()), then the
// API calls are offered; a CUDA job makes millions of API calls, and a hash map with a node
// per call cost more than the rest of the snapshot's GPU tables. Open addressing, 12 bytes
// per slot, a third more slots than ids wanted. One thread.

#include "../column.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace spanscope::model::live {

class LaunchTable
{
public:
    static constexpr uint32_t kNone = UINT32_MAX;

    // Room for up to `wanted` ids. At most 3/4 of the slots are ever used: the ids of a
    // job are consecutive and go to consecutive slots, so a full table probes little, and
    // at millions of kernels every slot more is 12 bytes of memory made afresh per update.
    explicit LaunchTable(size_t wanted) : m_capacity(std::bit_ceil(std::max<size_t>(16, wanted + wanted / 3 + 1))) {}

    bool empty() const { return m_used == 0; }

    // Work names `correlation` (0, CUPTI's "none", is never kept).
    void want(uint32_t correlation)
    {
        if (correlation == 0)
            return;
        if (m_slots.empty())
            m_slots.resize(m_capacity, Slot{});
        if (m_used == m_capacity - 1)
            return; // more ids than the table was made for: never full, so lookups end
        Slot& slot = slotOf(correlation);
        if (slot.correlation == 0) {
            slot.correlation = correlation;
            ++m_used;
        }
    }

    // The API call laid out as `event` carries `correlation`. Where several do, the work
    // is a runtime call's (the one the program made; a driver call inside it may share
    // the id), the last such in event order; without one, the first call in event order.
    void offer(uint32_t correlation, uint32_t event, bool runtime)
    {
        if (correlation == 0 || m_slots.empty())
            return;
        Slot& slot = slotOf(correlation);
        if (slot.correlation == 0)
            return; // no work names it
        const bool better = slot.event == kNone
                            || (runtime ? !slot.runtime || event > slot.event : !slot.runtime && event < slot.event);
        if (better) {
            slot.event = event;
            slot.runtime = runtime;
        }
    }

    // The event of the call that launched `correlation`'s work, or kNone.
    uint32_t find(uint32_t correlation) const
    {
        if (correlation == 0 || m_slots.empty())
            return kNone;
        return m_slots[indexOf(correlation)].event;
    }

private:
    struct Slot
    {
        uint32_t correlation = 0; // 0: empty
        uint32_t event = kNone;
        bool runtime = false;
    };

    // The slot holding `correlation`, or the empty one where it would go.
    size_t indexOf(uint32_t correlation) const
    {
        const size_t mask = m_capacity - 1;
        // Ids are consecutive counters, and work arrives about in their order: consecutive
        // ids go to consecutive slots (the table is read almost in order: a hash that
        // scattered them made a cache miss of every lookup, ~1 s for millions of kernels),
        // and each capacity's worth of ids is shifted by a multiplicative hash of its number,
        // so that ids a whole capacity apart do not pile onto one run of slots.
        const uint64_t page = uint64_t(correlation) >> m_bits;
        size_t i = size_t(correlation + ((page * 0x9E3779B97F4A7C15ull) >> 32)) & mask;
        while (m_slots[i].correlation != 0 && m_slots[i].correlation != correlation)
            i = (i + 1) & mask;
        return i;
    }
    Slot& slotOf(uint32_t correlation) { return m_slots[indexOf(correlation)]; }

    size_t m_capacity; // a power of 2
    int m_bits = std::countr_zero(m_capacity);
    size_t m_used = 0;
    Column<Slot> m_slots; // allocated by the first want(); huge pages (column.h)
};

} // namespace spanscope::model::live
