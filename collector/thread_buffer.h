// One thread's queue of fixed-size records: a single-producer (the thread), single-consumer
// (the sender) chain of blocks. The producer fills a block and moves on to the next one,
// taken from the blocks the sender has emptied or mapped fresh; the sender reads the blocks
// behind it and hands them back. The producer never waits: when it may not take another
// block the record is dropped and counted.
//
// Blocks are mapped as threads need them, up to one cap on the bytes queued by all threads
// of the process (QueueBudget). The default cap (64 MiB) covers seconds of a busy thread
// while the sender is delayed (a descheduled core, a slow disk); lossless mode raises it
// (1 GiB) and makes the sender wait for a slow viewer instead of dropping frames.
#pragma once

#include "alloc/alloc_counters.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <sys/mman.h>

namespace spanscope::collector {

// Memory for queued records, over every thread of the process.
struct QueueBudget
{
    bool lossless = false;                 // set before the first thread records
    std::uint64_t capBytes = 64ull << 20;  // most bytes of blocks at once
    std::atomic<std::uint64_t> bytes{0};   // blocks mapped now
    std::atomic<std::uint64_t> peak{0};    // most `bytes` ever

    // Counts `size` more bytes of blocks; false (nothing counted) when `limited` and the
    // cap would be passed.
    bool take(std::uint64_t size, bool limited)
    {
        std::uint64_t now = bytes.load(std::memory_order_relaxed);
        do {
            if (limited && now + size > capBytes)
                return false;
        } while (!bytes.compare_exchange_weak(now, now + size, std::memory_order_relaxed));
        std::uint64_t highest = peak.load(std::memory_order_relaxed);
        while (now + size > highest
               && !peak.compare_exchange_weak(highest, now + size, std::memory_order_relaxed)) {
        }
        return true;
    }
    void give(std::uint64_t size) { bytes.fetch_sub(size, std::memory_order_relaxed); }
};

class ThreadBuffer
{
public:
    // A thread's first kSmallBlocks blocks are small and kept for reuse (1 MiB, about
    // 26,000 push/pop pairs of 40 bytes: what a sender that keeps up needs). Reuse matters: a fresh
    // block costs a mapping and its pages faulted in and zeroed, microseconds per 4 KiB on
    // a VM. Past them (the sender is behind) a thread maps large blocks on huge pages, a
    // fault per 2 MiB, and keeps up to kKeptLargeBlocks of them for reuse; the sender
    // unmaps the rest once it has read them.
    static constexpr std::size_t kSmallBlockBytes = 64 * 1024; // one mapping: header + records
    static constexpr std::size_t kSmallBlocks = 16;
    static constexpr std::size_t kLargeBlockBytes = 2 * 1024 * 1024;
    static constexpr std::size_t kKeptLargeBlocks = 8;
    // Lossless mode keeps more (128 MiB per thread at most): a queue that grew once, during
    // a burst the sender could not follow, will likely grow again, and a fresh 2 MiB block
    // costs its zeroing on the producer's core (about a millisecond on a VM), while a kept
    // one costs nothing. The memory stays counted in the budget and its peak is reported.
    static constexpr std::size_t kKeptLargeBlocksLossless = 64;
    // Free small blocks the sender keeps ready for an active thread (provision()).
    static constexpr std::size_t kSpareBlocks = 4;
    // Full blocks waiting before the producer wakes the sender early: half the small blocks.
    // A wake is a system call and, on a VM, an interrupt to the sender's core (microseconds
    // on the job's thread), so it should be rare for a thread the sender's tick keeps up
    // with; the other half still covers the sender's wake-up latency at full speed.
    static constexpr std::uint64_t kWakeBlocks = kSmallBlocks / 2;

    // Called (on the producer thread) when kWakeBlocks full blocks wait, at most once per
    // drain, so the sender drains early instead of on its next tick. Must not block.
    using WakeFn = void (*)();

    ThreadBuffer(std::uint32_t tid, std::uint32_t index, WakeFn wake, QueueBudget& budget)
        : m_wake(wake), m_budget(budget), m_tid(tid), m_index(index)
    {
        m_write = m_read = mapBlock(kSmallBlockBytes, false); // the first even past the cap
        if (!m_write)
            throw std::bad_alloc();
    }
    ~ThreadBuffer()
    {
        // Sender (or a forked child's only thread): the chain from the read side on, then
        // the kept blocks.
        for (Block* b = m_read; b;) {
            Block* next = b->next.load(std::memory_order_relaxed);
            unmapBlock(b);
            b = next;
        }
        for (Block* b = m_free.load(std::memory_order_relaxed); b;) {
            Block* next = b->freeNext;
            unmapBlock(b);
            b = next;
        }
    }
    ThreadBuffer(const ThreadBuffer&) = delete;
    ThreadBuffer& operator=(const ThreadBuffer&) = delete;

