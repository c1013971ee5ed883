// The allocation functions libspanscope-alloc exports in place of the C library's (it is
// preloaded, or linked before libc): each counts on the calling thread's block
// (alloc_counters.h) and forwards to the next definition in the lookup order (RTLD_NEXT:
// the C library, or another allocator preloaded after us).
//
// Counting rules (collector/README.md, "Allocations"):
//  - one allocation per successful call, of the requested size (calloc: n * size; the
//    memalign family: the size asked for, not the padding);
//  - realloc and reallocarray: one free of the old block and one allocation of the new size
//    when both exist (realloc(nullptr, n) is an allocation only, realloc(p, 0) a free only
//    when it freed p); a failed call counts nothing, as nothing changed;
//  - operator new and delete in every form count here and call the next malloc and free
//    directly, so an allocation made by `new` is counted once, not again inside malloc;
//  - free(nullptr) and failed allocations count nothing.
//
// Bootstrap: dlsym may allocate while we look up the next malloc; those calls are served
// from a static arena and never counted or freed.
#include "alloc_counters.h"
#include "alloc_observer.h"

#include <cerrno>
#include <cstddef>
#include <algorithm>
#include <cstring>
#include <dlfcn.h>
#include <new>
#include <sched.h>
#include <unistd.h>

namespace spanscope::alloc_internal {
namespace {

struct NextAllocator
{
    void* (*malloc)(size_t) = nullptr;
    void (*free)(void*) = nullptr;
    void* (*calloc)(size_t, size_t) = nullptr;
    void* (*realloc)(void*, size_t) = nullptr;
    int (*posixMemalign)(void**, size_t, size_t) = nullptr;
    void* (*alignedAlloc)(size_t, size_t) = nullptr;
    void* (*memalign)(size_t, size_t) = nullptr;
    void* (*valloc)(size_t) = nullptr;
    void* (*pvalloc)(size_t) = nullptr;
    size_t (*usableSize)(void*) = nullptr;
};

NextAllocator g_next;
// glibc on x86-64: the usable size is read from the chunk header in place (as glibc's own
// malloc_usable_size does, without the call: ~2 ns of the ~5 ns the interposer costs per
// malloc + free). Switched on only after checkChunkHeaders() found it agrees with the
// allocator's answer for blocks of every kind.
bool g_glibcChunks = false;
int g_resolveState = 0; // 0 not yet, 1 in progress, 2 done (atomic access)
constinit thread_local bool t_resolving __attribute__((tls_model("initial-exec"))) = false;

// The bootstrap arena: 16-byte header (the size) before each block, 16-byte aligned.
alignas(64) char g_arena[256 * 1024];
size_t g_arenaUsed = 0; // atomic access

bool fromArena(const void* p)
{
    return p >= g_arena && p < g_arena + sizeof g_arena;
}

void* arenaAllocate(size_t size, size_t alignment = 16)
{
    alignment = alignment < 16 ? 16 : alignment;
    size_t start = __atomic_load_n(&g_arenaUsed, __ATOMIC_RELAXED), block;
    do {
        block = (start + 16 + alignment - 1) & ~(alignment - 1);
        if (block + size > sizeof g_arena || block + size < block)
            return nullptr;
    } while (!__atomic_compare_exchange_n(&g_arenaUsed, &start, block + size, false,
                                          __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    std::memcpy(g_arena + block - sizeof(size_t), &size, sizeof size);
    return g_arena + block; // zeroed: static storage, never reused
}

size_t arenaSize(const void* p)
{
    size_t size;
    std::memcpy(&size, static_cast<const char*>(p) - sizeof size, sizeof size);
    return size;
}

template <typename F>
void lookUp(F& slot, const char* name)
{
    slot = reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

void checkChunkHeaders();

void resolve()
{
    int state = 0;
    if (__atomic_compare_exchange_n(&g_resolveState, &state, 1, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        t_resolving = true;
        NextAllocator next;
        lookUp(next.malloc, "malloc");
        lookUp(next.free, "free");
        lookUp(next.calloc, "calloc");
        lookUp(next.realloc, "realloc");
        lookUp(next.posixMemalign, "posix_memalign");
        lookUp(next.alignedAlloc, "aligned_alloc");
        lookUp(next.memalign, "memalign");
        lookUp(next.valloc, "valloc");
        lookUp(next.pvalloc, "pvalloc");
        lookUp(next.usableSize, "malloc_usable_size");
        if (!next.malloc || !next.free || !next.calloc || !next.realloc || !next.posixMemalign) {
            static const char message[] =
                "spanscope-alloc: the C library's malloc could not be found; exiting\n";
            [[maybe_unused]] auto n = ::write(STDERR_FILENO, message, sizeof message - 1);
            ::_exit(127); // nothing could allocate: no way to carry on
        }
        g_next = next;
        checkChunkHeaders(); // the next allocator directly: nothing counted
        t_resolving = false;
        __atomic_store_n(&g_resolveState, 2, __ATOMIC_RELEASE);
        return;
    }
    // Another thread resolves: wait for it (microseconds, once per process).
    while (__atomic_load_n(&g_resolveState, __ATOMIC_ACQUIRE) != 2)
        sched_yield();
}

// True when the next allocator is there; false while this thread is the one resolving it
// (dlsym allocating), when the arena serves.
inline bool ready()
{
    if (__builtin_expect(__atomic_load_n(&g_resolveState, __ATOMIC_ACQUIRE) == 2, 1))
        return true;
    if (t_resolving)
        return false;
    resolve();
    return true;
}

inline size_t usableSize(void* p)
{
    if (__builtin_expect(g_glibcChunks, 1)) {
        // The size word before the block; low bits are flags (2 = mmapped, whose header
        // takes two words instead of one).
        size_t header;
        std::memcpy(&header, static_cast<const char*>(p) - sizeof header, sizeof header);
        return (header & ~size_t(7)) - ((header & 2) ? 2 * sizeof(size_t) : sizeof(size_t));
    }
    return g_next.usableSize ? g_next.usableSize(p) : 0;
}

// Compares the in-place reading with the allocator's malloc_usable_size on small, large,
// mmapped and aligned blocks; enables it when every one agrees.
void checkChunkHeaders()
{
#if defined(__x86_64__) && defined(__GLIBC__)
    if (!g_next.usableSize)
        return;
    g_glibcChunks = true; // usableSize() reads headers from here on, for the comparison
    bool agree = true;
    const size_t sizes[] = {0, 1, 24, 64, 100, 1000, 4096, 100000, size_t(1) << 20, size_t(5) << 20};
    for (const size_t size : sizes) {
        void* blocks[2] = {g_next.malloc(size), nullptr};
        if (g_next.posixMemalign(&blocks[1], 4096, size) != 0)
            blocks[1] = nullptr;
        for (void* block : blocks) {
            if (!block)
                continue;
            agree = agree && usableSize(block) == g_next.usableSize(block);
            g_next.free(block);
        }
    }
    g_glibcChunks = agree;
#endif
}

inline void countAllocation(void* p, size_t requested)
{
    if (__builtin_expect(p == nullptr || t_suppress > 0, 0))
        return;
    ThreadCounters* c = threadCounters();
    const bool shared = c->shared;
    bump(c->allocations, 1, shared);
    const size_t bin = sizeBin(requested);
    bump(c->binAllocations[bin], 1, shared);
    bump(c->binBytes[bin], requested, shared);
    const size_t usable = usableSize(p);
    bump(c->liveUsableBytes, usable, shared);
    if (__builtin_expect(requested >= largeThreshold(), 0))
        notifyLarge(p, requested, true);
}

// Before the block goes back: its usable size is read from the allocator's header.
inline void countFree(void* p)
{
    if (__builtin_expect(p == nullptr || t_suppress > 0, 0))
        return;
    ThreadCounters* c = threadCounters();
    const bool shared = c->shared;
    const size_t usable = usableSize(p);
    bump(c->frees, 1, shared);
    bump(c->liveUsableBytes, uint64_t(0) - usable, shared);
    if (__builtin_expect(usable >= largeThreshold(), 0))
        notifyLarge(p, usable, false);
}

void* reallocate(void* old, size_t size)
{
    if (!ready()) {
        void* p = arenaAllocate(size);
        if (p && old)
            std::memcpy(p, old, std::min(size, arenaSize(old)));
        return p;
    }
    if (fromArena(old)) { // a bootstrap block moves to the real heap, uncounted as it came
        void* p = g_next.malloc(size);
        if (p)
            std::memcpy(p, old, std::min(size, arenaSize(old)));
        countAllocation(p, size);
        return p;
    }
    // The old block's usable size must be read before realloc may free it.
    const bool counting = old && t_suppress == 0;
    const size_t oldUsable = counting ? usableSize(old) : 0;
    void* p = g_next.realloc(old, size);
    if (p == nullptr && size != 0)
        return nullptr; // failed: the old block is untouched
    if (counting) {
        ThreadCounters* c = threadCounters();
        bump(c->frees, 1, c->shared);
        bump(c->liveUsableBytes, uint64_t(0) - oldUsable, c->shared);
        if (oldUsable >= largeThreshold())
            notifyLarge(old, oldUsable, false);
    }
    countAllocation(p, size);
    return p;
}

inline void* callNext(void* (*function)(size_t, size_t), size_t alignment, size_t size)
{
    return function(alignment, size);
}

inline void* callNext(void* (*function)(size_t), size_t, size_t size)
{
    return function(size);
}

void* alignedAllocate(size_t alignment, size_t size)
{
    if (!ready())
        return arenaAllocate(size, alignment);
    void* p = nullptr;
    if (alignment < sizeof(void*))
        alignment = sizeof(void*);
    if (g_next.posixMemalign(&p, alignment, size) != 0)
        return nullptr;
    return p;
}

// The memalign family: the next allocator's own function (`next()` returns it once
// resolved; null where it lacks one: posix_memalign of `fallbackSize` bytes instead),
// counted as an allocation of `size`. aligned_alloc and memalign take (alignment, size),
// valloc and pvalloc only a size, hence the adapter below.
template <typename Next>
void* alignedFamily(size_t alignment, size_t size, size_t fallbackSize, Next next)
{
    if (!ready())
        return arenaAllocate(size, alignment);
    void* p = nullptr;
    if (const auto function = next())
        p = callNext(function, alignment, size);
    else
        p = alignedAllocate(alignment, fallbackSize);
    countAllocation(p, size);
    return p;
}

} // namespace
} // namespace spanscope::alloc_internal

using namespace spanscope::alloc_internal;

#define SPANSCOPE_EXPORT extern "C" __attribute__((visibility("default")))

SPANSCOPE_EXPORT void* malloc(size_t size)
{
    if (!ready())
        return arenaAllocate(size);
    void* p = g_next.malloc(size);
    countAllocation(p, size);
    return p;
}

SPANSCOPE_EXPORT void free(void* p)
{
    if (p == nullptr || fromArena(p))
        return;
    if (!ready())
        return; // cannot be: every block before resolution came from the arena
    countFree(p);
    g_next.free(p);
}

SPANSCOPE_EXPORT void* calloc(size_t count, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        errno = ENOMEM;
        return nullptr;
    }
    if (!ready())
        return arenaAllocate(bytes); // the arena is zeroed static storage
    void* p = g_next.calloc(count, size);
    countAllocation(p, bytes);
    return p;
}

SPANSCOPE_EXPORT void* realloc(void* old, size_t size)
{
    return reallocate(old, size);
}

SPANSCOPE_EXPORT void* reallocarray(void* old, size_t count, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        errno = ENOMEM;
        return nullptr;
    }
    return reallocate(old, bytes);
}

SPANSCOPE_EXPORT int posix_memalign(void** out, size_t alignment, size_t size)
{
    if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0)
        return EINVAL;
    if (!ready()) {
        *out = arenaAllocate(size, alignment);
        return *out ? 0 : ENOMEM;
    }
    const int result = g_next.posixMemalign(out, alignment, size);
    if (result == 0)
        countAllocation(*out, size);
    return result;
}

SPANSCOPE_EXPORT void* aligned_alloc(size_t alignment, size_t size)
{
    return alignedFamily(alignment, size, size, [] { return g_next.alignedAlloc; });
}

SPANSCOPE_EXPORT void* memalign(size_t alignment, size_t size)
{
    return alignedFamily(alignment, size, size, [] { return g_next.memalign; });
}

SPANSCOPE_EXPORT void* valloc(size_t size)
{
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    return alignedFamily(page, size, size, [] { return g_next.valloc; });
}

SPANSCOPE_EXPORT void* pvalloc(size_t size)
{
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    return alignedFamily(page, size, (size + page - 1) / page * page, [] { return g_next.pvalloc; });
}

SPANSCOPE_EXPORT size_t malloc_usable_size(void* p)
{
    if (p == nullptr)
        return 0;
    if (fromArena(p))
        return arenaSize(p);
    if (!ready())
        return 0;
    return usableSize(p);
}
