#include "prefault_ahead.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <system_error>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

namespace spanscope::model {

namespace {

std::atomic<uint64_t> busyNs{0};

class PrefaultThread
{
public:
    // Never destroyed: its detached thread may still be waiting when the process exits.
    static PrefaultThread& instance()
    {
        static auto* const worker = new PrefaultThread;
        return *worker;
    }

    void add(std::shared_ptr<const void> owner, std::uintptr_t first, std::uintptr_t last)
    {
        // A forked child has no such thread (threads do not survive fork) and may find the
        // lock held by one that did: it does nothing.
        if (!m_running || getpid() != m_pid)
            return;
        {
            std::lock_guard lock(m_mutex);
            if (m_pending.size() >= kMostPending)
                return;
            m_pending.push_back({std::move(owner), first, last});
        }
        m_wake.notify_one();
    }

private:
    struct Request
    {
        std::shared_ptr<const void> owner;
        std::uintptr_t first, last; // page-aligned
    };
    // A few per store and thread per update; more pending means the thread is far behind,
    // and adding to it would only hold memory alive.
    static constexpr size_t kMostPending = 1024;

    PrefaultThread() : m_pid(getpid())
    {
        try {
            std::thread([this] { run(); }).detach();
            m_running = true;
        } catch (const std::system_error&) {
            // No thread to be had: the writers fault their pages themselves.
        }
    }

    void run()
    {
        for (;;) {
            Request request;
            {
                std::unique_lock lock(m_mutex);
                m_wake.wait(lock, [&] { return !m_pending.empty(); });
                request = std::move(m_pending.front());
                m_pending.pop_front();
            }
            const auto began = std::chrono::steady_clock::now();
            populatePages(request.first, request.last, std::uintptr_t(2) << 20);
            request.owner.reset(); // may free the store, here rather than under the lock
            busyNs.fetch_add(uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now() - began)
                                          .count()),
                             std::memory_order_relaxed);
        }
    }

    const pid_t m_pid;
    bool m_running = false;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Request> m_pending;
};

} // namespace

void prefaultAhead(std::shared_ptr<const void> owner, const void* begin, std::size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    static const auto page =
        std::uintptr_t(sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096);
    // The whole pages of the range: a page it shares with what lies before was written.
    const auto first = (reinterpret_cast<std::uintptr_t>(begin) + page - 1) / page * page;
    const auto last = (reinterpret_cast<std::uintptr_t>(begin) + bytes) / page * page;
    if (!owner || bytes == 0 || first >= last)
        return;
    PrefaultThread::instance().add(std::move(owner), first, last);
#else
    (void)owner, (void)begin, (void)bytes;
#endif
}

bool populatePages(std::uintptr_t first, std::uintptr_t last, std::uintptr_t step, const std::atomic<bool>* stop)
{
#ifdef MADV_POPULATE_WRITE
    for (std::uintptr_t at = first; at < last && !(stop && stop->load(std::memory_order_relaxed)); at += step)
        if (madvise(reinterpret_cast<void*>(at), std::min(step, last - at), MADV_POPULATE_WRITE) != 0)
            return false;
    return true;
#else
    (void)first, (void)last, (void)step, (void)stop;
    return false;
#endif
}

uint64_t prefaultAheadBusyNs()
{
    return busyNs.load(std::memory_order_relaxed);
}

} // namespace spanscope::model
