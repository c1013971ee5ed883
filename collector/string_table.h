// Interns strings to small ids (1, 2, 3, ...) so each one crosses the wire once.
//
// Lookups are lock-free (open addressing over a fixed table, entries published with release
// stores); only the first sight of a new string takes a mutex. Any thread. The sender reads
// newly published strings in id order through count()/entry().
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string_view>

namespace spanscope::collector {

class StringTable
{
public:
    // Capacity in strings; past it intern() returns 0 ("no string") and counts an overflow.
    static constexpr std::uint32_t kMaxStrings = 1u << 18;

    struct Entry
    {
        std::uint64_t hash;
        std::uint32_t length; // bytes
        char text[1];         // `length` bytes, allocated past the struct
    };

    StringTable();
    ~StringTable();
    StringTable(const StringTable&) = delete;
    StringTable& operator=(const StringTable&) = delete;

    bool valid() const { return m_slots != nullptr && m_entries != nullptr; }

    // Returns the id of `text` (cut to protocol::kMaxStringBytes), interning it if new.
    // 0 for an empty string or when the table is full.
    std::uint32_t intern(std::string_view text);

    // Number of ids published so far plus one (ids are 1 .. count()-1). Acquire.
    std::uint32_t count() const { return m_count.load(std::memory_order_acquire); }
    const Entry* entry(std::uint32_t id) const { return m_entries[id]; }
    std::uint64_t overflows() const { return m_overflows.load(std::memory_order_relaxed); }

    // Around fork (pthread_atfork): no insert is half done when the child's copy is taken.
    void lockForFork() { m_insertMutex.lock(); }
    void unlockAfterFork() { m_insertMutex.unlock(); }

private:
    struct Slot
    {
        std::atomic<const Entry*> entry;
        std::atomic<std::uint32_t> id;
    };
    static constexpr std::size_t kSlots = std::size_t(kMaxStrings) * 2; // power of two

    Slot* m_slots = nullptr;
    const Entry** m_entries = nullptr; // by id
    std::atomic<std::uint32_t> m_count{1};
    std::atomic<std::uint64_t> m_overflows{0};
    std::mutex m_insertMutex;
    // Entries live in mmap'd chunks that are never unmapped: another thread may read an
    // entry at any time until the process ends, and memory that malloc never saw is not
    // reported as leaked by the host's leak checkers. Guarded by m_insertMutex.
    char* m_arena = nullptr;
    std::size_t m_arenaLeft = 0;
    void* allocateEntry(std::size_t bytes);
};

} // namespace spanscope::collector
