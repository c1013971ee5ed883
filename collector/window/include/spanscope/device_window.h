// spanscope device windows: how long a piece of GPU work took on the GPU's own clock, measured
// without draining the stream. Header-only, C++17; with CUDA, include
// <spanscope/device_window_cuda.h> (CMake: find_package(spanscope) +
// target_link_libraries(app PRIVATE spanscope::device_window CUDA::cudart)).
//
//   spanscope::device_window::CudaDeviceWindows windows;   // one per device, made early
//   auto token = windows.start(stream, "attention");        // records an event; no wait
//   launchAttention(stream);
//   if (token) {
//       auto duration = windows.stop(stream, token.value()); // records an event; no wait
//       launchTheRest(stream);                               // more work, other windows
//       if (duration) {
//           auto ns = duration.value().wait();               // blocks until the device got there
//           if (ns)
//               std::printf("attention: %lld ns\n", static_cast<long long>(ns.value()));
//       }
//   }
//
// Why events: a window is two events recorded into the stream where it opens and closes. The
// device stamps each one as the stream reaches it; the host waits for nothing until someone
// asks for the duration. A profiler that reads the host clock has to drain the stream at both
// ends of every window, so an inner window's drains land inside the outer one: the outer
// measurement grows with the number of inner ones and every window reads the launch latency
// the drain exposed. Here an inner window measures its own work and the outer one measures the
// work, not the profiling.
//
// Rules:
//  - start(stream) returns a token, or an error: then no window is open, no token is issued
//    and the caller owes nothing. start() takes both of the window's events from the pool, so
//    stop() never runs out of events.
//  - stop(stream, token) returns at enqueue time a DeviceDuration whose first wait() blocks
//    until the device reached both events; later calls return the same value at once.
//  - Errors (ErrorCode): NotRegistered for a token this object never issued or whose window is
//    already closed or abandoned; DeviceFailure, the error given to failure(), for a window
//    that was open when device work failed; Server when the device refuses an event, the
//    stream will not record one, or wait() cannot read the events; NoEvent when start() cannot
//    get an event. The window is gone in every error case.
//  - failure(error) marks every window open at that moment, and no other: not windows opened
//    later, not closed windows whose duration is not resolved yet. With none open it does
//    nothing, so a failure path can call it unconditionally.
//  - Events go back to the pool as soon as a duration is resolved (or fails), a window fails
//    or is abandoned, or a duration is destroyed unresolved. Nothing else ever destroys one:
//    the pool lives as long as the DeviceWindows object or the last duration it issued.
//  - Anchor: device times are placed on the host's CLOCK_MONOTONIC by one anchor event. The
//    first start() (or placeAnchor()) records it, synchronizes it once (the one drain this
//    object ever does) and notes CLOCK_MONOTONIC when that returns. A device time is then
//    anchorHostNs + (event - anchor event) on the device clock. Its error:
//      * an offset: the device reached the anchor at most AnchorInfo::uncertaintyNs before it
//        was noted (typically the synchronize's wake-up, microseconds, when the stream was
//        idle; the whole queued work when it was not: place the anchor at a quiet moment);
//      * a drift: the two clocks run from different oscillators (and NTP steers the host's),
//        so placements drift by their rate difference, typically a few ppm: a few µs per
//        second since the anchor;
//      * rounding: CUDA reports elapsed time as a float of ms, whose step doubles with the
//        span: about 1 µs at 16 s after the anchor, 60 µs at 1000 s.
//    For a long run, make a new DeviceWindows object now and then: it anchors afresh.
//    Durations are not affected: they are the device-clock span between two nearby events.
//  - When the process runs under spanscope's collector, every window is reported to it once,
//    when its duration is first resolved, and appears on the "device windows" track with its
//    host and device durations (see <spanscope/device_window_report.h>).
// Thread safety: all members of DeviceWindows may be called from any thread at once (a mutex;
// this is not a hot path). A token may be stopped on another thread than the one that started
// it. A DeviceDuration is a value: one thread at a time, movable across threads.
// One DeviceWindows object serves one device: give it streams of that device only.
#pragma once

