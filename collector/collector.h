// The collector's process-wide state: thread buffers, interned strings, domains, the sender
// thread and the lifecycle (start, thread exit, fork, process exit).
//
// The NVTX callbacks (nvtx_injection.cpp) call in here. Hot-path members are inline and
// lock-free; everything else is rare and may take a mutex. Nothing here throws into the job:
// on trouble it logs once to stderr ("spanscope-collector: ...") and switches itself off.
#pragma once

#include "clock_calibrator.h"
#include "pair_keeper.h"
#include "string_table.h"
#include "thread_buffer.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace spanscope::collector {

class Sink;

class Collector
{
public:
    // Starts the collector once per process (idempotent, thread-safe). Returns the instance,
    // or nullptr when it could not start (the reason was logged).
    static Collector* start();
    // Only runs when starting failed: a running collector is never destroyed (see start()).
    ~Collector();
    // The running instance or nullptr. Any thread.
    static Collector* instance() { return s_instance.load(std::memory_order_acquire); }

    bool enabled() const { return m_enabled.load(std::memory_order_relaxed); }

    // In a child forked without exec, starts the child's own stream on its first NVTX call:
    // a connection of its own to the viewer, or its own file in SPANSCOPE_OUTPUT_DIR, and a
    // sender thread. True once recording; false when the collector stays off here (no fork
    // pending, a single SPANSCOPE_OUTPUT file, or the child's stream could not start).
    // Any thread; the slow path of the NVTX callbacks while the collector is off.
    bool resumeInForkedChild() noexcept;

    // The calling thread's buffer, created on first use; nullptr when the thread is exiting
    // or the collector is off. Any thread (for itself).
    ThreadBuffer* threadBuffer()
    {
        ThreadBuffer* b = t_buffer;
        if (__builtin_expect(b != nullptr, 1))
            return b == retiredMarker() ? nullptr : b;
        return registerThread();
    }

    // The calling thread's buffer if it has one (never creates it); nullptr otherwise.
    ThreadBuffer* existingThreadBuffer() const
    {
        ThreadBuffer* b = t_buffer;
        return b && b != retiredMarker() ? b : nullptr;
    }

    StringTable& strings() { return m_strings; }

    // Rare paths; any thread; take m_metaMutex.
    std::uint32_t domainId(std::string_view name);
    void nameCategory(std::uint32_t domain, std::uint32_t category, std::uint32_t nameId);
    void nameThread(std::uint32_t tid, std::uint32_t nameId);

    // Queues a record the reader must get (definitions, names, metadata): sent at the front
    // of the next frame, never dropped. Any thread; takes m_metaMutex.
    void appendMeta(const void* record, std::size_t size);
    // Queues a Metadata record (key, value). Any thread.
    void setMetadata(std::string_view key, std::string_view value);
    // Called by the sender thread before each flush, outside every collector lock: the CUDA
    // injection pulls CUPTI's finished buffers there. Set once; any thread.
    void setSenderHook(void (*hook)()) { m_senderHook.store(hook, std::memory_order_release); }

    // Logs `message` once per process with the "spanscope-collector: " prefix.
    static void logOnce(const char* message);
    void switchOff(const char* reason);

private:
    Collector() = default;
    bool init();
    static void exportToGlobalScope();
    ThreadBuffer* registerThread();
    static ThreadBuffer* retiredMarker() { return reinterpret_cast<ThreadBuffer*>(1); }
    static void threadExited(void* buffer);
    static void wakeSender();
    static void atExit();
    // pthread_atfork handlers: the collector's locks are taken before a fork and released
    // after it on both sides, so the child never inherits one held by a thread it lacks.
    static void atForkPrepare();
    static void atForkParent();
    static void atForkChild();
    // Opens the destination named by the environment for this process; false if logged.
    bool openSink();
    void configureQueue();
    // Sends Hello and starts the sender thread; false if it could not (logged).
    bool startStreaming();
    // The forked child's side of resumeInForkedChild, under g_startMutex.
    bool restartInChild();
    // Meta records the child's stream must repeat: domains, category names and the name of
    // the thread that forked (which has a new tid there).
    std::string metaForChild(std::uint32_t forkingTid) const;