    std::uint32_t tid() const { return m_tid; }
    // Small per-process index of the thread, used to make range ids unique without contention.
    std::uint32_t index() const { return m_index; }

    // Producer only. Writes one whole record, filled in by `fill(Record&)`, or counts a drop
    // and returns false (then `fill` is not called). The record is only written if `keep`
    // bytes stay free after it in its block (room promised to pops, see pushRecorded).
    // `fill` writes straight into the block: a record assembled on the stack and copied
    // would be read back with wide loads over narrow stores, which stalls store forwarding
    // on every call. `fill` must set every field.
    template <typename Record, typename Fill> bool emplace(std::size_t keep, Fill fill)
    {
        constexpr std::size_t size = sizeof(Record);
        static_assert(size % 8 == 0 && size <= kSmallBlockBytes - kHeaderBytes && alignof(Record) <= 8);
        if (__builtin_expect(m_writePos + size + keep > m_write->capacity, 0) && !nextBlock(size + keep)) {
            countDrop();
            return false;
        }
        char* at = m_write->data() + m_writePos;
        // Ask for the line a few records ahead now, so that its transfer from the sender's
        // core (blocks are reused) overlaps this call instead of stalling a later store.
        prefetchForWrite(at + kPrefetchBytes);
        fill(*::new (at) Record); // records are 8-byte multiples: `at` is aligned
        m_writePos += std::uint32_t(size);
        m_write->committed.store(m_writePos, std::memory_order_release);
        return true;
    }

