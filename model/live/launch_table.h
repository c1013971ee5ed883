#pragma once
// Which API call launched each piece of GPU work, by CUPTI correlation id. A live stream's
// table is kept with its layout memo from one snapshot to the next, each taking in only the
// API calls that arrived since (NvtxAssembler::addGpuTables): built afresh for every
// snapshot, it cost a pass over every piece of work and every API call of the job per
// update. It also keeps, per id, the last piece of work that named it, for finding the work
// whose launch changes when a better call for its id comes. Open addressing, 16 bytes per
// slot, at most 3/4 of the slots used (doubled when more would be). One thread.

#include "../column.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace spanscope::model::live {

class LaunchTable
{
public:
    static constexpr uint32_t kNone = UINT32_MAX;

    bool empty() const { return m_used == 0; }
    size_t size() const { return m_used; }

    // API call `call` (its index in the stream's calls) carries `correlation`. Where several
    // do, the work is a runtime call's (the one the program made; a driver call inside it
    // shares the id): the first runtime call offered; without one, the first call offered.
    // Calls are offered in the order they arrived. 0 is CUPTI's "none": never kept.
    // Returns whether the id's launch changed while some work already named it (that
    // work's launch flows change); then `before`, if given, gets the launch it had.
    bool offer(uint32_t correlation, uint32_t call, bool runtime, uint32_t* before = nullptr)
    {
        if (correlation == 0)
            return false;
        Slot& slot = slotOf(correlation);
        if (slot.call != kNone && (!runtime || slot.runtime))
            return false;
        if (before)
            *before = slot.call;
        slot.call = call;
        slot.runtime = runtime;
        return slot.lastWork != kNone;
    }

    // Work `work` (its index in the stream's work) names `correlation`; returns the work
    // that named it last before (kNone: none), for the caller to chain them.
    uint32_t addWork(uint32_t correlation, uint32_t work)
    {
        if (correlation == 0)
            return kNone;
        Slot& slot = slotOf(correlation);
        const uint32_t before = slot.lastWork;
        slot.lastWork = work;
        return before;
    }

    // The call that launched `correlation`'s work, or kNone.
    uint32_t find(uint32_t correlation) const { return found(correlation).call; }
    // The last work that named `correlation`, or kNone.
    uint32_t lastWork(uint32_t correlation) const { return found(correlation).lastWork; }

private:
    struct Slot
    {
        uint32_t correlation = 0; // 0: empty
        uint32_t call = kNone;
        uint32_t lastWork = kNone;
        bool runtime = false;
    };

    const Slot& found(uint32_t correlation) const
    {
        static constexpr Slot kMissing{};
        if (correlation == 0 || m_slots.empty())
            return kMissing;
        const Slot& slot = m_slots[indexOf(correlation)];
        return slot.correlation == correlation ? slot : kMissing;
    }
    // The slot of `correlation`, added if new.
    Slot& slotOf(uint32_t correlation)
    {
        if (4 * (m_used + 1) > 3 * m_slots.size())
            grow();
        Slot& slot = m_slots[indexOf(correlation)];
        if (slot.correlation == 0) {
            slot.correlation = correlation;
            ++m_used;
        }
        return slot;
    }

    // The slot holding `correlation`, or the empty one where it would go.
    size_t indexOf(uint32_t correlation) const
    {
        const size_t mask = m_slots.size() - 1;
        // Ids are consecutive counters, and work arrives about in their order: consecutive
        // ids go to consecutive slots (the table is read almost in order: a hash that
        // scattered them made a cache miss of every lookup, ~1 s for millions of kernels),
        // and each capacity's worth of ids is shifted by a multiplicative hash of its number,
        // so that ids a whole capacity apart do not pile onto one run of slots.
        const uint64_t page = uint64_t(correlation) >> std::countr_zero(m_slots.size());
        size_t i = size_t(correlation + ((page * 0x9E3779B97F4A7C15ull) >> 32)) & mask;
        while (m_slots[i].correlation != 0 && m_slots[i].correlation != correlation)
            i = (i + 1) & mask;
        return i;
    }

    void grow()
    {
        Column<Slot> old = std::move(m_slots);
        m_slots = Column<Slot>(std::max<size_t>(1024, 2 * old.size()), Slot{});
        for (const Slot& slot : old)
            if (slot.correlation != 0)
                m_slots[indexOf(slot.correlation)] = slot;
    }

    size_t m_used = 0;
    Column<Slot> m_slots; // a power of 2 of them, or none; huge pages (column.h)
};

} // namespace spanscope::model::live