    void senderLoop();
    // Drains all buffers and sends what they held; a socket may wait `waitMs` for room (once
    // per call). `final` (exit) adds a last clock calibration. True when such a wait ran out
    // (a frame dropped, or the rest of a frame sent in part still held): the viewer took
    // nothing meanwhile.
    bool flush(int waitMs, bool final);
    // Moves each thread queue's records (up to kMaxDrainBytes of each) to m_records and
    // collects drop counts; sets m_drainIncomplete when one holds more. Needs m_flushMutex.
    void drainQueues();
    void appendCalibration(std::string& out);
    void runSenderHook();
    // Sends header + the concatenated parts as one frame; false if it was dropped.
    bool sendFrame(std::uint16_t type, std::initializer_list<std::string_view> parts, int waitMs);
    void finish();

    static std::atomic<Collector*> s_instance;
    // constinit: other files read it without a TLS wrapper call (no dynamic initializer).
    static constinit thread_local ThreadBuffer* t_buffer __attribute__((tls_model("initial-exec")));

    std::atomic<bool> m_enabled{false};
    std::atomic<void (*)()> m_senderHook{nullptr};
    int m_pid = 0; // the process this collector streams for; 0 in a forked child until it resumes
    // Set by atForkChild when the child can have a stream of its own (socket or directory).
    std::atomic<bool> m_forkPending{false};
    ThreadBuffer* m_forkingThread = nullptr; // its buffer, in a child not yet resumed
    std::uint32_t m_forkingOldTid = 0;       // its tid in the parent
    StringTable m_strings;

    QueueBudget m_queue; // memory of every thread's queue, and its mode

    std::mutex m_threadsMutex; // guards m_threads, m_nextIndex
    std::vector<ThreadBuffer*> m_threads;
    std::uint32_t m_nextIndex = 1;

    std::mutex m_metaMutex; // guards m_meta, m_domains and the records below
    std::string m_meta;     // domain, category and thread-name records not yet sent
    // What a forked child's stream must define again (bounded: one entry per domain, per
    // named category, per named thread still running).
    std::string m_domainRecords; // DomainCreate records
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> m_categoryNames; // name ids
    std::unordered_map<std::uint32_t, std::uint32_t> m_threadNames; // tid -> name id
    std::unordered_map<std::string, std::uint32_t> m_domains;

    // Sender thread state.
    Sink* m_sink = nullptr;
    bool m_perProcessSink = false; // a socket or a directory: a forked child can open its own
    std::thread m_sender;
    std::atomic<bool> m_senderRunning{false}; // its start routine runs (see startStreaming)
    std::mutex m_wakeMutex;
    std::condition_variable m_wake;
    bool m_stop = false;     // guarded by m_wakeMutex
    std::mutex m_flushMutex; // one flush at a time (sender loop or exit)
    std::string m_metaBatch; // meta taken from m_meta for the flush in progress
    std::string m_essential; // strings, meta and calibrations that must reach the reader
    std::string m_records;   // drained thread records not yet sent
    bool m_drainIncomplete = false; // the last drain left records in a queue (its limit)
    std::string m_kept;      // from dropped frames: records closing ranges that went out
    PairKeeper m_pairs;      // what a dropped frame may give up (whole ranges only)
    std::uint32_t m_sentStrings = 1;
    std::uint64_t m_pendingDropped = 0; // lost records not yet reported in a Dropped record
    std::uint64_t m_totalDropped = 0;
    // Kept in forked children: the clocks are the machine's. startTicks is when this
    // process's stream started (Hello).
    ClockCalibrator m_clock;
    std::uint64_t m_lastCalibrationNs = 0, m_startTicks = 0;
};

} // namespace spanscope::collector
