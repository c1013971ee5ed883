// Device windows (collector/window/include/spanscope/device_window.h) over a fake event
// backend: tokens and errors, deferred durations that block only in wait(), stop's errors,
// failure() and abandon(). The pool, nesting, the anchor, reports and threads:
// tst_device_window_pool.cpp.
//
// The fake device runs each stream only when the host waits for it, and charges a launch
// latency to the first item enqueued on a stream the host drained: a window implementation
// that synchronized in start() or stop() would show up as durations that grow.
#include "support/device_window_checks.h"

#include <QTest>

class TestDeviceWindow : public QObject
{
    Q_OBJECT

private slots:
    void init() { resetReports(); }

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
};

QTEST_GUILESS_MAIN(TestDeviceWindow)
#include "tst_device_window.moc"