    // Producer only. A record that was not even tried (a pop whose push was dropped).
    void countDrop()
    {
        m_dropped.store(m_dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }

    // Push/pop pairs stay whole when records are dropped. A recorded push keeps room in its
    // block for its pop (pops never find the block full, so they never need another), and
    // a dropped push makes its pop dropped too, so the stream never holds half a pair that
    // the viewer would match with the wrong range. Pairs are tracked by the thread's depth
    // over all domains: NVTX ranges of different domains on one thread are assumed to nest
    // (they do in practice).
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

    // Consumer only. Appends what was written so far to `out` (via out.append(ptr, n)),
    // block by block, and hands back the blocks it finished; stops after `limit` bytes (a
    // producer that writes as fast as this reads would keep it here for ever). Returns the
    // bytes taken.
    template <typename Out> std::size_t drain(Out& out, std::size_t limit = SIZE_MAX)
    {
        std::size_t taken = 0;
        m_blocksLastDrain = 0;
        while (taken < limit) {
            // `next` is published after the block's last commit: read it first, so that a
            // block seen sealed is read to its end.
            Block* next = m_read->next.load(std::memory_order_acquire);
            const std::uint32_t committed = m_read->committed.load(std::memory_order_acquire);
            if (committed > m_readPos) {
                out.append(m_read->data() + m_readPos, committed - m_readPos);
                taken += committed - m_readPos;
                m_readPos = committed;
            }
            if (!next)
                break;
            Block* done = m_read;
            m_read = next;
            m_readPos = 0;
            m_consumedBlocks.store(m_consumedBlocks.load(std::memory_order_relaxed) + 1,
                                   std::memory_order_release);
            ++m_blocksLastDrain;
            handBack(done);
        }
        return taken;
    }

    // Consumer only, after a drain: maps small blocks ahead of an active producer, so that
    // its thread never stops for a mapping (an mmap and 16 pages faulted and first written,
    // about 100 us on a VM) while its queue grows to the blocks a steady rate needs. Keeps
    // free as many small blocks as the producer filled since the previous drain (what the
    // next interval likely takes) plus kSpareBlocks, within kSmallBlocks; a thread that has
    // not filled half of its first block yet gets none (most threads make a few NVTX calls).
    void provision()
    {
        const bool active = m_consumedBlocks.load(std::memory_order_relaxed) > 0
                            || m_read->committed.load(std::memory_order_relaxed) > m_read->capacity / 2;
        const std::size_t wanted = kSpareBlocks + m_blocksLastDrain;
        while (active && m_freeSmall.load(std::memory_order_relaxed) < wanted
               && m_smallMapped.load(std::memory_order_relaxed) < kSmallBlocks) {
            Block* b = mapBlock(kSmallBlockBytes, true);
            if (!b)
                return;
            handBack(b);
        }
    }

    // Records dropped so far (monotonic; the consumer computes deltas). Any thread.
    std::uint64_t dropped() const { return m_dropped.load(std::memory_order_relaxed); }

    std::uint64_t nextRangeId() { return (std::uint64_t(m_index) << 40) | ++m_rangeCounter; }

    int depth = 0; // push/pop nesting level returned to the job; producer only
    // libspanscope-alloc's counters of this thread (collector_alloc.h), null without it or
    // once the thread handed them back at exit; and what AllocDelta records reported so
    // far. Producer only.
    const alloc_internal::ThreadCounters* allocCounters = nullptr;
    std::uint64_t allocationsReported = 0, bytesReported = 0, freesReported = 0;
    std::uint64_t binAllocationsReported[alloc_internal::kSizeBins] = {};
    std::uint64_t binBytesReported[alloc_internal::kSizeBins] = {};
    // Levels below this were pushed before a fork, in the parent: their pops in the child
    // close ranges that belong to the parent's stream and are not recorded. Producer only.
    int inheritedDepth = 0;

    // In a forked child, on the thread that forked (the only one that exists there), from
    // the atfork child handler: plain loads and stores only. Forgets what the parent's
    // sender had not taken yet (the parent sends it; its blocks are kept for reuse) and the
    // parent's drop counts; the ranges open now stay open for the job but belong to the
    // parent (inheritedDepth).
    void resetAfterFork(std::uint32_t tid)
    {
        m_tid = tid;
        for (Block* b = m_read; b != m_write;) {
            Block* next = b->next.load(std::memory_order_relaxed);
            b->freeNext = m_free.load(std::memory_order_relaxed);
            m_free.store(b, std::memory_order_relaxed);
            if (b->large())
                m_freeLarge.store(m_freeLarge.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
            else
                m_freeSmall.store(m_freeSmall.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
            b = next;
        }
        m_read = m_write;
        m_readPos = m_writePos;
        m_sealedBlocks = 0;
        m_consumedBlocks.store(0, std::memory_order_relaxed);
        m_consumedAtLastWake = ~std::uint64_t(0);
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
    // A block is one mapping: this header on its own cache line, then the records.
    struct Block
    {
        std::atomic<Block*> next{nullptr};      // set by the producer once it left the block
        std::atomic<std::uint32_t> committed{0}; // bytes of whole records written
        std::uint32_t capacity = 0;              // bytes for records
        Block* freeNext = nullptr;               // in the free list

        char* data() { return reinterpret_cast<char*>(this) + kHeaderBytes; }
        std::size_t mappedBytes() const { return capacity + kHeaderBytes; }
        bool large() const { return mappedBytes() > kSmallBlockBytes; }
    };
    static constexpr std::size_t kHeaderBytes = 64;
    static_assert(sizeof(Block) <= kHeaderBytes);
    static constexpr std::size_t kPrefetchBytes = 256;
    // Asks for the line in a state this core may write (PREFETCHW). __builtin_prefetch(p, 1)
    // gives a plain read prefetch (PREFETCHT0) unless the whole build targets PRFCHW, and a
    // line fetched for reading from the sender's cache still costs an ownership request at
    // the store. Every x86-64 CPU decodes PREFETCHW (as a no-op where unsupported).
    static void prefetchForWrite(const char* p)
    {
#if defined(__x86_64__)
        asm volatile("prefetchw %0" : : "m"(*p));
#else
        __builtin_prefetch(p, 1);
#endif
    }

    // A fresh block of `bytes` (header included), mapped and populated (no allocator lock:
    // a job's NVTX call may come from a signal handler or a forked child), or nullptr when
    // `limited` and the cap says no, or mapping fails. A large block is aligned to its size
    // so that it can sit on one huge page.
    Block* mapBlock(std::size_t bytes, bool limited)
    {
        if (!m_budget.take(bytes, limited))
            return nullptr;
        const bool large = bytes > kSmallBlockBytes;
        const std::size_t span = large ? 2 * bytes : bytes;
        void* mapped = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (large ? 0 : MAP_POPULATE), -1, 0);
        if (mapped == MAP_FAILED) {
            m_budget.give(bytes);
            return nullptr;
        }
        char* memory = static_cast<char*>(mapped);
        if (!large)
            touchPages(memory, bytes);
        if (large) {
            const auto at = reinterpret_cast<std::uintptr_t>(memory);
            const std::size_t head = (bytes - at % bytes) % bytes;
            if (head)
                munmap(memory, head);
            if (span - head - bytes)
                munmap(memory + head + bytes, span - head - bytes);
            memory += head;
            madvise(memory, bytes, MADV_HUGEPAGE); // a hint; failure is harmless
            memory[0] = 0;                          // one fault: the whole huge page
        }
        Block* b = ::new (memory) Block;
        b->capacity = std::uint32_t(bytes - kHeaderBytes);
        if (!large)
            m_smallMapped.fetch_add(1, std::memory_order_relaxed);
        return b;
    }
    // Writes a byte to every 4 KiB page. MAP_POPULATE gives the pages a mapping, but on a VM
    // the host may still back each one only at its first write (measured here: a block fresh
    // from MAP_POPULATE cost the producer 44 ns per 24-byte record, its second fill 10.5 ns;
    // one write per page on the sender first brought the first fill to 10.6 ns, for about
    // 5 us per page on the sender). Whoever maps the block pays that, off the producer's
    // path when the sender provisions it.
    static void touchPages(char* memory, std::size_t bytes)
    {
        for (std::size_t at = 0; at < bytes; at += 4096)
            reinterpret_cast<volatile char*>(memory)[at] = 0;
    }
    void unmapBlock(Block* b)
    {
        const std::size_t bytes = b->mappedBytes();
        b->~Block();
        munmap(b, bytes);
        m_budget.give(bytes);
    }

    // Producer only, once per block: seals the current block and moves to another with
    // room for `needed` bytes: emptied by the sender, or mapped if the cap allows.
    bool nextBlock(std::size_t needed)
    {
        if (needed > kSmallBlockBytes - kHeaderBytes)
            return false; // more pops promised than a block holds (thousands of levels)
        Block* next = m_free.load(std::memory_order_acquire);
        // Only this thread takes from the free list and only the sender adds to it, so the
        // head cannot be taken, handed back and pushed again meanwhile (no ABA).
        while (next && !m_free.compare_exchange_weak(next, next->freeNext, std::memory_order_acquire)) {
        }
        if (next) {
            (next->large() ? m_freeLarge : m_freeSmall).fetch_sub(1, std::memory_order_relaxed);
            next->next.store(nullptr, std::memory_order_relaxed);
            next->committed.store(0, std::memory_order_relaxed);
        } else {
            const bool small = m_smallMapped.load(std::memory_order_relaxed) < kSmallBlocks;
            next = mapBlock(small ? kSmallBlockBytes : kLargeBlockBytes, true);
            if (!next)
                return false;
        }
        m_write->next.store(next, std::memory_order_release); // after its last commit
        m_write = next;
        m_writePos = 0;
        const std::uint64_t sealed = ++m_sealedBlocks;
        const std::uint64_t consumed = m_consumedBlocks.load(std::memory_order_acquire);
        if (sealed - consumed >= kWakeBlocks && consumed != m_consumedAtLastWake) {
            m_consumedAtLastWake = consumed; // once until the sender makes progress
            m_wake();
        }
        return true;
    }

    // Consumer only: a block it finished goes back to the producer, unless it is large and
    // enough large ones wait there already, or the thread is gone: then it is unmapped.
    void handBack(Block* b)
    {
        if (retired.load(std::memory_order_relaxed)
            || (b->large()
                && m_freeLarge.load(std::memory_order_relaxed)
                       >= (m_budget.lossless ? kKeptLargeBlocksLossless : kKeptLargeBlocks))) {
            unmapBlock(b);
            return;
        }
        (b->large() ? m_freeLarge : m_freeSmall).fetch_add(1, std::memory_order_relaxed);
        Block* head = m_free.load(std::memory_order_relaxed);
        do
            b->freeNext = head;
        while (!m_free.compare_exchange_weak(head, b, std::memory_order_release, std::memory_order_relaxed));
    }

    const WakeFn m_wake;
    QueueBudget& m_budget;
    // Producer side.
    Block* m_write;
    std::uint32_t m_writePos = 0;
    std::uint64_t m_consumedAtLastWake = ~std::uint64_t(0);
    std::atomic<std::uint64_t> m_dropped{0};
    std::uint64_t m_rangeCounter = 0;
    std::size_t m_popReserve = 0;
    std::uint64_t m_sealedBlocks = 0;
    // Shared: blocks the sender emptied, for the producer.
    alignas(64) std::atomic<Block*> m_free{nullptr};
    std::atomic<std::size_t> m_freeLarge{0}; // large blocks in it (about: both sides change it)
    std::atomic<std::size_t> m_freeSmall{0}; // small blocks in it (the same)
    std::atomic<std::size_t> m_smallMapped{0}; // small blocks mapped for this thread (all kept)
    // Consumer side.
    alignas(64) Block* m_read;
    std::uint32_t m_readPos = 0;
    std::atomic<std::uint64_t> m_consumedBlocks{0};
    std::size_t m_blocksLastDrain = 0; // blocks the last drain finished
    std::uint32_t m_tid; // changes only in a forked child (resetAfterFork)
    const std::uint32_t m_index;
    RecentString m_recentStrings[kRecentStrings];
    static constexpr int kTrackedLevels = 1024; // push levels whose drop is remembered
    std::uint64_t m_droppedPush[kTrackedLevels / 64] = {};
    int m_droppedOpen = 0;
};

} // namespace spanscope::collector
