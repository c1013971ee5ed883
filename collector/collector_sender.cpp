// The collector's sender thread (collector.h): drains the threads' queues, puts records,
// definitions and Dropped counts into frames and sends them, every few milliseconds or when
// a thread wakes it; at exit, the last flushes and the End frame.
#include "collector.h"

#include "collector_alloc.h"

#include "clock.h"
#include "collector_internal.h"
#include "protocol/spanscope_protocol.h"
#include "sink.h"

#include <chrono>
#include <cstdio>
#include <cstring>

namespace spanscope::collector {

namespace proto = spanscope::protocol;

namespace {

// Sender cadence: a busy thread fills a few blocks (ThreadBuffer::kSmallBlockBytes) meanwhile.
constexpr auto kSendInterval = std::chrono::milliseconds(5);
// A calibration goes with every frame of records, and at least this often without (ns).
constexpr std::uint64_t kCalibrationIntervalNs = 1000000000;
// How long the sender waits for a slow viewer before dropping a frame (ms). Only the sender
// waits; the job's threads never do (their queues absorb the delay or drop and count).
constexpr int kSendWaitMs = 20;
// In lossless mode the sender waits for the viewer this long per frame instead (ms): the
// job's threads queue meanwhile, up to the cap. A viewer that makes no room for a minute
// is stuck; its frames are dropped and counted, as in the default mode.
constexpr int kLosslessSendWaitMs = 60000;
// At exit the sender waits for the viewer as long as it takes bytes, giving up once it took
// none for this long (ms): a viewer busy assembling, or descheduled on a loaded machine, for
// a few hundred milliseconds still gets the last frames whole and the End frame; a stuck
// one holds the job's exit this long once, not once per frame.
constexpr int kExitStallMs = 2000;
// Most bytes taken from one thread's queue per drain: a thread writing as fast as the
// sender reads must not keep it from the other threads and from sending.
constexpr std::size_t kMaxDrainBytes = 16u << 20;
// Above this many bytes of records a Data frame is split (bytes).
constexpr std::size_t kMaxRecordsPerFrame = 1u << 20;

} // namespace

void Collector::appendCalibration(std::string& out)
{
    // The rate is measured from the anchor taken at start; give it at least 1 ms.
    while (!kTicksAreNanoseconds && monotonicNs() - m_clock.anchorNs() < 1000000)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    const proto::ClockCalibrationRecord r = m_clock.calibrate(readClockPair());
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

bool Collector::flush(int waitMs, bool final)
{
    std::lock_guard flushLock(m_flushMutex);
    if (m_sink->closed())
        return false;
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
    // Read after the drain, so that the viewer maps this frame's records between two pairs
    // (clock_calibrator.h).
    if (!m_records.empty() || monotonicNs() - m_lastCalibrationNs >= kCalibrationIntervalNs || final)
        appendCalibration(m_essential);
    AllocTap::appendTotals(m_essential, ticks(), final);

    bool gaveUpWaiting = false;
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
            if (waitMs > 0 && m_sink->holdsPartOfAFrame()) { // sent in part, then waited in vain
                gaveUpWaiting = true;
                waitMs = 0;
            }
        } else {
            // Definitions stay queued for the next frame, and so do the records that close
            // ranges already sent (m_kept, sent before anything newer); the rest is lost,
            // whole ranges only, and counted.
            const std::size_t lost = m_pairs.dropped(records.data(), records.size(), m_kept);
            m_pendingDropped += lost;
            m_totalDropped += lost;
            if (m_sink->closed()) {
                m_records.clear();
                return false;
            }
            gaveUpWaiting = gaveUpWaiting || waitMs > 0;
            waitMs = 0; // the viewer is stuck: do not wait again for the rest of this batch
        }
        pos = end;
    } while (pos < m_records.size());
    m_records.clear();
    return gaveUpWaiting;
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
        // The exit flush waits for a slow viewer (see kExitStallMs), so the last records, the
        // final Dropped count and the End frame get there, and no frame is cut in the middle.
        // Lossless: everything queued goes out, waiting for the viewer as long as it makes
        // progress.
        int waitMs = m_queue.lossless ? kLosslessSendWaitMs : kExitStallMs;
        // As many flushes as what is queued now takes, no more: a thread still recording
        // while the process exits must not keep it here.
        std::uint64_t flushes = m_queue.bytes.load() / kMaxDrainBytes + 2;
        do
            if (flush(waitMs, true))
                waitMs = 0; // the viewer is stuck: the job's exit waits for it once only
        while (m_drainIncomplete && !m_sink->closed() && --flushes > 0);
        if (m_pendingDropped > 0 || !m_essential.empty() || !m_kept.empty())
            flush(waitMs, false); // one more try for the last definitions and Dropped count
        // End means "everything was accounted for": only after all of it went out.
        if (!m_sink->closed() && m_pendingDropped == 0 && m_essential.empty() && m_kept.empty())
            sendFrame(static_cast<std::uint16_t>(proto::FrameType::End), {}, waitMs);
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

} // namespace spanscope::collector