#include "device_window_report.h"
#include "device_window_result.h"

#include <atomic>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <dlfcn.h>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#ifndef RTLD_DEFAULT // glibc defines it only with _GNU_SOURCE (which g++ and clang++ set)
#define RTLD_DEFAULT ((void*)0)
#endif

namespace spanscope::device_window {

// ---------------------------------------------------------------------------------------------
// Values

// Names an open window of one DeviceWindows object. A default token was never issued.
class WindowToken
{
public:
    WindowToken() = default;
    friend bool operator==(WindowToken a, WindowToken b)
    {
        return a.m_owner == b.m_owner && a.m_id == b.m_id;
    }
    friend bool operator!=(WindowToken a, WindowToken b) { return !(a == b); }

private:
    template <typename Backend> friend class DeviceWindows;
    WindowToken(std::uint64_t owner, std::uint64_t id) : m_owner(owner), m_id(id) {}
    std::uint64_t m_owner = 0; // the issuing object's serial number in this process; 0 = none
    std::uint64_t m_id = 0;    // unique within that object
};

// One resolved window. All times in ns; the host and placed device times on CLOCK_MONOTONIC.
struct WindowTimes
{
    std::int64_t hostStartNs = 0;    // when start() had enqueued the opening event
    std::int64_t hostEndNs = 0;      // when stop() had enqueued the closing event
    std::int64_t deviceStartNs = -1; // when the device reached the opening event; -1 = unknown
    std::int64_t deviceEndNs = -1;   // when it reached the closing one; -1 = unknown
    std::int64_t deviceNs = 0;       // between the two events, on the device clock
};

// The anchor that places device times on CLOCK_MONOTONIC (see the rules above).
struct AnchorInfo
{
    bool placed = false;
    std::int64_t hostNs = -1;        // CLOCK_MONOTONIC when the anchor's synchronize returned
    std::int64_t uncertaintyNs = -1; // from just before the anchor was recorded to hostNs: the
                                     // device reached it somewhere in that span
};

using ReportFunction = spanscope_report_device_window_fn;
using HostClock = std::int64_t (*)(); // ns

struct Options
{
    // Receives each window once, when its duration is first resolved, on the thread that
    // resolved it, outside any lock; it must copy what it keeps. nullptr (the default):
    // spanscope's collector when the process runs under it, else nobody. To report nowhere,
    // pass a function that does nothing.
    ReportFunction reporter = nullptr;
    // The host clock in ns. nullptr (the default): CLOCK_MONOTONIC, which the collector and
    // the report expect; another one is for tests.
    HostClock hostClock = nullptr;
    // At most this many events alive at once, the anchor's included (each open window or
    // unresolved duration holds two). 0 = no limit.
    std::size_t maxEvents = 0;
};

// The collector's spanscope_report_device_window, or nullptr when the process does not run
// under spanscope. Looked up again while not found (NVTX loads the collector at the first
// NVTX call, which may come after the first window); once found, never again.
inline ReportFunction collectorReporter()
{
    static std::atomic<ReportFunction> found{nullptr};
    ReportFunction reporter = found.load(std::memory_order_acquire);
    if (!reporter) {
        // The collector puts itself in the global scope when it starts (NVTX and the CUDA
        // driver load it privately).
        reporter = reinterpret_cast<ReportFunction>(dlsym(RTLD_DEFAULT, SPANSCOPE_REPORT_DEVICE_WINDOW_SYMBOL));
        if (reporter)
            found.store(reporter, std::memory_order_release);
    }
    return reporter;
}

// ---------------------------------------------------------------------------------------------
// The event backend
//
// DeviceWindows<Backend> is written over this interface (CudaEventBackend in
// <spanscope/device_window_cuda.h>; tests use a fake one). Non-zero returns are the backend's
// error codes and reach the user as Error::backendCode. Every member may be called from
// several threads at once.
//
//   struct Backend {
//       using Event = ...;                      // copyable, default-constructible handle
//       using Stream = ...;                     // copyable handle
//       static constexpr int kNotReady = ...;   // query(): recorded, not reached yet
//       int create(Event& event);               // a new event that can be timed; 0 = success
//       void destroy(Event event);
//       int record(Event event, Stream stream); // enqueue it: the device stamps it when the
//                                               // stream reaches it; may be recorded again
//       int query(Event event);                 // 0 = reached, kNotReady = not yet, else error
//       int synchronize(Event event);           // block the caller until reached; 0 = success
//       int elapsedMs(Event start, Event end, double& ms); // end - start on the device clock,
//                                               // both reached; may be negative
//       int device();                           // the device ordinal for reports, -1 = unknown
//       std::uint64_t streamId(Stream stream);  // the handle as an integer, 0 = legacy default
//   };

template <typename Backend> class DeviceWindows;
template <typename Backend> class DeviceDuration;

namespace detail {

inline std::int64_t monotonicNs()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

inline std::uint64_t nextObjectSerial()
{
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
}

inline std::int64_t msToNs(double ms)
{
    return static_cast<std::int64_t>(std::llround(ms * 1e6));
}

// A window from start() until it is closed, abandoned or resolved.
template <typename Event> struct Window
{
    Event start{}, end{}; // opening event (recorded) and closing event (reserved at start)
    bool holdsEvents = false;
    std::uint64_t stream = 0; // Backend::streamId of the opening stream
    std::string name;
    bool hasName = false;
    std::int64_t hostStartNs = 0, hostEndNs = 0;
    Event anchor{}; // the object's anchor event (never pooled) and its host time
    std::int64_t anchorHostNs = 0;
    bool failed = false; // failure() was called while it was open
    int failureCode = 0;
};

// What a DeviceWindows object shares with the durations it issued, so that either may go
// first: the backend, the event pool, the open windows and the anchor.
template <typename Backend> struct Shared
{
    using Event = typename Backend::Event;

    Shared(Backend b, const Options& o) : backend(std::move(b)), options(o) {}
    ~Shared()
    {
        for (Event event : idle)
            backend.destroy(event);
        if (anchored.load(std::memory_order_acquire))
            backend.destroy(anchorEvent);
    }
    Shared(const Shared&) = delete;
    Shared& operator=(const Shared&) = delete;

    std::int64_t now() const { return options.hostClock ? options.hostClock() : monotonicNs(); }

    // An idle event, else a new one (created outside the lock).
    Result<Event> acquire()
    {
        {
            std::lock_guard<std::mutex> lock(mutex);
            if (!idle.empty()) {
                const Event event = idle.back();
                idle.pop_back();
                return event;
            }
            if (options.maxEvents != 0 && live >= options.maxEvents)
                return Error{ErrorCode::NoEvent, 0};
            ++live;
            idle.reserve(live); // so that giving events back never allocates
        }
        Event event{};
        if (const int code = backend.create(event); code != 0) {
            std::lock_guard<std::mutex> lock(mutex);
            --live;
            return Error{ErrorCode::NoEvent, code};
        }
        return event;
    }

    void giveBackLocked(Window<Event>& w)
    {
        if (!w.holdsEvents)
            return;
        idle.push_back(w.start);
        idle.push_back(w.end);
        w.holdsEvents = false;
    }
    void giveBack(Window<Event>& w)
    {
        std::lock_guard<std::mutex> lock(mutex);
        giveBackLocked(w);
    }
    void giveBack(Event event)
    {
        std::lock_guard<std::mutex> lock(mutex);
        idle.push_back(event);
    }

    Backend backend;
    const Options options;
    const std::uint64_t serial = nextObjectSerial();

    std::mutex mutex; // guards the four members below
    std::vector<Event> idle;
    std::size_t live = 0; // created and not destroyed, the anchor's included
    std::unordered_map<std::uint64_t, Window<Event>> open;
    std::uint64_t nextId = 1;

    // Written once under anchorMutex, then read-only; `anchored` publishes them.
    std::mutex anchorMutex;
    std::atomic<bool> anchored{false};
    Event anchorEvent{};
    std::int64_t anchorHostNs = -1;
    std::int64_t anchorUncertaintyNs = -1;
};

} // namespace detail

// ---------------------------------------------------------------------------------------------
// The deferred duration of one closed window

template <typename Backend> class DeviceDuration
{
public:
    DeviceDuration() = default; // empty: wait() answers NotRegistered
    DeviceDuration(DeviceDuration&& other) noexcept { *this = std::move(other); }
    DeviceDuration& operator=(DeviceDuration&& other) noexcept
    {
        if (this != &other) {
            release();
            m_shared = std::move(other.m_shared);
            m_window = std::move(other.m_window);
            m_state = other.m_state;
            m_times = other.m_times;
            m_error = other.m_error;
            other.m_state = State::Empty;
            other.m_window.holdsEvents = false;
        }
        return *this;
    }
    DeviceDuration(const DeviceDuration&) = delete;
    DeviceDuration& operator=(const DeviceDuration&) = delete;
    ~DeviceDuration() { release(); } // unresolved: its events go back to the pool, unreported

    // Whether this refers to a window (false when default-constructed or moved from).
    bool valid() const { return m_state != State::Empty; }

    // Whether wait() would return without blocking. Never blocks.
    bool ready()
    {
        if (m_state != State::Pending)
            return true;
        Backend& b = m_shared->backend;
        return b.query(m_window.start) != Backend::kNotReady &&
               b.query(m_window.end) != Backend::kNotReady;
    }

    // The window's duration on the device clock, in ns. The first call blocks the calling
    // thread until the device reached both events (the device APIs offer no wake-up, only a
    // synchronize that parks the caller: call it where a synchronize would have gone); later
    // calls return the same result at once. Errors: Server when the events cannot be read
    // (a failed kernel usually shows up here), NotRegistered when empty.
    Result<std::int64_t> wait()
    {
        resolve();
        if (m_state == State::Resolved)
            return m_times.deviceNs;
        return currentError();
    }

    // The same, with the window's host times and its device times placed on the host clock.
    Result<WindowTimes> waitTimes()
    {
        resolve();
        if (m_state == State::Resolved)
            return m_times;
        return currentError();
    }

private:
    friend class DeviceWindows<Backend>;
    using Event = typename Backend::Event;
    enum class State { Empty, Pending, Resolved, Failed };

    DeviceDuration(std::shared_ptr<detail::Shared<Backend>> shared, detail::Window<Event>&& window)
        : m_shared(std::move(shared)), m_window(std::move(window)), m_state(State::Pending)
    {
    }

    Error currentError() const
    {
        return m_state == State::Empty ? Error{ErrorCode::NotRegistered, 0} : m_error;
    }

    void resolve()
    {
        if (m_state != State::Pending)
            return;
        Backend& b = m_shared->backend;
        // Both: the two events may have been recorded on different streams.
        int code = b.synchronize(m_window.start);
        if (code == 0)
            code = b.synchronize(m_window.end);
        double ms = 0;
        if (code == 0)
            code = b.elapsedMs(m_window.start, m_window.end, ms);
        if (code != 0) {
            m_error = Error{ErrorCode::Server, code};
            m_state = State::Failed;
            m_shared->giveBack(m_window);
            return;
        }
        m_times.hostStartNs = m_window.hostStartNs;
        m_times.hostEndNs = m_window.hostEndNs;
        m_times.deviceNs = detail::msToNs(ms);
        double sinceAnchorMs = 0;
        if (b.elapsedMs(m_window.anchor, m_window.start, sinceAnchorMs) == 0) {
            m_times.deviceStartNs = m_window.anchorHostNs + detail::msToNs(sinceAnchorMs);
            m_times.deviceEndNs = m_times.deviceStartNs + m_times.deviceNs;
        }
        m_state = State::Resolved;
        m_shared->giveBack(m_window); // before reporting, which may take its time
        report(b);
    }

    void report(Backend& b)
    {
        const ReportFunction reporter =
            m_shared->options.reporter ? m_shared->options.reporter : collectorReporter();
        if (!reporter)
            return;
        spanscope_device_window_report r{};
        r.size = sizeof r;
        r.device = b.device();
        r.stream = m_window.stream;
        r.name = m_window.hasName ? m_window.name.c_str() : nullptr;
        r.hostStartNs = m_times.hostStartNs;
        r.hostEndNs = m_times.hostEndNs;
        r.deviceStartNs = m_times.deviceStartNs;
        r.deviceEndNs = m_times.deviceEndNs;
        r.deviceDurationNs = m_times.deviceNs;
        reporter(&r);
    }

    void release()
    {
        if (m_state == State::Pending)
            m_shared->giveBack(m_window);
    }

    std::shared_ptr<detail::Shared<Backend>> m_shared;
    detail::Window<Event> m_window;
    State m_state = State::Empty;
    WindowTimes m_times{};
    Error m_error{};
};

// ---------------------------------------------------------------------------------------------
// The windows of one device

template <typename Backend> class DeviceWindows
{
public:
    using Event = typename Backend::Event;
    using Stream = typename Backend::Stream;
    using Duration = DeviceDuration<Backend>;

    explicit DeviceWindows(Backend backend = Backend(), const Options& options = Options())
        : m_shared(std::make_shared<detail::Shared<Backend>>(std::move(backend), options))
    {
    }
    // Abandons the windows still open. Durations already issued stay valid (they share the
    // pool, which goes when the last of them does).
    ~DeviceWindows()
    {
        detail::Shared<Backend>& s = *m_shared;
        std::lock_guard<std::mutex> lock(s.mutex);
        for (auto& entry : s.open)
            s.giveBackLocked(entry.second);
        s.open.clear();
    }
    DeviceWindows(const DeviceWindows&) = delete;
    DeviceWindows& operator=(const DeviceWindows&) = delete;

    // Opens a window at the current position of `stream`; `name` (UTF-8, may be null) is
    // copied and reported with the window. Places the anchor first when it is not yet placed
    // (which synchronizes `stream` once). Errors: NoEvent, Server; then no window is open and
    // the events involved are back in the pool.
    Result<WindowToken> start(Stream stream, const char* name = nullptr)
    {
        detail::Shared<Backend>& s = *m_shared;
        if (!s.anchored.load(std::memory_order_acquire)) {
            if (Result<void> anchored = placeAnchor(stream); !anchored)
                return anchored.error();
        }
        detail::Window<Event> w;
        Result<Event> opening = s.acquire();
        if (!opening)
            return opening.error();
        Result<Event> closing = s.acquire();
        if (!closing) {
            s.giveBack(opening.value());
            return closing.error();
        }
        w.start = opening.value();
        w.end = closing.value();
        w.holdsEvents = true;
        if (const int code = s.backend.record(w.start, stream); code != 0) {
            s.giveBack(w);
            return Error{ErrorCode::Server, code};
        }
        w.hostStartNs = s.now();
        w.stream = s.backend.streamId(stream);
        if (name) {
            w.name = name;
            w.hasName = true;
        }
        w.anchor = s.anchorEvent; // published by `anchored`, read above
        w.anchorHostNs = s.anchorHostNs;

        std::lock_guard<std::mutex> lock(s.mutex);
        const std::uint64_t id = s.nextId++;
        s.open.emplace(id, std::move(w));
        return WindowToken(s.serial, id);
    }

    // Closes the window `token` opened, at the current position of `stream` (normally the
    // stream it was opened on). Returns at enqueue time; the duration's wait() is where the
    // wait for the window's work lives. Errors: NotRegistered, DeviceFailure, Server; the
    // window is gone either way and its events are back in the pool.
    Result<Duration> stop(Stream stream, WindowToken token)
    {
        detail::Shared<Backend>& s = *m_shared;
        detail::Window<Event> w;
        {
            std::lock_guard<std::mutex> lock(s.mutex);
            const auto it = token.m_owner == s.serial ? s.open.find(token.m_id) : s.open.end();
            if (it == s.open.end())
                return Error{ErrorCode::NotRegistered, 0};
            w = std::move(it->second);
            s.open.erase(it);
        }
        if (w.failed) // its events went back when failure() marked it
            return Error{ErrorCode::DeviceFailure, w.failureCode};
        if (const int code = s.backend.record(w.end, stream); code != 0) {
            s.giveBack(w);
            return Error{ErrorCode::Server, code};
        }
        w.hostEndNs = s.now();
        return Duration(m_shared, std::move(w));
    }

    // Drops the window `token` opened without measuring it, for a caller that cannot record
    // its end. A token that names no open window is ignored.
    void abandon(WindowToken token)
    {
        detail::Shared<Backend>& s = *m_shared;
        std::lock_guard<std::mutex> lock(s.mutex);
        if (token.m_owner != s.serial)
            return;
        const auto it = s.open.find(token.m_id);
        if (it == s.open.end())
            return;
        s.giveBackLocked(it->second);
        s.open.erase(it);
    }

    // Marks every open window invalid because device work failed: their stop() returns
    // DeviceFailure with `backendCode`, and their events go back to the pool now. This is what
    // keeps a failed tuning candidate from timing at close to zero and winning. A window
    // already marked keeps its first error. A no-op with no window open.
    void failure(int backendCode)
    {
        detail::Shared<Backend>& s = *m_shared;
        std::lock_guard<std::mutex> lock(s.mutex);
        for (auto& entry : s.open) {
            detail::Window<Event>& w = entry.second;
            if (w.failed)
                continue;
            w.failed = true;
            w.failureCode = backendCode;
            s.giveBackLocked(w);
        }
    }
    void failure(const Error& error) { failure(error.backendCode); }

    // Places the anchor on `stream` now, if it is not placed yet: records an event, waits for
    // the device to reach it (draining `stream` once) and notes CLOCK_MONOTONIC. start() does
    // it on first use; call this at a quiet moment to keep the drain and its error small.
    // Errors: NoEvent, Server (then start() tries again next time).
    Result<void> placeAnchor(Stream stream)
    {
        detail::Shared<Backend>& s = *m_shared;
        std::lock_guard<std::mutex> anchorLock(s.anchorMutex);
        if (s.anchored.load(std::memory_order_relaxed))
            return {};
        Result<Event> event = s.acquire();
        if (!event)
            return event.error();
        const std::int64_t before = s.now();
        int code = s.backend.record(event.value(), stream);
        if (code == 0)
            code = s.backend.synchronize(event.value());
        const std::int64_t after = s.now();
        if (code != 0) {
            s.giveBack(event.value());
            return Error{ErrorCode::Server, code};
        }
        s.anchorEvent = event.value();
        s.anchorHostNs = after;
        s.anchorUncertaintyNs = after - before;
        s.anchored.store(true, std::memory_order_release);
        return {};
    }

    AnchorInfo anchor() const
    {
        const detail::Shared<Backend>& s = *m_shared;
        if (!s.anchored.load(std::memory_order_acquire))
            return {};
        return AnchorInfo{true, s.anchorHostNs, s.anchorUncertaintyNs};
    }

    // Diagnostics: windows open now, and events idle in the pool.
    std::size_t openWindows() const
    {
        std::lock_guard<std::mutex> lock(m_shared->mutex);
        return m_shared->open.size();
    }
    std::size_t idleEvents() const
    {
        std::lock_guard<std::mutex> lock(m_shared->mutex);
        return m_shared->idle.size();
    }

private:
    std::shared_ptr<detail::Shared<Backend>> m_shared;
};

} // namespace spanscope::device_window
