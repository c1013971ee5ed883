#include "string_table.h"

#include <bit>
#include <functional>

namespace spanscope::model {

namespace {

uint32_t hashOf(std::string_view text)
{
    const uint64_t h = std::hash<std::string_view>{}(text);
    return uint32_t(h ^ (h >> 32));
}

} // namespace

StringTable::StringTable()
{
    m_slots.assign(16, 0);
    intern({});
}

void StringTable::reserve(size_t count)
{
    const size_t wanted = std::bit_ceil(2 * (m_strings.size() + count));
    if (wanted > m_slots.size())
        grow(wanted);
}

void StringTable::grow(size_t slots)
{
    std::vector<uint64_t> old(slots, 0);
    old.swap(m_slots);
    const size_t mask = m_slots.size() - 1;
    for (const uint64_t slot : old) {
        if (slot == 0)
            continue;
        size_t at = size_t(slot >> 32) & mask;
        while (m_slots[at] != 0)
            at = (at + 1) & mask;
        m_slots[at] = slot;
    }
}

NameId StringTable::intern(std::string_view text)
{
    const uint32_t hash = hashOf(text);
    const size_t mask = m_slots.size() - 1;
    size_t at = hash & mask;
    for (; m_slots[at] != 0; at = (at + 1) & mask) {
        const uint64_t slot = m_slots[at];
        const auto id = uint32_t(slot) - 1;
        if (uint32_t(slot >> 32) == hash && m_strings[id] == text)
            return NameId{id};
    }
    const auto id = static_cast<uint32_t>(m_strings.size());
    m_strings.emplace_back(text);
    m_slots[at] = (uint64_t(hash) << 32) | (uint64_t(id) + 1);
    if (2 * m_strings.size() > m_slots.size())
        grow(2 * m_slots.size());
    return NameId{id};
}

} // namespace spanscope::model
