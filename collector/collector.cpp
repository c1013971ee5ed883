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

// Default caps on queued records (MiB), over all threads of a process: what absorbs a
// delayed sender, and what lossless mode may queue for a slow viewer.
constexpr std::uint64_t kDefaultQueueCapMiB = 64;
constexpr std::uint64_t kDefaultLosslessQueueCapMiB = 1024;

} // namespace

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
    m_clock.anchor(readClockPair());
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
