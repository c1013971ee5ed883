// Device windows (collector/window/include/spanscope/device_window.h) over a fake event
// backend: the event pool, nesting without drains, the anchor on the host clock, reports to
// the collector, and several threads at once. Tokens, durations and errors:
// tst_device_window.cpp.
#include "support/device_window_checks.h"

#include <QTest>

class TestDeviceWindowPool : public QObject
{
    Q_OBJECT

private slots:
    void init() { resetReports(); }

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

QTEST_GUILESS_MAIN(TestDeviceWindowPool)
#include "tst_device_window_pool.moc"
