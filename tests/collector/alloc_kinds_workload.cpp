// A program with known allocations, run with libspanscope-alloc preloaded (it does not link
// it): each step calls one kind of allocation function and prints what the interposer
// counted for it, as "step allocations bytes frees" lines, which tst_alloc compares with
// what the step is known to do. Steps on other threads, after fork and in a signal
// handler print the same way.
#include "alloc_abi.h"

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <malloc.h>
#include <new>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using spanscope::alloc_internal::AllocAbi;
using spanscope::alloc_internal::ThreadCounters;

const AllocAbi* g_abi = nullptr;

struct Snapshot
{
    uint64_t allocations, bytes, frees;
};

Snapshot threadNow()
{
    const ThreadCounters* c = g_abi->threadCounters();
    return {__atomic_load_n(&c->allocations, __ATOMIC_RELAXED), spanscope::alloc_internal::requestedBytes(*c),
            __atomic_load_n(&c->frees, __ATOMIC_RELAXED)};
}

// Runs `work` and prints the calling thread's counter deltas under `step`.
template <typename F>
void step(const char* name, F&& work)
{
    const Snapshot before = threadNow();
    work();
    const Snapshot after = threadNow();
    // printf may allocate its buffer on the first call: it ran once before any step.
    std::printf("%s %llu %llu %llu\n", name, (unsigned long long)(after.allocations - before.allocations),
                (unsigned long long)(after.bytes - before.bytes),
                (unsigned long long)(after.frees - before.frees));
}

struct alignas(64) Wide
{
    char bytes[64];
};

template <typename T>
T* keep(T* p)
{
    asm volatile("" : : "r"(p) : "memory"); // the compiler may not elide the allocation
    return p;
}

volatile sig_atomic_t g_signalDone = 0;

void allocatingHandler(int)
{
    // Not async-signal-safe in general, but real programs do it; it must count and not hang.
    void* p = keep(std::malloc(48));
    std::free(p);
    g_signalDone = 1;
}

} // namespace

int main()
{
    g_abi = reinterpret_cast<const AllocAbi* (*)()>(::dlsym(RTLD_DEFAULT, "spanscope_alloc_abi")) != nullptr
                ? reinterpret_cast<const AllocAbi* (*)()>(::dlsym(RTLD_DEFAULT, "spanscope_alloc_abi"))()
                : nullptr;
    if (!g_abi || g_abi->version != AllocAbi::kVersion) {
        std::fprintf(stderr, "libspanscope-alloc is not loaded\n");
        return 2;
    }
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::printf("start 0 0 0\n");

    step("malloc", [] { std::free(keep(std::malloc(100))); });
    step("malloc-only", [] { keep(std::malloc(1000)); }); // leaked on purpose: no free
    step("calloc", [] { std::free(keep(std::calloc(10, 20))); });
    step("realloc-grow", [] {
        void* p = keep(std::malloc(50));
        p = keep(std::realloc(p, 5000));
        std::free(p);
    });
    step("realloc-null", [] { std::free(keep(std::realloc(nullptr, 70))); });
    step("realloc-zero", [] {
        void* p = keep(std::malloc(30));
        keep(std::realloc(p, 0)); // frees p (glibc), returns null
    });
    step("reallocarray", [] { std::free(keep(reallocarray(nullptr, 4, 8))); });
    step("posix_memalign", [] {
        void* p = nullptr;
        if (posix_memalign(&p, 64, 100) == 0)
            std::free(keep(p));
    });
    step("aligned_alloc", [] { std::free(keep(aligned_alloc(64, 128))); });
    step("memalign", [] { std::free(keep(memalign(32, 10))); });
    step("valloc", [] { std::free(keep(valloc(10))); });
    step("pvalloc", [] { std::free(keep(pvalloc(10))); });
    step("new", [] { delete keep(new int(7)); });
    step("new-array", [] { delete[] keep(new int[10]); });
    step("new-nothrow", [] { delete[] keep(new (std::nothrow) char[7]); });
    step("new-aligned", [] { delete keep(new Wide); });
    step("new-aligned-array", [] { delete[] keep(new Wide[2]); });
    step("sized-delete", [] { ::operator delete(keep(::operator new(24)), 24); });
    step("strdup", [] { std::free(keep(strdup("hello"))); });
    step("string", [] { std::string s(100, 'x'); keep(s.data()); });
    step("vector-growth", [] {
        std::vector<int> v;
        for (int i = 0; i < 5; ++i) // capacities 1, 2, 4, 8: four allocations, three moves
            v.push_back(i);
        keep(v.data());
    });
    step("failed-malloc", [] { keep(std::malloc(SIZE_MAX / 2)); });
    step("failed-new-nothrow", [] {
        volatile size_t huge = SIZE_MAX / 4;
        keep(new (std::nothrow) char[huge]);
    });
    // The bad_alloc thrown is itself allocated by the C++ runtime: that one counts.
    step("failed-new", [] {
        try {
            volatile size_t huge = SIZE_MAX / 4; // not a constant: the compiler must not refuse it
            keep(new char[huge]);
        } catch (const std::bad_alloc&) {
        }
    });
    step("free-null", [] { std::free(nullptr); });
    step("zero-malloc", [] { std::free(keep(std::malloc(0))); });

    // Another thread: its own counters; it exits, and a later thread reuses its block.
    for (int round = 0; round < 2; ++round) {
        std::thread worker([] {
            step("thread", [] {
                for (int i = 0; i < 100; ++i)
                    std::free(keep(std::malloc(16)));
            });
        });
        worker.join();
    }

    // A signal handler that allocates, delivered to this thread.
    step("signal", [] {
        std::signal(SIGUSR1, allocatingHandler);
        ::raise(SIGUSR1);
        while (!g_signalDone) {
        }
    });

    // A child forked without exec keeps counting on the forking thread's block.
    std::fflush(stdout);
    const pid_t child = ::fork();
    if (child == 0) {
        step("forked-child", [] { std::free(keep(std::malloc(64))); });
        std::fflush(stdout);
        ::_exit(0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);

    const auto totals = g_abi->processTotals();
    // Every thread's counts are in the process totals, exited ones included.
    std::printf("process-has-threads %d 0 0\n", totals.allocations >= 200 ? 1 : 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 3;
}
