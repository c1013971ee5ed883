// Fork without exec: the collector's locks across a fork, and a forked child's own stream
// (collector/README.md, "Fork without exec").
#include "collector.h"

#include "collector_internal.h"
#include "protocol/spanscope_protocol.h"
#include "sink.h"

#include <new>
#include <sys/syscall.h>
#include <unistd.h>

namespace spanscope::collector {

namespace proto = spanscope::protocol;

void Collector::atForkPrepare()
{
    // Every lock a job thread or the sender may hold, in the order they nest (the sender
    // takes the thread and meta locks inside a flush). A fork waits for a flush in progress:
    // microseconds, at most kSendWaitMs while a viewer is not reading.
    g_startMutex.lock();
    if (Collector* c = instance()) {
        c->m_flushMutex.lock();
        c->m_strings.lockForFork();
        c->m_threadsMutex.lock();
        c->m_metaMutex.lock();
        c->m_forkingOldTid = static_cast<std::uint32_t>(syscall(SYS_gettid));
    }
}

void Collector::atForkParent()
{
    if (Collector* c = instance()) {
        c->m_metaMutex.unlock();
        c->m_threadsMutex.unlock();
        c->m_strings.unlockAfterFork();
        c->m_flushMutex.unlock();
    }
    g_startMutex.unlock();
}

void Collector::atForkChild()
{
    // Async-signal-safe work only: unlocks, plain stores, close(). The child's stream starts
    // on its first NVTX call (resumeInForkedChild), in an ordinary context.
    Collector* c = instance();
    if (c) {
        c->m_metaMutex.unlock();
        c->m_threadsMutex.unlock();
        c->m_strings.unlockAfterFork();
        c->m_flushMutex.unlock();
    }
    g_startMutex.unlock();
    g_logged.store(false, std::memory_order_relaxed); // the child may say why it is off
    if (!c)
        return;
    c->m_enabled.store(false, std::memory_order_relaxed);
    c->m_pid = 0; // exit handlers do nothing here until the child's stream starts
    // The parent's sender thread does not exist here: forget its handle and what it waited
    // on (constructing these allocates nothing).
    new (&c->m_sender) std::thread();
    new (&c->m_wakeMutex) std::mutex();
    new (&c->m_wake) std::condition_variable();
    c->m_stop = false;
    // The parent's connection or file stays the parent's.
    if (c->m_sink)
        c->m_sink->close();
    c->m_forkingThread = nullptr;
    ThreadBuffer* b = t_buffer;
    if (b && b != retiredMarker()) {
        b->resetAfterFork(static_cast<std::uint32_t>(syscall(SYS_gettid)));
        c->m_forkingThread = b;
    }
    c->m_forkPending.store(c->m_perProcessSink, std::memory_order_release);
}

bool Collector::resumeInForkedChild() noexcept
{
    if (__builtin_expect(!m_forkPending.load(std::memory_order_acquire), 1))
        return false;
    try {
        // The child's other threads wait here while the first one starts the stream (once,
        // about a millisecond), so none of their calls is skipped and no pop loses its push.
        std::lock_guard lock(g_startMutex);
        if (enabled())
            return true; // another thread of the child started it
        if (!m_forkPending.load(std::memory_order_relaxed))
            return false; // it failed there
        const bool started = restartInChild();
        m_forkPending.store(false, std::memory_order_relaxed);
        if (started)
            return true;
        logOnce("cannot start the stream of a forked child; collector off in it");
    } catch (...) {
        m_forkPending.store(false, std::memory_order_relaxed);
        logOnce("cannot start the stream of a forked child (out of memory?); collector off in it");
    }
    return false;
}

bool Collector::restartInChild()
{
    m_pid = getpid();
    {
        // The parent's other threads do not exist here; their buffers hold the parent's data.
        std::lock_guard lock(m_threadsMutex);
        for (ThreadBuffer* b : m_threads)
            if (b != m_forkingThread)
                delete b;
        m_threads.clear();
        if (m_forkingThread)
            m_threads.push_back(m_forkingThread);
    }
    {
        const auto forkingTid = static_cast<std::uint32_t>(m_pid); // the forking thread's tid
        std::lock_guard lock(m_metaMutex);
        m_meta = metaForChild(forkingTid);
        // Only the forking thread's name still means something here, under its new tid (a
        // fork of this child needs it).
        const auto name = m_threadNames.find(m_forkingOldTid);
        const std::uint32_t nameId = name == m_threadNames.end() ? 0 : name->second;
        m_threadNames.clear();
        if (nameId)
            m_threadNames[forkingTid] = nameId;
    }
    // A new stream: every string is defined again, nothing is owed from the parent's.
    m_records.clear();
    m_essential.clear();
    m_metaBatch.clear();
    m_kept.clear();
    m_pairs.clear();
    m_sentStrings = 1;
    m_pendingDropped = 0;
    m_totalDropped = 0;
    m_lastCalibrationNs = 0;
    delete m_sink;
    m_sink = nullptr;
    if (!openSink() || !startStreaming())
        return false;
    m_enabled.store(true, std::memory_order_release);
    return true;
}

std::string Collector::metaForChild(std::uint32_t forkingTid) const
{
    std::string meta = m_domainRecords;
    for (const auto& [key, nameId] : m_categoryNames) {
        proto::CategoryNameRecord r{};
        r.header = {static_cast<std::uint16_t>(proto::RecordType::CategoryName), sizeof r};
        r.domain = key.first;
        r.category = key.second;
        r.nameId = nameId;
        appendPod(meta, r);
    }
    // Only the forking thread exists in the child, under a new tid.
    if (auto it = m_threadNames.find(m_forkingOldTid); it != m_threadNames.end()) {
        proto::ThreadInfoRecord r{};
        r.header = {static_cast<std::uint16_t>(proto::RecordType::ThreadInfo), sizeof r};
        r.tid = forkingTid;
        r.nameId = it->second;
        appendPod(meta, r);
    }
    return meta;
}

} // namespace spanscope::collector
