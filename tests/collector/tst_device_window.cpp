// Device windows (collector/window/include/spanscope/device_window.h) over a fake event
// backend: tokens and errors, the event pool, deferred durations that block only in wait(),
// nesting without drains, the anchor, reports to the collector, and several threads at once.
//
// The fake device runs each stream only when the host waits for it, and charges a launch
// latency to the first item enqueued on a stream the host drained: a window implementation
// that synchronized in start() or stop() would show up as durations that grow.
#include "spanscope/device_window.h"
#include "support/fake_device_window_backend.h"

#include <QTest>
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace spanscope::device_window;
using namespace spanscope::testing;

namespace {

using Windows = DeviceWindows<FakeBackend>;
using Duration = DeviceDuration<FakeBackend>;

// Reports, as received (the name copied).
struct Report
{
    std::uint32_t size;
    int device;
    std::uint64_t stream;
    bool hasName;
    std::string name;
    std::int64_t hostStartNs, hostEndNs, deviceStartNs, deviceEndNs, deviceDurationNs;
};
std::mutex g_reportsMutex;
std::vector<Report> g_reports, g_collectorReports;

Report copyReport(const spanscope_device_window_report* r)
{
    return Report{
        r->size,        r->device,    r->stream,        r->name != nullptr, r->name ? r->name : "",
        r->hostStartNs, r->hostEndNs, r->deviceStartNs, r->deviceEndNs,     r->deviceDurationNs};
}
void captureReport(const spanscope_device_window_report* r)
{
    std::lock_guard<std::mutex> lock(g_reportsMutex);
    g_reports.push_back(copyReport(r));
}
std::vector<Report> reports()
{
    std::lock_guard<std::mutex> lock(g_reportsMutex);
    return g_reports;
}

// A host clock the tests set.
std::atomic<std::int64_t> g_hostNow{1000000};
std::int64_t fakeHostClock()
{
    return g_hostNow.load();
}

Options testOptions()
{
    Options options;
    options.reporter = captureReport;
    options.hostClock = fakeHostClock;
    return options;
}

// A result's error; for a success, one that no check expects.
template <typename T> Error errorOf(const Result<T>& result)
{
    return result ? Error{ErrorCode(-1), -1} : result.error();
}

// Waits; the device ns, or -1 for an empty result of stop() and -2 for an error of wait(), so
// that a wrong implementation fails a comparison instead of asserting in value().
std::int64_t waitNs(Duration& duration)
{
    Result<std::int64_t> ns = duration.wait();
    return ns ? ns.value() : -2;
}
std::int64_t waitNs(Result<Duration>& stopped)
{
    return stopped ? waitNs(stopped.value()) : -1;
}
WindowTimes waitTimes(Result<Duration>& stopped)
{
    WindowTimes failed;
    failed.deviceNs = -1;
    if (!stopped)
        return failed;
    Result<WindowTimes> times = stopped.value().waitTimes();
    return times ? times.value() : failed;
}

// Opens, runs `ns` of work, closes and waits; the device duration (or -1 on an error).
std::int64_t measure(Windows& windows, FakeDevice& fake, int stream, std::int64_t ns)
{
    Result<WindowToken> token = windows.start(stream);
    if (!token)
        return -1;
    fake.launch(stream, ns);
    Result<Duration> duration = windows.stop(stream, token.value());
    if (!duration)
        return -1;
    Result<std::int64_t> deviceNs = duration.value().wait();
    return deviceNs ? deviceNs.value() : -1;
}

} // namespace

// The collector's entry point, found by dlsym(RTLD_DEFAULT): the test executable exports it
// (ENABLE_EXPORTS) to stand in for libspanscope-collector.
extern "C" __attribute__((visibility("default"))) void
spanscope_report_device_window(const spanscope_device_window_report* report)
{
    std::lock_guard<std::mutex> lock(g_reportsMutex);
    g_collectorReports.push_back(copyReport(report));
}

