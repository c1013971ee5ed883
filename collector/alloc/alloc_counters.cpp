#include "alloc_counters.h"
#include "alloc_observer.h"

#include <new>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>

namespace spanscope::alloc_internal {

constinit thread_local ThreadCounters* t_counters = nullptr;
constinit thread_local int t_suppress = 0;

namespace {

// Every block ever made, newest first; pushed with a CAS and never unlinked, so readers
// walk it without a lock.
ThreadCounters* g_blocks = nullptr;
// Threads whose block went back to the registry and who still allocate (TLS destructors
// that run after ours) count here.
ThreadCounters g_lateExitCounters;
pthread_key_t g_exitKey;
bool g_haveExitKey = false;

// Blocks come from mmap in slabs, so making one never calls malloc (we are inside it).
ThreadCounters* newBlock()
{
    static constexpr std::size_t kSlabBlocks = 32;
    static ThreadCounters* slab = nullptr;
    static std::size_t used = kSlabBlocks;
    static int lock = 0; // a spin lock: rare (once per 32 threads), and safe in any context
    while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
    if (used == kSlabBlocks) {
        void* memory = ::mmap(nullptr, kSlabBlocks * sizeof(ThreadCounters),
                              PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED) {
            __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
            return nullptr;
        }
        slab = static_cast<ThreadCounters*>(memory);
        used = 0;
    }
    ThreadCounters* block = new (&slab[used++]) ThreadCounters;
    __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
    return block;
}

void threadExited(void* block)
{
    auto* c = static_cast<ThreadCounters*>(block);
    if (ThreadEndObserver observer = __atomic_load_n(&g_threadEndObserver, __ATOMIC_ACQUIRE)) {
        ++t_suppress;
        observer(c);
        --t_suppress;
    }
    // Later allocations of this thread (other TLS destructors, the C library freeing the
    // thread's own structures) count on the shared block from here on.
    t_counters = &g_lateExitCounters;
    __atomic_store_n(&c->inUse, 0, __ATOMIC_RELEASE);
}

__attribute__((constructor(101))) void makeExitKey()
{
    g_lateExitCounters.shared = true;
    g_lateExitCounters.inUse = 1;
    // Made before main: pthread_key_create of one of the first keys takes a static slot
    // and allocates nothing.
    g_haveExitKey = pthread_key_create(&g_exitKey, threadExited) == 0;
    // The shared block is part of the totals like any other.
    g_lateExitCounters.next = __atomic_load_n(&g_blocks, __ATOMIC_ACQUIRE);
    while (!__atomic_compare_exchange_n(&g_blocks, &g_lateExitCounters.next, &g_lateExitCounters,
                                        false, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
    }
}

} // namespace

ThreadCounters* registerThreadCounters()
{
    // A block a thread that exited left behind, else a new one.
    ThreadCounters* block = nullptr;
    for (ThreadCounters* b = firstBlock(); b; b = __atomic_load_n(&b->next, __ATOMIC_ACQUIRE)) {
        int free = 0;
        if (!b->shared && __atomic_compare_exchange_n(&b->inUse, &free, 1, false,
                                                      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            block = b;
            // Another thread counted on it before: this one's counts start here.
            block->start.allocations = load(b->allocations);
            block->start.bytes = requestedBytes(*b);
            block->start.frees = load(b->frees);
            for (std::size_t bin = 0; bin < kSizeBins; ++bin) {
                block->start.binAllocations[bin] = load(b->binAllocations[bin]);
                block->start.binBytes[bin] = load(b->binBytes[bin]);
            }
            break;
        }
    }
    if (!block) {
        block = newBlock();
        if (!block) { // out of memory: count on the shared block rather than fail the job
            t_counters = &g_lateExitCounters;
            return t_counters;
        }
        block->inUse = 1;
        block->next = __atomic_load_n(&g_blocks, __ATOMIC_ACQUIRE);
        while (!__atomic_compare_exchange_n(&g_blocks, &block->next, block, false,
                                            __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
        }
    }
    t_counters = block;
    // Before the key exists (allocations of other libraries' constructors, on the main
    // thread, which exits with the process) nothing needs handing back.
    if (g_haveExitKey)
        pthread_setspecific(g_exitKey, block);
    return block;
}

ThreadCounters* firstBlock()
{
    return __atomic_load_n(&g_blocks, __ATOMIC_ACQUIRE);
}

ProcessTotals processTotals()
{
    ProcessTotals totals;
    for (const ThreadCounters* b = firstBlock(); b; b = __atomic_load_n(&b->next, __ATOMIC_ACQUIRE)) {
        totals.allocations += load(b->allocations);
        totals.bytes += requestedBytes(*b);
        totals.frees += load(b->frees);
        totals.liveUsableBytes += std::int64_t(load(b->liveUsableBytes));
    }
    return totals;
}

} // namespace spanscope::alloc_internal
