#include "string_table.h"

#include "protocol/spanscope_protocol.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <sys/mman.h>

namespace spanscope::collector {

namespace {

std::uint64_t hashBytes(std::string_view text)
{
    // FNV-1a, 64 bit: short NVTX names dominate, so a simple byte hash is fast enough.
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h | 1; // never 0
}

void* mapZeroed(std::size_t bytes)
{
    // Anonymous mappings are zero-filled and only cost memory for pages actually touched.
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
}

} // namespace

StringTable::StringTable()
{
    m_slots = static_cast<Slot*>(mapZeroed(kSlots * sizeof(Slot)));
    m_entries = static_cast<const Entry**>(mapZeroed(std::size_t(kMaxStrings) * sizeof(Entry*)));
}

void* StringTable::allocateEntry(std::size_t bytes)
{
    constexpr std::size_t kChunk = std::size_t(1) << 20;
    bytes = (bytes + 7) & ~std::size_t(7); // Entry holds a uint64_t
    if (bytes > m_arenaLeft) {
        const std::size_t size = bytes > kChunk ? bytes : kChunk;
        void* chunk = mapZeroed(size);
        if (!chunk)
            return nullptr;
        m_arena = static_cast<char*>(chunk);
        m_arenaLeft = size;
    }
    void* entry = m_arena;
    m_arena += bytes;
    m_arenaLeft -= bytes;
    return entry;
}

StringTable::~StringTable()
{
    // Entries (in the arena) are deliberately kept: another thread may still read them.
    if (m_slots)
        munmap(m_slots, kSlots * sizeof(Slot));
    if (m_entries)
        munmap(m_entries, std::size_t(kMaxStrings) * sizeof(Entry*));
}

std::uint32_t StringTable::intern(std::string_view text)
{
    if (text.empty() || !valid())
        return 0;
    if (text.size() > protocol::kMaxStringBytes)
        text = text.substr(0, protocol::kMaxStringBytes);
    const std::uint64_t h = hashBytes(text);
    const auto matches = [&](const Entry* e) {
        return e->hash == h && e->length == text.size() &&
               std::memcmp(e->text, text.data(), text.size()) == 0;
    };
    std::size_t i = h & (kSlots - 1);
    for (;;) {
        const Entry* e = m_slots[i].entry.load(std::memory_order_acquire);
        if (!e)
            break;
        if (matches(e))
            return m_slots[i].id.load(std::memory_order_relaxed);
        i = (i + 1) & (kSlots - 1);
    }

    std::lock_guard lock(m_insertMutex);
    // Re-probe from the empty slot on: another thread may have inserted it meanwhile.
    for (;;) {
        const Entry* e = m_slots[i].entry.load(std::memory_order_acquire);
        if (!e)
            break;
        if (matches(e))
            return m_slots[i].id.load(std::memory_order_relaxed);
        i = (i + 1) & (kSlots - 1);
    }
    const std::uint32_t id = m_count.load(std::memory_order_relaxed);
    if (id >= kMaxStrings) {
        m_overflows.fetch_add(1, std::memory_order_relaxed);
        return 0;
    }
    auto* entry = static_cast<Entry*>(allocateEntry(sizeof(Entry) + text.size()));
    if (!entry)
        return 0;
    entry->hash = h;
    entry->length = static_cast<std::uint32_t>(text.size());
    std::memcpy(entry->text, text.data(), text.size());
    m_entries[id] = entry;
    // Counted before it can be found: a thread that finds the entry (acquire) and records its
    // id has then also seen the count, so the sender, which reads the count after draining
    // that record, sends the definition in the same batch (Collector::flush).
    m_count.store(id + 1, std::memory_order_release);
    m_slots[i].id.store(id, std::memory_order_relaxed);
    m_slots[i].entry.store(entry, std::memory_order_release);
    return id;
}

} // namespace spanscope::collector