class TestDeviceWindow : public QObject
{
    Q_OBJECT

private slots:
    void init()
    {
        std::lock_guard<std::mutex> lock(g_reportsMutex);
        g_reports.clear();
        g_collectorReports.clear();
        g_hostNow = 1000000;
    }

    // --- start ----------------------------------------------------------------------------

    void startIssuesDistinctTokens()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        Result<WindowToken> a = windows.start(1);
        Result<WindowToken> b = windows.start(1);
        QVERIFY(a.ok());
        QVERIFY(b.ok());
        QVERIFY(a.value() != b.value());
        QVERIFY(a.value() != WindowToken{});
        QCOMPARE(windows.openWindows(), std::size_t(2));
    }

    void startFailsWhenTheStreamWillNotRecord()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        QVERIFY(windows.placeAnchor(1).ok());
        fake.failNextRecord(719);
        Result<WindowToken> token = windows.start(1);
        QVERIFY(!token.ok());
        QCOMPARE(token.error().code, ErrorCode::Server);
        QCOMPARE(token.error().backendCode, 719);
        QCOMPARE(windows.openWindows(), std::size_t(0));
        QCOMPARE(windows.idleEvents(), std::size_t(2)); // both events back in the pool
        // The next window reuses them.
        const int created = fake.created();
        QCOMPARE(measure(windows, fake, 1, 300), std::int64_t(300));
        QCOMPARE(fake.created(), created);
    }

    void startFailsWhenNoEventCanBeCreated()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        QVERIFY(windows.placeAnchor(1).ok());
        fake.failCreate(1, 2); // the opening event
        Result<WindowToken> token = windows.start(1);
        QVERIFY(!token.ok());
        QCOMPARE(token.error().code, ErrorCode::NoEvent);
        QCOMPARE(token.error().backendCode, 2);
        QCOMPARE(windows.idleEvents(), std::size_t(0));

        fake.failCreate(2, 2); // the closing event: the opening one goes back
        token = windows.start(1);
        QVERIFY(!token.ok());
        QCOMPARE(token.error().code, ErrorCode::NoEvent);
        QCOMPARE(windows.idleEvents(), std::size_t(1));
        QCOMPARE(windows.openWindows(), std::size_t(0));
        QCOMPARE(fake.records(), 1); // the anchor only: nothing was recorded for them
    }

    void startFailsAtTheEventLimit()
    {
        FakeDevice fake;
        Options options = testOptions();
        options.maxEvents = 5; // the anchor and two windows
        Windows windows(FakeBackend{&fake}, options);
        Result<WindowToken> a = windows.start(1);
        Result<WindowToken> b = windows.start(1);
        QVERIFY(a.ok() && b.ok());
        Result<WindowToken> c = windows.start(1);
        QVERIFY(!c.ok());
        QCOMPARE(c.error().code, ErrorCode::NoEvent);
        QCOMPARE(c.error().backendCode, 0);
        QCOMPARE(fake.created(), 5);
        QCOMPARE(windows.idleEvents(), std::size_t(0));
        // Resolving a window frees its events for the next one.
        Result<Duration> d = windows.stop(1, a.value());
        QVERIFY(d.ok());
        QVERIFY(d.value().wait().ok());
        QVERIFY(windows.start(1).ok());
        QCOMPARE(fake.created(), 5);
    }

    // --- stop and the deferred duration ----------------------------------------------------

    void stopReturnsBeforeTheDeviceGetsThereAndWaitBlocksUntilThen()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        QVERIFY(windows.placeAnchor(1).ok());
        fake.setAutoRun(false);
        fake.setBlocking(false); // a synchronize in start() or stop() would fail them
        const int syncs = fake.synchronizes();

        Result<WindowToken> token = windows.start(1);
        QVERIFY(token.ok());
        fake.launch(1, 1000);
        Result<Duration> stopped = windows.stop(1, token.value());
        QVERIFY(stopped.ok());
        QCOMPARE(fake.synchronizes(), syncs);
        QCOMPARE(fake.refusedBlocks(), 0);
        Duration duration = std::move(stopped).value();
        QVERIFY(!duration.ready());

        const std::vector<FakeDevice::Record> log = fake.recordLog();
        QCOMPARE(log.size(), std::size_t(3)); // anchor, opening, closing
        const int opening = log[1].event, closing = log[2].event;

        fake.setBlocking(true);
        std::atomic<bool> finished{false};
        Result<std::int64_t> result = Error{};
        std::thread waiter([&] {
            result = duration.wait();
            finished = true;
            fake.wake();
        });
        struct JoinOnExit // a failed check returns early: let the waiter finish first
        {
            std::thread& thread;
            FakeDevice& fake;
            ~JoinOnExit()
            {
                if (thread.joinable()) {
                    fake.advanceTo(std::numeric_limits<std::int64_t>::max() / 2);
                    thread.join();
                }
            }
        } joinOnExit{waiter, fake};
        // Parked on the opening event (or on the closing one straight away).
        fake.waitUntilParkedOn(opening, finished);
        QVERIFY(!finished);
        // The device reached the opening event but not the closing one: still waiting.
        fake.advanceTo(fake.stampOf(closing) - 1);
        fake.waitUntilParkedOn(closing, finished);
        QVERIFY(!finished);
        fake.advanceTo(fake.stampOf(closing));
        waiter.join();
        QVERIFY(finished);
        QVERIFY(result.ok());
        QCOMPARE(result.value(), std::int64_t(1000));
        QVERIFY(duration.ready());
    }

    void waitIsResolvedOnceAndCached()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        Result<WindowToken> token = windows.start(1);
        fake.launch(1, 4200);
        Result<Duration> duration = windows.stop(1, token.value());
        QVERIFY(duration.ok());
        QCOMPARE(waitNs(duration), std::int64_t(4200));
        const int syncs = fake.synchronizes();
        // The device state changes; the cached value does not.
        fake.failNextSynchronize(5);
        QCOMPARE(waitNs(duration), std::int64_t(4200));
        QCOMPARE(waitTimes(duration).deviceNs, std::int64_t(4200));
        QCOMPARE(fake.synchronizes(), syncs);
        QCOMPARE(reports().size(), std::size_t(1));
    }

    void durationStaysRightWhileOtherWindowsReuseThePool()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        Result<WindowToken> token = windows.start(1, "kept");
        fake.launch(1, 777);
        Result<Duration> kept = windows.stop(1, token.value());
        QVERIFY(kept.ok());
        for (int i = 1; i <= 100; ++i)
            QCOMPARE(measure(windows, fake, 1 + i % 3, i), std::int64_t(i));
        QCOMPARE(waitNs(kept), std::int64_t(777));
        QCOMPARE(fake.created(), 5); // the anchor, the kept window's two, one pair reused
    }

    void durationOutlivesItsWindowsObject()
    {
        FakeDevice fake;
        Duration duration;
        {
            Windows windows(FakeBackend{&fake}, testOptions());
            Result<WindowToken> token = windows.start(1);
            fake.launch(1, 900);
            Result<Duration> stopped = windows.stop(1, token.value());
            QVERIFY(stopped.ok());
            duration = std::move(stopped).value();
            QVERIFY(windows.start(1).ok()); // left open: abandoned by the destructor
        }
        QCOMPARE(waitNs(duration), std::int64_t(900));
        QVERIFY(fake.destroyed() < fake.created()); // the pool lives with the duration
        duration = Duration();
        QCOMPARE(fake.destroyed(), fake.created());
        QCOMPARE(fake.created(), 5);
    }

    void unresolvedDurationGivesItsEventsBack()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        Result<WindowToken> token = windows.start(1);
        {
            Result<Duration> duration = windows.stop(1, token.value());
            QVERIFY(duration.ok());
            QCOMPARE(windows.idleEvents(), std::size_t(0));
        }
        QCOMPARE(windows.idleEvents(), std::size_t(2));
        QVERIFY(reports().empty());
    }

    void emptyAndMovedFromDurationsAreNotRegistered()
    {
        Duration empty;
        QVERIFY(!empty.valid());
        QVERIFY(empty.ready());
        QCOMPARE(errorOf(empty.wait()).code, ErrorCode::NotRegistered);

        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        Result<Duration> stopped = windows.stop(1, windows.start(1).value());
        Duration moved = std::move(stopped.value());
        QVERIFY(!stopped.value().valid());
        QCOMPARE(errorOf(stopped.value().wait()).code, ErrorCode::NotRegistered);
        QVERIFY(moved.valid());
        QVERIFY(moved.wait().ok());
    }

    void waitReportsAServerErrorWhenTheEventsCannotBeRead()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        Result<Duration> duration = windows.stop(1, windows.start(1).value());
        QVERIFY(duration.ok());
        fake.failNextSynchronize(719);
        Result<std::int64_t> ns = duration.value().wait();
        QVERIFY(!ns.ok());
        QCOMPARE(ns.error().code, ErrorCode::Server);
        QCOMPARE(ns.error().backendCode, 719);
        QCOMPARE(windows.idleEvents(), std::size_t(2));
        QCOMPARE(errorOf(duration.value().wait()).backendCode, 719); // cached too
        QVERIFY(reports().empty());
    }

    // --- stop's errors -------------------------------------------------------------------

    void stopOfATokenNeverIssuedIsNotRegistered()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        Windows other(FakeBackend{&fake}, testOptions());
        Result<WindowToken> mine = windows.start(1);
        Result<WindowToken> theirs = other.start(1); // same id within its own object
        QVERIFY(mine.ok() && theirs.ok());
        const int records = fake.records();

        Result<Duration> d = windows.stop(1, WindowToken{});
        QVERIFY(!d.ok());
        QCOMPARE(d.error().code, ErrorCode::NotRegistered);
        d = windows.stop(1, theirs.value());
        QVERIFY(!d.ok());
        QCOMPARE(d.error().code, ErrorCode::NotRegistered);
        QCOMPARE(fake.records(), records); // nothing recorded for them
        QCOMPARE(windows.openWindows(), std::size_t(1));
        QCOMPARE(other.openWindows(), std::size_t(1));
        QVERIFY(windows.stop(1, mine.value()).ok());
        QVERIFY(other.stop(1, theirs.value()).ok());
    }

    void stopOfAClosedTokenIsNotRegistered()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        Result<WindowToken> token = windows.start(1);
        Result<Duration> first = windows.stop(1, token.value());
        QVERIFY(first.ok());
        const int records = fake.records();
        Result<Duration> second = windows.stop(1, token.value());
        QVERIFY(!second.ok());
        QCOMPARE(second.error().code, ErrorCode::NotRegistered);
        QCOMPARE(fake.records(), records);
        QVERIFY(first.value().wait().ok()); // the first close is unaffected
    }

    void stopFailsWhenTheClosingEventCannotBeRecorded()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        Result<WindowToken> token = windows.start(1);
        fake.failNextRecord(709);
        Result<Duration> d = windows.stop(1, token.value());
        QVERIFY(!d.ok());
        QCOMPARE(d.error().code, ErrorCode::Server);
        QCOMPARE(d.error().backendCode, 709);
        // The window is gone and its events are back.
        QCOMPARE(windows.openWindows(), std::size_t(0));
        QCOMPARE(windows.idleEvents(), std::size_t(2));
        QCOMPARE(errorOf(windows.stop(1, token.value())).code, ErrorCode::NotRegistered);
        QVERIFY(reports().empty());
    }

    // --- failure() ---------------------------------------------------------------------------

    void failureMarksEveryOpenWindowAndNoOther()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        Result<WindowToken> a = windows.start(1);
        Result<WindowToken> b = windows.start(2);
        Result<WindowToken> c = windows.start(1);
        fake.launch(1, 1500);
        Result<Duration> closed = windows.stop(1, c.value()); // closed before the failure
        QVERIFY(closed.ok());
        QCOMPARE(windows.idleEvents(), std::size_t(0));

        windows.failure(719);
        QCOMPARE(windows.idleEvents(), std::size_t(4)); // a's and b's events, at once
        QCOMPARE(windows.openWindows(), std::size_t(2));
        Result<WindowToken> later = windows.start(1); // opened after the failure
        QVERIFY(later.ok());
        fake.launch(1, 250);

        const int records = fake.records();
        for (WindowToken t : {a.value(), b.value()}) {
            Result<Duration> d = windows.stop(1, t);
            QVERIFY(!d.ok());
            QCOMPARE(d.error().code, ErrorCode::DeviceFailure);
            QCOMPARE(d.error().backendCode, 719);
            QCOMPARE(errorOf(windows.stop(1, t)).code, ErrorCode::NotRegistered); // gone
        }
        QCOMPARE(fake.records(), records); // no closing event recorded for them
        Result<Duration> d = windows.stop(1, later.value());
        QVERIFY(d.ok());
        QCOMPARE(waitNs(d), std::int64_t(250));
        QCOMPARE(waitNs(closed), std::int64_t(1500));
    }

    void failureKeepsTheFirstErrorAndTakesAnError()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        Result<WindowToken> a = windows.start(1);
        windows.failure(Error{ErrorCode::Server, 700});
        Result<WindowToken> b = windows.start(1);
        windows.failure(701);
        QCOMPARE(errorOf(windows.stop(1, a.value())).backendCode, 700);
        QCOMPARE(errorOf(windows.stop(1, b.value())).backendCode, 701);
    }

    void failureWithNoWindowOpenDoesNothing()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        QCOMPARE(measure(windows, fake, 1, 100), std::int64_t(100));
        const int records = fake.records(), syncs = fake.synchronizes(), created = fake.created();
        const std::size_t idle = windows.idleEvents();
        windows.failure(719);
        QCOMPARE(fake.records(), records);
        QCOMPARE(fake.synchronizes(), syncs);
        QCOMPARE(fake.created(), created);
        QCOMPARE(windows.idleEvents(), idle);
        QCOMPARE(measure(windows, fake, 1, 200), std::int64_t(200)); // not marked later either
    }

    // --- abandon() ---------------------------------------------------------------------------

    void abandonDropsTheWindow()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        Result<WindowToken> token = windows.start(1);
        Result<WindowToken> other = windows.start(1);
        const int records = fake.records();
        windows.abandon(token.value());
        QCOMPARE(windows.openWindows(), std::size_t(1));
        QCOMPARE(windows.idleEvents(), std::size_t(2));
        QCOMPARE(errorOf(windows.stop(1, token.value())).code, ErrorCode::NotRegistered);
        windows.abandon(token.value()); // again, and a token never issued: ignored
        windows.abandon(WindowToken{});
        QCOMPARE(windows.openWindows(), std::size_t(1));
        QCOMPARE(windows.idleEvents(), std::size_t(2));
        QCOMPARE(fake.records(), records);
        QVERIFY(windows.stop(1, other.value()).ok());
        QVERIFY(reports().empty());
    }

    // --- the pool ----------------------------------------------------------------------------

    void eventsArePooledAndReused()
    {
        FakeDevice fake;
        {
            Windows windows(FakeBackend{&fake}, testOptions());
            for (int i = 1; i <= 50; ++i)
                QCOMPARE(measure(windows, fake, 1, 10 * i), std::int64_t(10 * i));
            QCOMPARE(fake.created(), 3); // the anchor and one pair
            QCOMPARE(windows.idleEvents(), std::size_t(2));

            std::vector<WindowToken> tokens;
            for (int i = 0; i < 5; ++i)
                tokens.push_back(windows.start(1).value());
            QCOMPARE(fake.created(), 11);
            std::vector<Duration> durations;
            for (WindowToken t : tokens)
                durations.push_back(std::move(windows.stop(1, t).value()));
            for (Duration& d : durations)
                QVERIFY(d.wait().ok());
            QCOMPARE(windows.idleEvents(), std::size_t(10));
            for (int i = 0; i < 5; ++i)
                QVERIFY(windows.start(1).ok());
            QCOMPARE(fake.created(), 11);
            QCOMPARE(fake.destroyed(), 0);
        }
        QCOMPARE(fake.destroyed(), 11); // every event, open windows' included
    }

    // --- nesting -----------------------------------------------------------------------------

    void nestedWindowsDoNotDrain_data()
    {
        QTest::addColumn<int>("inner");
        QTest::newRow("1") << 1;
        QTest::newRow("10") << 10;
        QTest::newRow("100") << 100;
    }
    // The outer window wraps 1 µs + 10 µs split among the inner windows + 1 µs of work: it
    // measures 12 µs whatever the number of inner windows.
    void nestedWindowsDoNotDrain()
    {
        QFETCH(int, inner);
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        QVERIFY(windows.placeAnchor(1).ok());
        const int syncs = fake.synchronizes();
        const std::int64_t each = 10000 / inner;

        Result<WindowToken> outer = windows.start(1, "outer");
        fake.launch(1, 1000);
        std::vector<Duration> inners;
        for (int i = 0; i < inner; ++i) {
            Result<WindowToken> t = windows.start(1, "inner");
            fake.launch(1, each);
            inners.push_back(std::move(windows.stop(1, t.value()).value()));
        }
        fake.launch(1, 1000);
        Result<Duration> outerDuration = windows.stop(1, outer.value());
        QCOMPARE(fake.synchronizes(), syncs); // no drain while the windows were open

        QCOMPARE(waitNs(outerDuration), std::int64_t(12000));
        for (Duration& d : inners)
            QCOMPARE(waitNs(d), each);
        QCOMPARE(fake.created(), 1 + 2 * (inner + 1));
    }

    // The fake charges a drain: waiting inside the outer window (what a host-clock profiler
    // does at every inner window) makes the outer one grow by a launch latency each time.
    // Without this, the test above could not fail.
    void drainingInsideAWindowWouldShow()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        Result<WindowToken> outer = windows.start(1);
        fake.launch(1, 1000);
        for (int i = 0; i < 10; ++i)
            QCOMPARE(measure(windows, fake, 1, 1000), std::int64_t(1000)); // waits: drains
        fake.launch(1, 1000);
        Result<Duration> d = windows.stop(1, outer.value());
        QCOMPARE(waitNs(d), std::int64_t(12000 + 10 * kLatencyNs));
    }

    // --- the anchor --------------------------------------------------------------------------

    void anchorPlacesDeviceTimesOnTheHostClock()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        QVERIFY(!windows.anchor().placed);
        fake.launch(1, 50000); // queued work: the anchor waits for it
        g_hostNow = 1000000;
        fake.onSynchronize([] { g_hostNow = 7000000; });
        QVERIFY(windows.placeAnchor(1).ok());
        fake.onSynchronize(nullptr);
        const AnchorInfo anchor = windows.anchor();
        QVERIFY(anchor.placed);
        QCOMPARE(anchor.hostNs, std::int64_t(7000000));
        QCOMPARE(anchor.uncertaintyNs, std::int64_t(6000000));

        fake.launch(1, 2000); // before the window: not in it
        g_hostNow = 8000000;
        Result<WindowToken> token = windows.start(1, "anchored");
        fake.launch(1, 3000);
        g_hostNow = 9000000;
        Result<Duration> duration = windows.stop(1, token.value());
        const WindowTimes times = waitTimes(duration);

        const std::vector<FakeDevice::Record> log = fake.recordLog();
        QCOMPARE(log.size(), std::size_t(3));
        const std::int64_t sinceAnchor = log[1].stamp - log[0].stamp;
        QCOMPARE(sinceAnchor, kLatencyNs + 2000); // the drained stream relaunched, then 2 µs
        QCOMPARE(times.deviceStartNs, 7000000 + sinceAnchor);
        QCOMPARE(times.deviceEndNs, 7000000 + sinceAnchor + 3000);
        QCOMPARE(times.deviceNs, std::int64_t(3000));
        QCOMPARE(times.hostStartNs, std::int64_t(8000000));
        QCOMPARE(times.hostEndNs, std::int64_t(9000000));
    }

    void startAnchorsOnFirstUseOnly()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        QVERIFY(windows.start(1).ok());
        QVERIFY(windows.anchor().placed);
        QCOMPARE(fake.synchronizes(), 1);
        for (int i = 0; i < 3; ++i)
            QVERIFY(windows.start(2).ok());
        QVERIFY(windows.placeAnchor(2).ok()); // already placed: nothing to do
        QCOMPARE(fake.synchronizes(), 1);
        QCOMPARE(fake.records(), 5);
    }

    void startFailsWhenTheAnchorCannotBePlaced()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        fake.failNextSynchronize(719);
        Result<WindowToken> token = windows.start(1);
        QVERIFY(!token.ok());
        QCOMPARE(token.error().code, ErrorCode::Server);
        QCOMPARE(token.error().backendCode, 719);
        QVERIFY(!windows.anchor().placed);
        QCOMPARE(windows.openWindows(), std::size_t(0));
        QCOMPARE(windows.idleEvents(), std::size_t(1)); // the anchor's event is back
        // The next start anchors.
        QVERIFY(windows.start(1).ok());
        QVERIFY(windows.anchor().placed);
        QCOMPARE(fake.created(), 3);
    }

    // --- reports -----------------------------------------------------------------------------

    void reporterReceivesEachResolvedWindowOnce()
    {
        FakeDevice fake;
        Windows windows(FakeBackend{&fake}, testOptions());
        fake.onSynchronize([] { g_hostNow = 2000000; });
        QVERIFY(windows.placeAnchor(4).ok());
        fake.onSynchronize(nullptr);

        char name[] = "copy me";
        g_hostNow = 3000000;
        Result<WindowToken> named = windows.start(4, name);
        std::strcpy(name, "changed");
        fake.launch(4, 6000);
        g_hostNow = 3500000;
        Result<Duration> first = windows.stop(4, named.value());
        Result<WindowToken> unnamed = windows.start(4);
        fake.launch(4, 100);
        Result<Duration> second = windows.stop(4, unnamed.value());
        QVERIFY(reports().empty()); // nothing before a duration is resolved

        QVERIFY(first.value().wait().ok());
        QVERIFY(first.value().wait().ok());
        QVERIFY(second.value().wait().ok());
        const std::vector<Report> got = reports();
        QCOMPARE(got.size(), std::size_t(2));
        const Report& r = got[0];
        QCOMPARE(r.size, std::uint32_t(sizeof(spanscope_device_window_report)));
        QCOMPARE(r.device, kFakeDevice);
        QCOMPARE(r.stream, std::uint64_t(0x1004));
        QVERIFY(r.hasName);
        QCOMPARE(r.name, std::string("copy me"));
        QCOMPARE(r.hostStartNs, std::int64_t(3000000));
        QCOMPARE(r.hostEndNs, std::int64_t(3500000));
        QCOMPARE(r.deviceStartNs, std::int64_t(2000000 + kLatencyNs));
        QCOMPARE(r.deviceEndNs, std::int64_t(2000000 + kLatencyNs + 6000));
        QCOMPARE(r.deviceDurationNs, std::int64_t(6000));
        QVERIFY(!got[1].hasName);
        QCOMPARE(got[1].deviceDurationNs, std::int64_t(100));
        QCOMPARE(got[1].deviceStartNs, r.deviceEndNs);
    }

    // Without a reporter of its own, an object reports to the collector's exported function.
    void defaultReporterIsTheCollectors()
    {
        QVERIFY2(collectorReporter() == &spanscope_report_device_window,
                 "dlsym(RTLD_DEFAULT) does not see this executable's symbol: build the test "
                 "with ENABLE_EXPORTS");
        FakeDevice fake;
        Options options;
        options.hostClock = fakeHostClock;
        Windows windows(FakeBackend{&fake}, options);
        Result<WindowToken> token = windows.start(1, "to the collector");
        fake.launch(1, 1234);
        QVERIFY(windows.stop(1, token.value()).value().wait().ok());
        std::lock_guard<std::mutex> lock(g_reportsMutex);
        QCOMPARE(g_collectorReports.size(), std::size_t(1));
        QCOMPARE(g_collectorReports[0].name, std::string("to the collector"));
        QCOMPARE(g_collectorReports[0].deviceDurationNs, std::int64_t(1234));
        QVERIFY(g_reports.empty());
    }

    // --- threads -----------------------------------------------------------------------------

    // Four threads, each on its own stream, nest, close, wait and drop windows at once; the
    // pool and the map are shared. Every window is reported exactly once, with its own work.
    void fourThreadsLoseAndDoubleNothing()
    {
        constexpr int kThreads = 4, kRounds = 200;
        FakeDevice fake;
        std::atomic<int> wrong{0};
        {
            Windows windows(FakeBackend{&fake}, testOptions());
            QVERIFY(windows.placeAnchor(0).ok());
            std::vector<std::thread> threads;
            for (int t = 0; t < kThreads; ++t) {
                threads.emplace_back([&, t] {
                    const int stream = 10 + t;
                    for (int i = 0; i < kRounds; ++i) {
                        const std::string tag = std::to_string(t) + "/" + std::to_string(i);
                        const std::int64_t work = 100 * (t + 1) + i;
                        Result<WindowToken> outer = windows.start(stream, ("outer " + tag).c_str());
                        Result<WindowToken> inner = windows.start(stream, ("inner " + tag).c_str());
                        Result<WindowToken> dropped = windows.start(stream);
                        if (!outer || !inner || !dropped) {
                            ++wrong;
                            continue;
                        }
                        fake.launch(stream, work);
                        Result<Duration> in = windows.stop(stream, inner.value());
                        fake.launch(stream, 7);
                        Result<Duration> out = windows.stop(stream, outer.value());
                        if (i % 2)
                            windows.abandon(dropped.value());
                        else
                            (void)windows.stop(stream, dropped.value()); // destroyed unresolved
                        if (!in || !out) {
                            ++wrong;
                            continue;
                        }
                        const Result<std::int64_t> inNs = in.value().wait();
                        const Result<std::int64_t> outNs = out.value().wait();
                        if (!inNs || !outNs || inNs.value() != work || outNs.value() != work + 7)
                            ++wrong;
                    }
                });
            }
            for (std::thread& thread : threads)
                thread.join();
            QCOMPARE(windows.openWindows(), std::size_t(0));
            QCOMPARE(windows.idleEvents(), std::size_t(fake.created() - 1)); // all but the anchor
        }
        QCOMPARE(wrong.load(), 0);
        QCOMPARE(fake.destroyed(), fake.created());

        std::map<std::string, std::int64_t> byName;
        for (const Report& r : reports())
            byName[r.name] += 1;
        QCOMPARE(reports().size(), std::size_t(2 * kThreads * kRounds));
        QCOMPARE(byName.size(), std::size_t(2 * kThreads * kRounds)); // none doubled
        for (const auto& entry : byName)
            QCOMPARE(entry.second, std::int64_t(1));
    }
};

QTEST_GUILESS_MAIN(TestDeviceWindow)
#include "tst_device_window.moc"
