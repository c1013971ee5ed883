// One thread's buffer of fixed-size records: a single-producer (the thread), single-consumer
// (the sender) byte ring. The producer never waits: when the ring is full the record is
// dropped and counted. Records are multiples of 8 bytes and may wrap around the ring's end.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

namespace spanscope::collector {

class ThreadBuffer
{
public:
    // Ring size in bytes: about 10,000 push/pop records, 20 ms of a busy thread at 500k
    // ranges/s. The sender drains every few ms.
    static constexpr std::size_t kCapacity = 512 * 1024; // power of two

    // Called (on the producer thread) when the ring passes half full, at most once per drain,
    // so the sender drains early instead of on its next tick. Must not block.
    using WakeFn = void (*)();

    ThreadBuffer(std::uint32_t tid, std::uint32_t index, WakeFn wake)
        : m_wake(wake), m_tid(tid), m_index(index)
    {
    }

    std::uint32_t tid() const { return m_tid; }
    // Small per-process index of the thread, used to make range ids unique without contention.
    std::uint32_t index() const { return m_index; }

    // Producer only. Writes one whole record, filled in by `fill(Record&)`, or counts a drop
    // and returns false (then `fill` is not called). The record is only written if `keep`
    // bytes stay free after it (room promised to pops, see pushRecorded). In the common,
    // non-wrapping case `fill` writes straight into the ring: a record assembled on the stack
    // and copied would be read back with wide loads over narrow stores, which stalls store
    // forwarding on every call. `fill` must set every field.
    template <typename Record, typename Fill> bool emplace(std::size_t keep, Fill fill)
    {
        constexpr std::size_t size = sizeof(Record);
        static_assert(size % 8 == 0 && size <= kCapacity && alignof(Record) <= 8);
        const std::uint64_t head = m_head.load(std::memory_order_relaxed);
        if (__builtin_expect(head + size + keep - m_cachedTail > kCapacity, 0)) {
            m_cachedTail = m_tail.load(std::memory_order_acquire);
            if (head + size + keep - m_cachedTail > kCapacity) {
                countDrop();
                return false;
            }
        }
        const std::size_t at = head & (kCapacity - 1);
        if (__builtin_expect(at + size <= kCapacity, 1)) {
            fill(*::new (m_data + at) Record); // records are 8-byte multiples: `at` is aligned
        } else {
            Record record;
            fill(record);
            const std::size_t first = kCapacity - at;
            std::memcpy(m_data + at, &record, first);
            std::memcpy(m_data, reinterpret_cast<const char*>(&record) + first, size - first);
        }
        m_head.store(head + size, std::memory_order_release);
        if (__builtin_expect(head + size - m_cachedTail > kCapacity / 2, 0))
            wakeIfHalfFull(head + size);
        return true;
    }

