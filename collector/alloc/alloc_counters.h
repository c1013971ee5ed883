// Allocation counters of libspanscope-alloc: one block per thread, written only by its
// thread (from inside malloc and friends), read by anyone (process totals, the span API,
// the NVTX collector's attribution).
//
// Why single-instruction adds instead of atomics: a block has one writer, so nothing but a
// signal handler on that same thread can interrupt an update, and an x86 `add` to memory is
// one instruction, which a signal cannot split; a `lock add` would cost several ns on every
// malloc. Readers on other threads load each 8-byte word atomically (aligned words never
// tear) and may see the counters of one allocation half-updated, which only ever lags.
//
// Blocks are never freed: a thread that exits hands its block back and a later thread
// continues counting on it. Every counter only grows, so sums over all blocks stay exact
// and a span's deltas stay right whatever happens to the threads in between.
#pragma once

#include <cstddef>
#include <cstdint>

namespace spanscope::alloc_internal {

// Log2 size bins of requested sizes: bin k holds [2^k, 2^(k+1)) bytes, bin 0 also 0 and 1
// (the viewer's model::log2Bin uses the same bins).
inline constexpr std::size_t kSizeBins = 64;

inline std::size_t sizeBin(std::size_t bytes)
{
    return std::size_t(63 - __builtin_clzll(bytes | 1));
}

struct alignas(64) ThreadCounters
{
    std::uint64_t allocations = 0; // successful allocation calls (realloc: one, of the new size)
    // Their requested bytes are the sum of binBytes (requestedBytes() below): one add less
    // per allocation than keeping a total too.
    std::uint64_t frees = 0;       // blocks given back (realloc: one, the old block)
    // Usable bytes (malloc_usable_size) allocated minus freed by this thread, modulo 2^64:
    // a thread that frees what others allocated goes below zero. Read as int64_t; the sum
    // over the process is the heap in use.
    std::uint64_t liveUsableBytes = 0;
    // The allocations above by size bin: how many, and their requested bytes.
    std::uint64_t binAllocations[kSizeBins] = {};
    std::uint64_t binBytes[kSizeBins] = {};

    // The counters as they were when the block's current thread took it over (zero for a
    // new block): where that thread's own counts start. Set before the thread counts.
    struct Start
    {
        std::uint64_t allocations = 0, bytes = 0, frees = 0;
        std::uint64_t binAllocations[kSizeBins] = {};
        std::uint64_t binBytes[kSizeBins] = {};
    } start;

    // Registry bookkeeping (never touched by the hot path).
    ThreadCounters* next = nullptr; // every block ever made, newest first
    int inUse = 0;                  // a running thread owns it (atomic access only)
    // Set on the one block shared by threads whose own block was already handed back
    // (allocations in the last TLS destructors of an exiting thread): updated with atomic
    // adds, as several threads may write it.
    bool shared = false;
};

// Adds `value` to a counter of a block (see the file comment for why not an atomic).
inline void bump(std::uint64_t& counter, std::uint64_t value, bool shared)
{
#if defined(__x86_64__)
    if (__builtin_expect(!shared, 1)) {
        asm volatile("addq %1, %0" : "+m"(counter) : "er"(value));
        return;
    }
#else
    (void)shared;
#endif
    __atomic_fetch_add(&counter, value, __ATOMIC_RELAXED);
}

inline std::uint64_t load(const std::uint64_t& counter)
{
    return __atomic_load_n(&counter, __ATOMIC_RELAXED);
}

// Requested bytes of every allocation a block counted. O(kSizeBins) loads.
inline std::uint64_t requestedBytes(const ThreadCounters& c)
{
    std::uint64_t sum = 0;
    for (const std::uint64_t& bin : c.binBytes)
        sum += load(bin);
    return sum;
}

// initial-exec: the library is preloaded or linked, never dlopened late, and the hot path
// must not call __tls_get_addr.
extern constinit thread_local ThreadCounters* t_counters __attribute__((tls_model("initial-exec")));
// Counting is off on this thread while >0: the span API, the collector and the interposer's
// own bootstrap never count their allocations.
extern constinit thread_local int t_suppress __attribute__((tls_model("initial-exec")));

// Makes (or reuses) the calling thread's block. Never null; allocates nothing (mmap).
ThreadCounters* registerThreadCounters();

// The calling thread's block, made on first use. Never null.
inline ThreadCounters* threadCounters()
{
    ThreadCounters* c = t_counters;
    return __builtin_expect(c != nullptr, 1) ? c : registerThreadCounters();
}

// The newest block of the registry (walk with ->next, atomic loads). Any thread.
ThreadCounters* firstBlock();

// Totals over every block: every thread that ever ran, exited ones included. Any thread;
// O(threads).
struct ProcessTotals
{
    std::uint64_t allocations = 0, bytes = 0, frees = 0;
    std::int64_t liveUsableBytes = 0;
};
ProcessTotals processTotals();

struct SuppressCounting
{
    SuppressCounting() { ++t_suppress; }
    ~SuppressCounting() { --t_suppress; }
    SuppressCounting(const SuppressCounting&) = delete;
    SuppressCounting& operator=(const SuppressCounting&) = delete;
};

} // namespace spanscope::alloc_internal
