#include "collector.h"

#include "collector_alloc.h"

#include "clock.h"
#include "collector_internal.h"
#include "protocol/spanscope_protocol.h"
#include "sink.h"

#include <cerrno>
#include <dlfcn.h>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace spanscope::collector {

namespace proto = spanscope::protocol;

std::atomic<Collector*> Collector::s_instance{nullptr};
constinit thread_local ThreadBuffer* Collector::t_buffer = nullptr;

std::mutex g_startMutex;
std::atomic<bool> g_logged{false};

namespace {

bool g_startTried = false;
pthread_key_t g_threadKey;

// Sender cadence: a busy thread fills a few blocks (ThreadBuffer::kSmallBlockBytes) meanwhile.
constexpr auto kSendInterval = std::chrono::milliseconds(5);
constexpr std::uint64_t kCalibrationIntervalNs = 1000000000; // 1 s
// How long the sender waits for a slow viewer before dropping a frame (ms). Only the sender
// waits; the job's threads never do (their queues absorb the delay or drop and count).
constexpr int kSendWaitMs = 20;
// In lossless mode the sender waits for the viewer this long per frame instead (ms): the
// job's threads queue meanwhile, up to the cap. A viewer that makes no room for a minute
// is stuck; its frames are dropped and counted, as in the default mode.
constexpr int kLosslessSendWaitMs = 60000;
// Default caps on queued records (MiB), over all threads of a process: what absorbs a
// delayed sender, and what lossless mode may queue for a slow viewer.
constexpr std::uint64_t kDefaultQueueCapMiB = 64;
constexpr std::uint64_t kDefaultLosslessQueueCapMiB = 1024;
// Most bytes taken from one thread's queue per drain: a thread writing as fast as the
// sender reads must not keep it from the other threads and from sending.
constexpr std::size_t kMaxDrainBytes = 16u << 20;
// Above this many bytes of records a Data frame is split (bytes).
constexpr std::size_t kMaxRecordsPerFrame = 1u << 20;

// Writes one line to stderr without raising SIGPIPE: the job's stderr may be a pipe to a
// viewer that died, and a message of the collector must not kill the job. SIGPIPE is held
// in this thread for the write, and the one the write raised (if any) is taken back.
void writeLine(const char* text)
{
    const int savedErrno = errno;
    sigset_t pipe, previous, pending;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &previous);
    sigpending(&pending);
    const bool alreadyPending = sigismember(&pending, SIGPIPE) == 1;
    for (std::size_t left = std::strlen(text); left > 0;) {
        const ssize_t n = ::write(STDERR_FILENO, text, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        text += n;
        left -= std::size_t(n);
    }
    if (!alreadyPending) {
        const timespec now{};
        while (sigtimedwait(&pipe, nullptr, &now) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    errno = savedErrno;
}

} // namespace

void Collector::logOnce(const char* message)
{
    if (g_logged.exchange(true))
        return;
    char line[512];
    std::snprintf(line, sizeof line, "spanscope-collector: %s\n", message);
    writeLine(line);
}

void Collector::switchOff(const char* reason)
{
    m_enabled.store(false, std::memory_order_relaxed);
    logOnce(reason);
}

Collector* Collector::start()
{
    std::lock_guard lock(g_startMutex);
    if (g_startTried)
        return instance();
    g_startTried = true;
    // Leaked on purpose: late NVTX calls from static destructors may still reach it.
    auto* c = new (std::nothrow) Collector();
    if (!c)
        return nullptr;
    try {
        if (!c->init()) {
            delete c;
            return nullptr;
        }
    } catch (...) {
        logOnce("could not start (out of memory?); collector off");
        return nullptr;
    }
    s_instance.store(c, std::memory_order_release);
    exportToGlobalScope();
    return c;
}

void Collector::exportToGlobalScope()
{
    // NVTX and the CUDA driver dlopen their injection without RTLD_GLOBAL, so the entry
    // points users' code may look up (spanscope_report_device_window of
    // <spanscope/device_window.h>) would be out of dlsym(RTLD_DEFAULT)'s sight. Reopening
    // ourselves with RTLD_NOLOAD | RTLD_GLOBAL moves this library into the global scope
    // without loading anything.
    Dl_info self{};
    if (dladdr(reinterpret_cast<void*>(&Collector::exportToGlobalScope), &self) && self.dli_fname)
        dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
}

Collector::~Collector()
{
    delete m_sink;
}

bool Collector::init()
{
    if (!m_strings.valid()) {
        logOnce("cannot allocate the string table; collector off");
        return false;
    }
    m_pid = getpid();
    AllocTap::attach(); // before any thread of ours allocates
    if (!openSink())
        return false;
    configureQueue();
    if (pthread_key_create(&g_threadKey, &Collector::threadExited) != 0) {
        logOnce("pthread_key_create failed; collector off");
        return false;
    }
    m_anchorTicks = ticks();
    m_anchorNs = monotonicNs();
    if (!startStreaming())
        return false;
    pthread_atfork(&Collector::atForkPrepare, &Collector::atForkParent, &Collector::atForkChild);
    std::atexit(&Collector::atExit);
    m_enabled.store(true, std::memory_order_release);
    return true;
}

void Collector::configureQueue()
{
    // SPANSCOPE_LOSSLESS=1: the sender waits for a slow viewer rather than drop frames,
    // and the threads queue meanwhile up to a larger cap. SPANSCOPE_QUEUE_CAP_MB sets the
    // cap (MiB over the process) in either mode.
    const char* lossless = std::getenv("SPANSCOPE_LOSSLESS");
    m_queue.lossless = lossless && *lossless && std::strcmp(lossless, "0") != 0;
    std::uint64_t capMiB = m_queue.lossless ? kDefaultLosslessQueueCapMiB : kDefaultQueueCapMiB;
    if (const char* cap = std::getenv("SPANSCOPE_QUEUE_CAP_MB"); cap && *cap) {
        char* end = nullptr;
        const unsigned long long value = std::strtoull(cap, &end, 10);
        if (end && *end == '\0' && value > 0 && value <= (1ull << 24))
            capMiB = value;
        else
            // Not logOnce: that says why the collector stops, which may still come.
            writeLine("spanscope-collector: SPANSCOPE_QUEUE_CAP_MB is not a number of MiB "
                      "between 1 and 16777216; using the default\n");
    }
    m_queue.capBytes = capMiB << 20;
}

bool Collector::openSink()
{
    auto sink = std::make_unique<Sink>();
    std::string error;
    const char* socketPath = std::getenv("SPANSCOPE_SOCKET");
    const char* outputPath = std::getenv("SPANSCOPE_OUTPUT");
    const char* outputDir = std::getenv("SPANSCOPE_OUTPUT_DIR");
    bool opened = false;
    if (socketPath && *socketPath) {
        opened = sink->connectSocket(socketPath, error);
        m_perProcessSink = true; // every process connects on its own
    } else if (outputDir && *outputDir) {
        // One stream per process: every process of the job that loads NVTX gets its own.
        opened = sink->openFileIn(outputDir, std::to_string(m_pid), error);
        m_perProcessSink = true;
    } else if (outputPath && *outputPath) {
        opened = sink->openFile(outputPath, error);
        m_perProcessSink = false; // one file: a forked child cannot have a stream of its own
    } else {
        error = "none of SPANSCOPE_SOCKET, SPANSCOPE_OUTPUT_DIR and SPANSCOPE_OUTPUT is set";
    }
    if (!opened) {
        logOnce((error + "; collector off").c_str());
        return false;
    }
    m_sink = sink.release();
    return true;
}

bool Collector::startStreaming()
{
    m_startTicks = ticks();
    proto::HelloPayload hello{static_cast<std::uint32_t>(m_pid), 0, m_startTicks};
    sendFrame(static_cast<std::uint16_t>(proto::FrameType::Hello),
              {std::string_view(reinterpret_cast<const char*>(&hello), sizeof hello)}, 1000);
    if (m_sink->closed())
        return false; // already logged by sendFrame

    // The sender must not take the job's signals: block them all while creating it.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    m_senderRunning.store(false, std::memory_order_relaxed);
    try {
        m_sender = std::thread([this] {
            m_senderRunning.store(true, std::memory_order_release);
            senderLoop();
        });
    } catch (...) {
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
        logOnce("cannot start the sender thread; collector off");
        return false;
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    // Once, on the process's first NVTX call: wait (tens of microseconds) until the sender
    // runs, so a fork right after this call cannot catch it half started. A thread start
    // may hold a runtime's allocator lock (AddressSanitizer's does), which the child would
    // inherit held.
    while (!m_senderRunning.load(std::memory_order_acquire))
        std::this_thread::yield();
    return true;
}

ThreadBuffer* Collector::registerThread()
{
    if (!enabled())
        return nullptr;
    try {
        const auto tid = static_cast<std::uint32_t>(syscall(SYS_gettid));
        const CollectorAllocations quiet;
        std::lock_guard lock(m_threadsMutex);
        auto* b = new ThreadBuffer(tid, m_nextIndex++, &Collector::wakeSender, m_queue);
        AllocTap::startThread(b);
        m_threads.push_back(b);
        t_buffer = b;
        pthread_setspecific(g_threadKey, b);
        return b;
    } catch (...) {
        switchOff("cannot allocate a thread buffer; collector off");
        return nullptr;
    }
}

void Collector::wakeSender()
{
    // notify_one without the mutex: no syscall unless the sender is waiting. A wake lost
    // while the sender is busy costs nothing: it drains again right after.
    if (Collector* c = instance())
        c->m_wake.notify_one();
}

void Collector::threadExited(void* buffer)
{
    // Later NVTX calls on this thread (other TLS destructors) are ignored.
    t_buffer = retiredMarker();
    auto* b = static_cast<ThreadBuffer*>(buffer);
    if (Collector* c = instance()) {
        std::lock_guard lock(c->m_metaMutex);
        c->m_threadNames.erase(b->tid()); // its name went out already; a fork cannot need it
    }
    b->retired.store(true, std::memory_order_release);
}

std::uint32_t Collector::domainId(std::string_view name)
{
    const CollectorAllocations quiet;
    try {
        const std::uint32_t nameId = m_strings.intern(name);
        std::lock_guard lock(m_metaMutex);
        auto [it, inserted] =
            m_domains.emplace(std::string(name), static_cast<std::uint32_t>(m_domains.size() + 1));
        if (inserted) {
            proto::DomainCreateRecord r{};
            r.header = {static_cast<std::uint16_t>(proto::RecordType::DomainCreate), sizeof r};
            r.domain = it->second;
            r.nameId = nameId;
            appendPod(m_meta, r);
            appendPod(m_domainRecords, r);
        }
        return it->second;
    } catch (...) {
        switchOff("out of memory registering a domain; collector off");
        return 0;
    }
}

void Collector::appendMeta(const void* record, std::size_t size)
{
    try {
        std::lock_guard lock(m_metaMutex);
        m_meta.append(static_cast<const char*>(record), size);
    } catch (...) {
        switchOff("out of memory; collector off");
    }
}

void Collector::setMetadata(std::string_view key, std::string_view value)
{
    const CollectorAllocations quiet;
    proto::MetadataRecord r{};
    proto::setRecordHeader(r, proto::RecordType::Metadata);
    r.keyId = m_strings.intern(key);
    r.valueId = m_strings.intern(value);
    if (r.keyId != 0)
        appendMeta(&r, sizeof r);
}

void Collector::runSenderHook()
{
    if (void (*hook)() = m_senderHook.load(std::memory_order_acquire))
        hook();
}

void Collector::nameCategory(std::uint32_t domain, std::uint32_t category, std::uint32_t nameId)
{
    const CollectorAllocations quiet;
    proto::CategoryNameRecord r{};
    r.header = {static_cast<std::uint16_t>(proto::RecordType::CategoryName), sizeof r};
    r.domain = domain;
    r.category = category;
    r.nameId = nameId;
    appendMeta(&r, sizeof r);
    try {
        std::lock_guard lock(m_metaMutex);
        m_categoryNames[{domain, category}] = nameId;
    } catch (...) {
    }
}

void Collector::nameThread(std::uint32_t tid, std::uint32_t nameId)
{
    const CollectorAllocations quiet;
    proto::ThreadInfoRecord r{};
    r.header = {static_cast<std::uint16_t>(proto::RecordType::ThreadInfo), sizeof r};
    r.tid = tid;
    r.nameId = nameId;
    appendMeta(&r, sizeof r);
    try {
        std::lock_guard lock(m_metaMutex);
        m_threadNames[tid] = nameId;
    } catch (...) {
    }
}

void Collector::appendCalibration(std::string& out)
{
    proto::ClockCalibrationRecord r{};
    r.header = {static_cast<std::uint16_t>(proto::RecordType::ClockCalibration), sizeof r};
    // The rate is measured since the anchor taken at start; give it at least 1 ms.
    while (!kTicksAreNanoseconds && monotonicNs() - m_anchorNs < 1000000)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    r.ticks = ticks();
    r.monotonicNs = monotonicNs();
    if (kTicksAreNanoseconds)
        m_ticksPerSecond = 1e9;
    else if (r.monotonicNs > m_anchorNs)
        m_ticksPerSecond =
            double(r.ticks - m_anchorTicks) * 1e9 / double(r.monotonicNs - m_anchorNs);
    r.ticksPerSecond = m_ticksPerSecond;
    m_lastCalibrationNs = r.monotonicNs;
    appendPod(out, r);
}

bool Collector::sendFrame(std::uint16_t type, std::initializer_list<std::string_view> parts,
                          int waitMs)
{
    proto::FrameHeader h{};
    std::memcpy(h.magic, proto::kMagic, 4);
    h.version = proto::kVersion;
    h.type = type;
    iovec iov[8];
    int count = 0;
    iov[count++] = {&h, sizeof h};
    std::size_t payloadBytes = 0;
    for (std::string_view part : parts) {
        if (part.empty() || count == 8)
            continue;
        iov[count++] = {const_cast<char*>(part.data()), part.size()};
        payloadBytes += part.size();
    }
    h.payloadBytes = static_cast<std::uint32_t>(payloadBytes);
    switch (m_sink->send(iov, count, waitMs)) {
    case Sink::Result::Sent:
        return true;
    case Sink::Result::Dropped:
        return false;
    case Sink::Result::Closed:
        switchOff("the viewer went away or the output failed; capture stopped");
        return false;
    }
    return false;
}

void Collector::drainQueues()
{
    m_drainIncomplete = false;
    std::uint64_t queueDrops = 0;
    std::lock_guard lock(m_threadsMutex);
    for (std::size_t i = 0; i < m_threads.size();) {
        ThreadBuffer* b = m_threads[i];
        const bool retired = b->retired.load(std::memory_order_acquire);
        // A retired thread writes no more: take all of it.
        if (b->drain(m_records, retired ? SIZE_MAX : kMaxDrainBytes) >= kMaxDrainBytes && !retired)
            m_drainIncomplete = true;
        const std::uint64_t dropped = b->dropped();
        queueDrops += dropped - b->senderSeenDropped;
        b->senderSeenDropped = dropped;
        if (retired) {
            m_threads[i] = m_threads.back();
            m_threads.pop_back();
            delete b;
        } else {
            b->provision();
            ++i;
        }
    }
    m_pendingDropped += queueDrops;
    m_totalDropped += queueDrops;
}

void Collector::flush(int waitMs, bool final)
{
    std::lock_guard flushLock(m_flushMutex);
    if (m_sink->closed())
        return;
    // Thread records first, then meta, then the string count: every string a record or a
    // meta record refers to was interned (and counted, see StringTable::intern) before that
    // record was published, so it is among this batch's definitions. The definitions go
    // first in the frame: strings, then meta.
    drainQueues();
    {
        std::lock_guard lock(m_metaMutex);
        m_metaBatch.swap(m_meta);
    }
    const std::uint32_t stringCount = m_strings.count();
    for (; m_sentStrings < stringCount; ++m_sentStrings) {
        const StringTable::Entry* e = m_strings.entry(m_sentStrings);
        proto::StringDefRecord r{};
        r.header = {static_cast<std::uint16_t>(proto::RecordType::StringDef),
                    static_cast<std::uint16_t>(proto::stringDefSize(e->length))};
        r.id = m_sentStrings;
        r.length = e->length;
        appendPod(m_essential, r);
        m_essential.append(e->text, e->length);
        m_essential.append(r.header.size - sizeof r - e->length, '\0');
    }
    m_essential += m_metaBatch;
    m_metaBatch.clear();
    if (monotonicNs() - m_lastCalibrationNs >= kCalibrationIntervalNs || final)
        appendCalibration(m_essential);
    AllocTap::appendTotals(m_essential, ticks(), final);

    std::size_t pos = 0;
    do {
        // Split at record boundaries so no frame grows past kMaxRecordsPerFrame of records.
        std::size_t end = pos;
        while (end < m_records.size() && end - pos < kMaxRecordsPerFrame) {
            proto::RecordHeader h;
            std::memcpy(&h, m_records.data() + end, sizeof h);
            end += h.size;
        }
        // Pops and ends of ranges whose opening record was dropped go with it.
        std::size_t size = end - pos;
        const std::size_t closersOfLost = m_pairs.prepare(m_records.data() + pos, size);
        m_pendingDropped += closersOfLost;
        m_totalDropped += closersOfLost;
        proto::DroppedRecord d{};
        d.header = {static_cast<std::uint16_t>(proto::RecordType::Dropped), sizeof d};
        d.count = m_pendingDropped;
        const std::string_view dropped(reinterpret_cast<const char*>(&d),
                                       m_pendingDropped > 0 ? sizeof d : 0);
        const std::string_view records(m_records.data() + pos, size);
        if (m_essential.empty() && dropped.empty() && m_kept.empty() && records.empty())
            break;
        if (sendFrame(static_cast<std::uint16_t>(proto::FrameType::Data),
                      {m_essential, dropped, m_kept, records}, waitMs)) {
            m_essential.clear();
            m_kept.clear();
            m_pendingDropped = 0;
            m_pairs.sent();
        } else {
            // Definitions stay queued for the next frame, and so do the records that close
            // ranges already sent (m_kept, sent before anything newer); the rest is lost,
            // whole ranges only, and counted.
            const std::size_t lost = m_pairs.dropped(records.data(), records.size(), m_kept);
            m_pendingDropped += lost;
            m_totalDropped += lost;
            if (m_sink->closed()) {
                m_records.clear();
                return;
            }
            waitMs = 0; // the viewer is stuck: do not wait again for the rest of this batch
        }
        pos = end;
    } while (pos < m_records.size());
    m_records.clear();
}

void Collector::senderLoop()
{
    AllocTap::suppress(1); // the sender's allocations are the collector's, never the job's
    // A first rate estimate, over 10 ms against CLOCK_MONOTONIC, goes before any data frame.
    // Meanwhile the queues are drained (and held) every millisecond.
    const std::uint64_t calibrateAt = monotonicNs() + 10000000;
    while (monotonicNs() < calibrateAt) {
        {
            // Wakes early when blocks of a thread wait (see ThreadBuffer::nextBlock).
            std::unique_lock lock(m_wakeMutex);
            if (m_stop)
                break;
            m_wake.wait_for(lock, std::chrono::milliseconds(1));
        }
        std::lock_guard flushLock(m_flushMutex);
        try {
            drainQueues();
        } catch (...) {
            switchOff("out of memory in the sender; capture stopped");
        }
    }
    {
        std::lock_guard flushLock(m_flushMutex);
        appendCalibration(m_essential);
    }
    std::unique_lock lock(m_wakeMutex);
    while (!m_stop) {
        if (!m_drainIncomplete) // else a queue holds more already: no wait
            m_wake.wait_for(lock, kSendInterval);
        if (m_stop)
            break;
        lock.unlock();
        runSenderHook();
        try {
            flush(m_queue.lossless ? kLosslessSendWaitMs : kSendWaitMs, false);
        } catch (...) {
            switchOff("out of memory in the sender; capture stopped");
        }
        lock.lock();
    }
}

void Collector::finish()
{
    {
        std::lock_guard lock(m_wakeMutex);
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_sender.joinable())
        m_sender.join();
    try {
        // The exit flush may wait a little for a slow viewer, so the last records and the
        // final Dropped count have a chance to get there.
        // Lossless: everything queued goes out, waiting for the viewer as long as it makes
        // progress.
        const int waitMs = m_queue.lossless ? kLosslessSendWaitMs : 200;
        // As many flushes as what is queued now takes, no more: a thread still recording
        // while the process exits must not keep it here.
        std::uint64_t flushes = m_queue.bytes.load() / kMaxDrainBytes + 2;
        do
            flush(waitMs, true);
        while (m_drainIncomplete && !m_sink->closed() && --flushes > 0);
        if (m_pendingDropped > 0 || !m_essential.empty() || !m_kept.empty())
            flush(waitMs, false); // one more try for the last definitions and Dropped count
        // End means "everything was accounted for": only after all of it went out.
        if (!m_sink->closed() && m_pendingDropped == 0 && m_essential.empty() && m_kept.empty())
            sendFrame(static_cast<std::uint16_t>(proto::FrameType::End), {}, 200);
    } catch (...) {
    }
    m_enabled.store(false, std::memory_order_relaxed);
    if (m_totalDropped > 0) {
        char line[160];
        std::snprintf(line, sizeof line,
                      "spanscope-collector: %llu records dropped (thread buffers full or the "
                      "viewer did not keep up)\n",
                      static_cast<unsigned long long>(m_totalDropped));
        writeLine(line);
    }
    if (m_queue.lossless) {
        char line[200];
        std::snprintf(line, sizeof line,
                      "spanscope-collector: lossless queue peaked at %.1f MiB of its %.0f MiB cap\n",
                      double(m_queue.peak.load()) / double(1 << 20), double(m_queue.capBytes) / double(1 << 20));
        writeLine(line);
    }
    m_sink->close();
}

void Collector::atExit()
{
    Collector* c = instance();
    if (!c || getpid() != c->m_pid)
        return;
    // What the exiting thread allocated since its last push or pop (or at all, for a
    // thread that never made an NVTX call: its buffer is made now); other threads still
    // running report theirs at their next push or pop, which the stream no longer sees.
    const CollectorAllocations quiet;
    if (ThreadBuffer* b = c->threadBuffer())
        AllocTap::report(b, ticks, b->popReserve());
    c->finish();
}

namespace {
// spanscope-run --alloc preloads the collector too and sets SPANSCOPE_START_AT_LOAD, so a
// program that never calls NVTX still streams its allocations.
__attribute__((constructor)) void startAtLoad()
{
    const char* start = std::getenv("SPANSCOPE_START_AT_LOAD");
    if (start && std::strcmp(start, "1") == 0)
        Collector::start();
}
} // namespace

} // namespace spanscope::collector