    // Producer only. A record that was not even tried (a pop whose push was dropped).
    void countDrop()
    {
        m_dropped.store(m_dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }

    // Push/pop pairs stay whole when the ring is full. A recorded push keeps room for its
    // pop (pops never find the ring full), and a dropped push makes its pop dropped too, so
    // the stream never holds half a pair that the viewer would match with the wrong range.
    // Pairs are tracked by the thread's depth over all domains: NVTX ranges of different
    // domains on one thread are assumed to nest (they do in practice).
    // Bytes other records must leave free.
    std::size_t popReserve() const { return m_popReserve; }
    // The push opening level `level` (= depth before it) was written, or was dropped.
    void pushRecorded(std::size_t popSize) { m_popReserve += popSize; }
    void pushDropped(int level)
    {
        if (level >= 0 && level < kTrackedLevels) {
            m_droppedPush[level / 64] |= std::uint64_t(1) << (level % 64);
            ++m_droppedOpen;
        }
    }
    // The pop closing `level`: true if its push was dropped (the pop must be dropped too).
    // One compare while no dropped push is open, the usual case.
    bool popOfDroppedPush(int level)
    {
        if (__builtin_expect(m_droppedOpen == 0, 1) || level < 0 || level >= kTrackedLevels)
            return false;
        const std::uint64_t bit = std::uint64_t(1) << (level % 64);
        if ((m_droppedPush[level / 64] & bit) == 0)
            return false;
        m_droppedPush[level / 64] &= ~bit;
        --m_droppedOpen;
        return true;
    }
    void popRecorded(std::size_t popSize)
    {
        m_popReserve -= m_popReserve >= popSize ? popSize : m_popReserve;
    }

    // Consumer only. Appends everything written so far to `out` (via out.append(ptr, n)) and
    // frees it in the ring. Returns the number of bytes taken.
    template <typename Out> std::size_t drain(Out& out)
    {
        const std::uint64_t tail = m_tail.load(std::memory_order_relaxed);
        const std::uint64_t head = m_head.load(std::memory_order_acquire);
        const std::size_t size = head - tail;
        if (size == 0)
            return 0;
        const std::size_t at = tail & (kCapacity - 1);
        const std::size_t first = size < kCapacity - at ? size : kCapacity - at;
        out.append(m_data + at, first);
        if (first < size)
            out.append(m_data, size - first);
        m_tail.store(head, std::memory_order_release);
        return size;
    }

    // Records dropped so far (monotonic; the consumer computes deltas). Any thread.
    std::uint64_t dropped() const { return m_dropped.load(std::memory_order_relaxed); }

    std::uint64_t nextRangeId() { return (std::uint64_t(m_index) << 40) | ++m_rangeCounter; }

    int depth = 0; // push/pop nesting level returned to the job; producer only
    // Levels below this were pushed before a fork, in the parent: their pops in the child
    // close ranges that belong to the parent's stream and are not recorded. Producer only.
    int inheritedDepth = 0;

    // In a forked child, on the thread that forked (the only one that exists there), from
    // the atfork child handler: plain stores only. Forgets what the parent's sender had not
    // taken yet (the parent sends it) and the parent's drop counts and promised pop room;
    // the ranges open now stay open for the job but belong to the parent (inheritedDepth).
    void resetAfterFork(std::uint32_t tid)
    {
        m_tid = tid;
        const std::uint64_t head = m_head.load(std::memory_order_relaxed);
        m_tail.store(head, std::memory_order_relaxed);
        m_cachedTail = head;
        m_tailAtLastWake = ~std::uint64_t(0);
        m_dropped.store(0, std::memory_order_relaxed);
        senderSeenDropped = 0;
        for (auto& bits : m_droppedPush)
            bits = 0;
        m_droppedOpen = 0;
        m_popReserve = 0;
        inheritedDepth = depth;
    }

    // Producer only: the strings this thread interned last, by address, so a name passed again
    // (a string literal, usually) skips hashing and the table probe. `stored` is the interned
    // copy (lives until the process ends): a hit also compares the text, because the job may
    // reuse a buffer for another name.
    struct RecentString
    {
        const char* text = nullptr; // the job's pointer
        const char* stored = nullptr;
        std::uint32_t length = 0; // bytes of `stored`
        std::uint32_t id = 0;
    };
    static constexpr std::size_t kRecentStrings = 16; // power of two
    RecentString& recentString(const char* text)
    {
        const auto at = reinterpret_cast<std::uintptr_t>(text);
        return m_recentStrings[(at ^ (at >> 7)) & (kRecentStrings - 1)];
    }

    // Set by the thread's TLS destructor; the sender frees the buffer once drained.
    std::atomic<bool> retired{false};
    // Sender only: dropped() when the sender last looked.
    std::uint64_t senderSeenDropped = 0;

private:
    void wakeIfHalfFull(std::uint64_t head)
    {
        m_cachedTail = m_tail.load(std::memory_order_acquire);
        if (head - m_cachedTail > kCapacity / 2 && m_tailAtLastWake != m_cachedTail) {
            m_tailAtLastWake = m_cachedTail; // once until the sender makes progress
            m_wake();
        }
    }

    const WakeFn m_wake;
    std::uint64_t m_tailAtLastWake = ~std::uint64_t(0);
    alignas(64) std::atomic<std::uint64_t> m_head{0}; // producer-owned
    std::uint64_t m_cachedTail = 0;                   // producer's copy of m_tail
    std::atomic<std::uint64_t> m_dropped{0};
    std::uint64_t m_rangeCounter = 0;
    alignas(64) std::atomic<std::uint64_t> m_tail{0}; // consumer-owned
    std::uint32_t m_tid; // changes only in a forked child (resetAfterFork)
    const std::uint32_t m_index;
    RecentString m_recentStrings[kRecentStrings];
    static constexpr int kTrackedLevels = 1024; // push levels whose drop is remembered
    std::uint64_t m_droppedPush[kTrackedLevels / 64] = {};
    int m_droppedOpen = 0;        // bits set in m_droppedPush
    std::size_t m_popReserve = 0; // bytes: one pop per recorded push still open
    alignas(64) char m_data[kCapacity];
};

} // namespace spanscope::collector
