#pragma once
// A fake device for the device-window tests (tests/collector/tst_device_window.cpp): one
// timeline per stream that runs only when the host waits for it, a launch latency charged
// after a drained stream (so an implementation that synchronized in start() or stop() shows
// durations that grow), events that can be made to fail, and the event backend over it.

#include "spanscope/device_window.h"

#include <QTest>
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <vector>

namespace spanscope::testing {

constexpr int kNotReadyCode = 600;
constexpr int kWouldBlockCode = 999; // synchronize() on an unreached event while blocking is off
constexpr int kFakeDevice = 3;
constexpr std::int64_t kLatencyNs = 5000; // launch latency after a drained stream

// A device with one timeline per stream. Thread-safe.
class FakeDevice
{
public:
    struct Record
    {
        int event, stream;
        std::int64_t stamp;
    };

    // Enqueues `ns` of work on `stream` (a kernel).
    void launch(int stream, std::int64_t ns)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        enqueue(stream);
        m_streams[stream].tail += ns;
    }
    // Gated mode: the device has run every stream up to device time `t`.
    void advanceTo(std::int64_t t)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_floor = std::max(m_floor, t);
        for (auto& entry : m_streams)
            entry.second.done = std::max(entry.second.done, t);
        m_changed.notify_all();
    }
    // Blocks until a synchronize() is parked on `event`, or until `stop` holds.
    void waitUntilParkedOn(int event, const std::atomic<bool>& stop)
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_changed.wait(lock, [&] { return m_parkedOn.count(event) != 0 || stop.load(); });
    }
    void wake()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_changed.notify_all();
    }

    // Settings.
    void setAutoRun(bool on) { set(m_autoRun, on); }   // synchronize() runs the stream itself
    void setBlocking(bool on) { set(m_blocking, on); } // off: synchronize() fails, no parking
    void setLatency(std::int64_t ns) { set(m_latencyNs, ns); }
    void failCreate(int nth, int code) // the nth create() from now fails with `code`
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_failCreateIn = nth;
        m_failCreateCode = code;
    }
    void failNextRecord(int code) { set(m_failRecordCode, code); }
    void failNextSynchronize(int code) { set(m_failSyncCode, code); }
    void onSynchronize(std::function<void()> hook) { set(m_onSync, std::move(hook)); }

    // Observations.
    int created() const { return get(m_created); }
    int destroyed() const { return get(m_destroyed); }
    int records() const { return get(m_recordCount); }
    int synchronizes() const { return get(m_syncCount); }
    int refusedBlocks() const { return get(m_refusedBlocks); }
    std::vector<Record> recordLog() const { return get(m_log); }
    std::int64_t stampOf(int event) const
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_events.at(event).stamp;
    }

    // The backend's calls.
    int create(int& event)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_failCreateIn > 0 && --m_failCreateIn == 0)
            return m_failCreateCode;
        m_events.emplace_back();
        event = int(m_events.size()) - 1;
        ++m_created;
        return 0;
    }
    void destroy(int event)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        Event& e = m_events.at(event);
        QVERIFY(e.alive);
        e.alive = false;
        ++m_destroyed;
    }
    int record(int event, int stream)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_failRecordCode) {
            const int code = m_failRecordCode;
            m_failRecordCode = 0;
            return code;
        }
        Event& e = m_events.at(event);
        if (!e.alive)
            return 400;
        ++m_recordCount;
        enqueue(stream);
        e.recorded = true;
        e.stream = stream;
        e.stamp = m_streams[stream].tail;
        m_log.push_back({event, stream, e.stamp});
        return 0;
    }
    int query(int event)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return reached(m_events.at(event)) ? 0 : kNotReadyCode;
    }
    int synchronize(int event)
    {
        std::function<void()> hook;
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            ++m_syncCount;
            if (m_failSyncCode) {
                const int code = m_failSyncCode;
                m_failSyncCode = 0;
                return code;
            }
            Event& e = m_events.at(event);
            if (!e.alive || !e.recorded)
                return 400;
            Stream& s = m_streams[e.stream];
            if (m_autoRun) {
                s.done = std::max(s.done, e.stamp);
            } else if (!reached(e)) {
                if (!m_blocking) {
                    ++m_refusedBlocks;
                    return kWouldBlockCode;
                }
                m_parkedOn.insert(event);
                m_changed.notify_all();
                m_changed.wait(lock, [&] { return reached(m_events.at(event)); });
                m_parkedOn.erase(m_parkedOn.find(event));
            }
            hook = m_onSync;
        }
        if (hook)
            hook();
        return 0;
    }
    int elapsedMs(int start, int end, double& ms)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        const Event& a = m_events.at(start);
        const Event& b = m_events.at(end);
        if (!a.recorded || !b.recorded)
            return 400;
        if (!reached(a) || !reached(b))
            return kNotReadyCode;
        ms = double(b.stamp - a.stamp) / 1e6;
        return 0;
    }

private:
    struct Event
    {
        bool alive = true, recorded = false;
        int stream = -1;
        std::int64_t stamp = 0; // device ns at which the stream reaches it
    };
    struct Stream
    {
        std::int64_t tail = 0; // device ns at which everything queued so far is done
        std::int64_t done = 0; // how far the device has run this stream
    };
    bool reached(const Event& e) const
    {
        const auto it = m_streams.find(e.stream);
        return e.recorded && it != m_streams.end() && it->second.done >= e.stamp;
    }
    void enqueue(int stream)
    {
        auto [it, added] = m_streams.try_emplace(stream);
        if (added)
            it->second.done = it->second.tail = m_floor;
        Stream& s = it->second;
        if (s.tail <= s.done) // drained: the next item waits for its launch
            s.tail = s.done + m_latencyNs;
    }
    template <typename T, typename V> void set(T& field, V value)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        field = std::move(value);
    }
    template <typename T> T get(const T& field) const
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return field;
    }

    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<Event> m_events; // handle = index
    std::map<int, Stream> m_streams;
    std::multiset<int> m_parkedOn;
    std::vector<Record> m_log;
    std::int64_t m_floor = 0, m_latencyNs = kLatencyNs;
    bool m_autoRun = true, m_blocking = true;
    int m_failCreateIn = 0, m_failCreateCode = 0, m_failRecordCode = 0, m_failSyncCode = 0;
    int m_created = 0, m_destroyed = 0, m_recordCount = 0, m_syncCount = 0, m_refusedBlocks = 0;
    std::function<void()> m_onSync;
};

struct FakeBackend
{
    using Event = int;
    using Stream = int;
    static constexpr int kNotReady = kNotReadyCode;

    FakeDevice* fake = nullptr;

    int create(Event& event) { return fake->create(event); }
    void destroy(Event event) { fake->destroy(event); }
    int record(Event event, Stream stream) { return fake->record(event, stream); }
    int query(Event event) { return fake->query(event); }
    int synchronize(Event event) { return fake->synchronize(event); }
    int elapsedMs(Event start, Event end, double& ms) { return fake->elapsedMs(start, end, ms); }
    int device() { return kFakeDevice; }
    std::uint64_t streamId(Stream stream) { return std::uint64_t(stream) + 0x1000; }
};

} // namespace spanscope::testing
