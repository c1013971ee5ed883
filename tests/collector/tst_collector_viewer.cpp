// Real NVTX jobs under libspanscope-collector streaming to a viewer on a socket (a fake one
// here): a viewer that keeps up gets everything; one that never reads, stalls or leaves
// makes the job drop whole, counted ranges, never block or die; lossless mode queues what
// a stalled viewer cannot take yet, up to its cap.
#include "support/collector_job_checks.h"

namespace {

// Runs "pairs kLosslessPairs" (four threads, no pause) in lossless mode, with the queue
// capped at `capMiB` (empty: the default), streaming to a viewer that reads nothing until
// the job has recorded everything and waits at exit for the viewer to take what its
// threads queued. Gives back the job's stderr and the decoded stream; false (with a QTest
// failure) when the job or the stream is not as it must be.
bool runLosslessBehindAStalledViewer(const QString& capMiB, QByteArray& err, Capture& c)
{
    QTemporaryDir dir;
    const QString socketPath = dir.filePath("lossless.sock");
    FakeViewer viewer(socketPath, FakeViewer::Mode::NeverRead);
    QProcess p;
    QProcessEnvironment env = collectorEnv("SPANSCOPE_SOCKET", socketPath);
    env.insert("SPANSCOPE_LOSSLESS", "1");
    if (!capMiB.isEmpty())
        env.insert("SPANSCOPE_QUEUE_CAP_MB", capMiB);
    p.setProcessEnvironment(env);
    p.start(SPANSCOPE_NVTX_WORKLOAD, {"pairs", QString::number(kLosslessPairs)});
    [&] { QVERIFY(p.waitForStarted()); }();
    // Done recording once it says how many pairs it made (flushed before its exit).
    [&] { QTRY_VERIFY_WITH_TIMEOUT(p.peek(64).startsWith("pairs "), 120000); }();
    viewer.startReading();
    [&] {
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 0);
    }();
    err = p.readAllStandardError();
    const QByteArray bytes = viewer.readAll();
    Decoder d(c);
    [&] {
        QVERIFY2(d.feed(bytes.constData(), std::size_t(bytes.size())), d.error().c_str());
        QVERIFY2(d.finish(), d.error().c_str());
        QVERIFY(c.end);
    }();
    return !QTest::currentTestFailed();
}

} // namespace

class TestCollectorViewer : public QObject
{
    Q_OBJECT
private slots:
    void viewerThatKeepsUpGetsEverything()
    {
        QTemporaryDir dir;
        const QString socketPath = dir.filePath("live.sock");
        FakeViewer viewer(socketPath, FakeViewer::Mode::ReadAll);
        QProcess p;
        p.setProcessEnvironment(collectorEnv("SPANSCOPE_SOCKET", socketPath));
        p.start(SPANSCOPE_NVTX_WORKLOAD, {"basic"});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const QByteArray bytes = viewer.readAll();
        Capture c;
        Decoder d(c);
        d.feed(bytes.constData(), std::size_t(bytes.size()));
        QVERIFY2(d.finish(), d.error().c_str());
        QVERIFY(c.end);
        QCOMPARE(c.dropped, std::uint64_t(0));
        QCOMPARE(int(c.pushes.size()), kPushes);
        QCOMPARE(int(c.pops.size()), kPushes);
        QCOMPARE(int(c.marks.size()), kMarks);
        QCOMPARE(int(c.starts.size()), kRangeStarts);
        QCOMPARE(int(c.ends.size()), kRangeStarts);
    }

    void viewerThatNeverReadsMakesTheJobDropNotBlock()
    {
        QTemporaryDir dir;
        const QString socketPath = dir.filePath("viewer.sock");
        FakeViewer viewer(socketPath, FakeViewer::Mode::NeverRead);
        QProcess p;
        p.setProcessEnvironment(collectorEnv("SPANSCOPE_SOCKET", socketPath));
        p.start(SPANSCOPE_NVTX_WORKLOAD, {"flood", "1500"});
        // 1.5 s of work; a blocked job would hang here.
        QVERIFY(p.waitForFinished(15000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 0);
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(err.contains("spanscope-collector: ") && err.contains("records dropped"),
                 err.constData());

        // What did get through is a well-formed stream (a frame cut by the job's exit aside).
        const QByteArray bytes = viewer.readAll();
        QVERIFY(bytes.size() > 0);
        Capture c;
        Decoder d(c);
        QVERIFY2(d.feed(bytes.constData(), std::size_t(bytes.size())), d.error().c_str());
        QVERIFY(c.hello);
        if (!d.finish())
            QVERIFY2(d.error().find("truncated") != std::string::npos, d.error().c_str());
    }

    void viewerStalledForThirtySecondsLosesOnlyWholeCountedRanges()
    {
        // Four threads flood for 30 s (the job's clock) while the viewer reads nothing, so
        // the socket stays full and frames are dropped; then the viewer reads again and the
        // job exits. The job never blocks; the stream ends with its End frame (everything
        // accounted for); every pair is in it or in its Dropped counts; and only whole
        // ranges were lost: no thread's stack ever goes below zero, none ends open.
        QTemporaryDir dir;
        const QString socketPath = dir.filePath("stalled.sock");
        FakeViewer viewer(socketPath, FakeViewer::Mode::NeverRead);
        QProcess p;
        p.setProcessEnvironment(collectorEnv("SPANSCOPE_SOCKET", socketPath));
        p.start(SPANSCOPE_NVTX_WORKLOAD, {"flood", "30000", dir.path()});
        QVERIFY(p.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(dir.filePath("flooded")), 120000);
        viewer.startReading();
        QVERIFY(QFile(dir.filePath("go")).open(QIODevice::WriteOnly));
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 0);
        const QByteArray out = p.readAllStandardOutput();
        QVERIFY2(out.startsWith("pairs "), out.constData());
        const std::uint64_t pairs = out.mid(6).trimmed().toULongLong();

        Capture c;
        checkWholeStreamOfPairs(viewer.readAll(), pairs, c);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(c.dropped > 0); // the socket really was full
    }

    // The job exits while its viewer is busy elsewhere for half a second (assembling, or not
    // scheduled on a loaded machine) with frames still to send: the exit flush waits for it
    // (collector_sender.cpp, kExitStallMs), so the stream still ends whole, with its End
    // frame, and every pair is in it or counted as dropped.
    void viewerBusyWhileTheJobExitsStillGetsAWholeStream()
    {
        QTemporaryDir dir;
        const QString socketPath = dir.filePath("busy.sock");
        FakeViewer viewer(socketPath, FakeViewer::Mode::NeverRead);
        QProcess p;
        p.setProcessEnvironment(collectorEnv("SPANSCOPE_SOCKET", socketPath));
        p.start(SPANSCOPE_NVTX_WORKLOAD, {"pairs", "400000"});
        QVERIFY(p.waitForStarted());
        // It printed its count: it is exiting, its socket full since the viewer reads nothing.
        QTRY_VERIFY_WITH_TIMEOUT(p.peek(64).startsWith("pairs "), 60000);
        // Time is what this test is about: the viewer stays busy for a set while (the job is
        // already exiting, see above), longer than the 200 ms the exit flush once allowed and
        // well inside the 2 s it allows now. No condition can stand in for a busy viewer.
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        viewer.startReading();
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 0);

        Capture c;
        checkWholeStreamOfPairs(viewer.readAll(), 400000, c);
    }

    // Lossless mode: four threads record 2 M pairs with no pause while the viewer reads
    // nothing; the job queues them in memory, and once the viewer reads, at exit,
    // everything arrives: nothing dropped, every pair whole, and the peak reported.
    void losslessModeQueuesWhatAStalledViewerCannotTakeYet()
    {
        QByteArray err;
        Capture c;
        QVERIFY(runLosslessBehindAStalledViewer({}, err, c));
        QVERIFY2(err.contains("lossless queue peaked at") && !err.contains("records dropped"), err.constData());
        QCOMPARE(c.dropped, std::uint64_t(0));
        QCOMPARE(c.pushes.size(), std::size_t(kLosslessPairs));
        QCOMPARE(c.pops.size(), std::size_t(kLosslessPairs));
    }

    // The cap holds in lossless mode too: past it records are dropped and counted, whole
    // pairs only, and the queue never held more than the cap (plus each thread's first
    // block, which is always there).
    void losslessQueueStopsAtItsCap()
    {
        QByteArray err;
        Capture c;
        QVERIFY(runLosslessBehindAStalledViewer("4", err, c));
        const int at = err.indexOf("peaked at ");
        QVERIFY2(at >= 0 && err.contains("records dropped"), err.constData());
        const double peakMiB = err.mid(at + 10).split(' ').front().toDouble();
        QVERIFY2(peakMiB > 0 && peakMiB <= 4.0 + 5 * 0.0625, err.constData()); // job's threads + main
        QVERIFY(c.dropped > 0);
        QCOMPARE(c.pushes.size() + c.pops.size() + c.dropped, std::size_t(2 * kLosslessPairs));
        const std::string unbalanced = unbalancedStacks(c);
        QVERIFY2(unbalanced.empty(), unbalanced.c_str());
    }

    void viewerThatLeavesDoesNotKillTheJob()
    {
        QTemporaryDir dir;
        const QString socketPath = dir.filePath("gone.sock");
        FakeViewer viewer(socketPath, FakeViewer::Mode::CloseAtOnce);
        QProcess p;
        p.setProcessEnvironment(collectorEnv("SPANSCOPE_SOCKET", socketPath));
        p.start(SPANSCOPE_NVTX_WORKLOAD, {"flood", "500"});
        QVERIFY(p.waitForFinished(15000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit); // no SIGPIPE
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    }
};

QTEST_GUILESS_MAIN(TestCollectorViewer)
#include "tst_collector_viewer.moc"
