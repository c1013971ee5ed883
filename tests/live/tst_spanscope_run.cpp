// spanscope-run end to end: real NVTX jobs (tests/collector/nvtx_workload.cpp) recorded into
// capture files, loaded back with model::loadCapture and summarized by spanscope-cli.
#include "collector/nvtx_workload_counts.h"
#include "support/forked_workers_check.h"
#include "support/test_helpers.h"
#include "model/capture_loader.h"
#include "model/live/nvtx_assembler.h"
#include "spanscope_version.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <cstring>
#include <map>
#include <poll.h>
#include <set>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

using namespace spanscope::model;
using namespace spanscope::test;
using spanscope::testing::metadataInt;

namespace {

struct Run
{
    int exitCode = -1;
    QString out, err;
};

Run runTool(const QStringList& args,
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment(),
            const QString& workingDirectory = {})
{
    env.insert("SPANSCOPE_COLLECTOR", SPANSCOPE_COLLECTOR_LIB);
    env.remove("NVTX_INJECTION64_PATH");
    QProcess p;
    p.setProcessEnvironment(env);
    if (!workingDirectory.isEmpty())
        p.setWorkingDirectory(workingDirectory);
    p.start(SPANSCOPE_RUN, args);
    p.waitForFinished(120000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

std::map<std::string, uint64_t> callsPerRegion(const Capture& c)
{
    std::map<std::string, uint64_t> calls;
    for (const auto& row : c.rows)
        calls[c.regionName(row.region)] += row.count;
    return calls;
}

// The streams spanscope-run recording into `h5` has received so far: the files in the
// temporary folder it made beside the output (SPANSCOPE_OUTPUT_DIR).
QFileInfoList streamsSoFar(const QString& h5)
{
    const QFileInfo output(h5);
    QFileInfoList found;
    for (const QFileInfo& streams :
         output.dir().entryInfoList({output.fileName() + ".sps-*"}, QDir::Dirs))
        found += QDir(streams.filePath()).entryInfoList({"*.sps"}, QDir::Files);
    return found;
}

qint64 bytesRecordedSoFar(const QString& h5)
{
    qint64 bytes = 0;
    for (const QFileInfo& stream : streamsSoFar(h5))
        bytes += stream.size();
    return bytes;
}

// Their contents (for small streams).
QByteArray recordedSoFar(const QString& h5)
{
    QByteArray bytes;
    for (const QFileInfo& stream : streamsSoFar(h5)) {
        QFile f(stream.filePath());
        if (f.open(QIODevice::ReadOnly))
            bytes += f.readAll();
    }
    return bytes;
}

// spanscope-run's environment for a job that dies by a signal: a sanitized build's runtime
// must not turn SIGSEGV or SIGABRT into an exit code of its own.
QProcessEnvironment dyingJobEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("SPANSCOPE_COLLECTOR", SPANSCOPE_COLLECTOR_LIB);
    env.remove("NVTX_INJECTION64_PATH");
    const QString asan = env.value("ASAN_OPTIONS");
    env.insert("ASAN_OPTIONS", (asan.isEmpty() ? QString() : asan + ":") +
                                   "handle_segv=0:handle_abort=0:detect_leaks=0");
    return env;
}

std::string warningsText(const Capture& c)
{
    std::string text;
    for (const auto& w : c.warnings)
        text += w.message + "\n";
    return text;
}

} // namespace

class TestSpanscopeRun : public QObject
{
    Q_OBJECT

private slots:
    void basicWorkload()
    {
        QTemporaryDir dir;
        const QString h5 = dir.filePath("basic.h5");
        const Run run = runTool({"--output", h5, "--", SPANSCOPE_NVTX_WORKLOAD, "basic"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains("0 dropped, 0 anomalies, 0 warnings"), qPrintable(run.out));

        auto loaded = loadCapture(h5.toStdString());
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        const Capture& c = *loaded.value().capture;
        const std::map<std::string, uint64_t> expected = {
            {"outer", 1},
            {"inner-w", 1},
            {"inner-ex", 1},
            {"start-w", 1},
            {"start-ex", 1},
            {"cross", 1},
            {"iteration", uint64_t(kThreads * kIterations)},
            {"step", uint64_t(kThreads * kIterations)},
            {"domain-async", 1}};
        QCOMPARE(callsPerRegion(c), expected);
        QVERIFY2(c.warnings.empty(), warningsText(c).c_str());

        std::set<std::string> threadNames;
        for (const auto& t : c.threads) {
            threadNames.insert(c.strings.text(t.name));
            QVERIFY(t.nativeId > 0);
        }
        QCOMPARE(threadNames,
                 std::set<std::string>({"main", "worker-0", "worker-1", "worker-2", "worker-3"}));
        // Start/end ranges live on their domain's async lane.
        std::map<std::string, int64_t> taskOf;
        for (const auto& t : c.tasks) {
            QCOMPARE(c.strings.text(t.kind), std::string("nvtx-async"));
            taskOf[c.strings.text(t.name)] = t.index;
        }
        QCOMPARE(taskOf.size(), size_t(2));
        QVERIFY(taskOf.count("default") && taskOf.count(kDomainName));
        for (const auto& row : c.rows) {
            const std::string name = c.regionName(row.region);
            const int64_t task = c.events.taskIds[row.firstEvent];
            if (name == "cross" || name == "start-w" || name == "start-ex")
                QCOMPARE(task, taskOf["default"]);
            else if (name == "domain-async")
                QCOMPARE(task, taskOf[kDomainName]);
            else
                QCOMPARE(task, int64_t(-1));
        }
        // "cross", started on main and ended by worker-0, is the one range that ended on
        // another thread; the file says which.
        QCOMPARE(c.nvtx.crossThreadEnds.size(), size_t(1));
        for (const auto& row : c.rows)
            if (c.regionName(row.region) == "cross") {
                const ThreadInfo* ender = c.thread(row.rank, c.nvtx.endThreadOf(row.firstEvent));
                QVERIFY(ender);
                QCOMPARE(c.strings.text(ender->name), std::string("worker-0"));
            }
        QCOMPARE(metadataInt(c, "nvtx_marks"), int64_t(kMarks));
        // The NVTX side tables come back from the file.
        QCOMPARE(c.nvtx.marks.size(), size_t(kMarks));
        for (const auto& mark : c.nvtx.marks)
            QCOMPARE(mark.enclosingEvent, int64_t(-1)); // basic marks outside any push range
        QCOMPARE(c.nvtx.domains.size(), size_t(2));
        QCOMPARE(c.nvtx.callDomains.size(), c.events.size());
        bool namedCategory = false;
        for (const auto& k : c.nvtx.categories)
            namedCategory |= k.category == kStepCategory && c.strings.text(k.name) == "steps";
        QVERIFY(namedCategory);
        QVERIFY(c.nvtx.closedAtEnd.empty());
        QCOMPARE(metadataInt(c, "dropped_records"), int64_t(0));
        QCOMPARE(metadataInt(c, "nvtx_anomalies"), int64_t(0));
        QVERIFY(metadataInt(c, "pid") > 0);
        const MetadataValue* source = findMetadata(c.metadata, "source");
        QVERIFY(source && source->text == "spanscope-collector");
        const MetadataValue* complete = findMetadata(c.metadata, "nvtx_stream_complete");
        QVERIFY(complete && complete->flag);

        // spanscope-cli summary lists the NVTX ranges as regions.
        QProcess cli;
        cli.start(SPANSCOPE_CLI, {"summary", h5, "--format", "json"});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 0);
        const QJsonObject summary = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
        std::map<std::string, uint64_t> listed;
        for (const auto& region : summary["regions"].toArray())
            listed[region.toObject()["name"].toString().toStdString()] +=
                uint64_t(region.toObject()["calls"].toInteger());
        QCOMPARE(listed, expected);
        QCOMPARE(summary["metadata"].toObject()["dropped_records"].toInt(), 0);
        QCOMPARE(summary["metadata"].toObject()["nvtx_domains"].toArray().size(), 2);
        QCOMPARE(summary["threads"].toArray().size(), 1 + kThreads);
        QSet<QString> summaryThreads;
        for (const auto& t : summary["threads"].toArray())
            summaryThreads.insert(t.toObject()["name"].toString());
        QVERIFY(summaryThreads.contains("main") && summaryThreads.contains("worker-3"));
        QStringList domainNames;
        for (const auto& d : summary["domains"].toArray())
            domainNames << d.toObject()["name"].toString();
        QCOMPARE(domainNames, QStringList({"default", kDomainName}));
        const QJsonObject nvtx = summary["nvtx"].toObject();
        QCOMPARE(nvtx["marks"].toInt(), kMarks);
        QCOMPARE(nvtx["dropped_records"].toInt(), 0);
        QCOMPARE(nvtx["anomalies"].toInt(), 0);
        QCOMPARE(nvtx["closed_at_end"].toInt(), 0);
    }

    void everyProcessOfTheJobIsSaved()
    {
        // Two processes that use NVTX, one after the other: each gets its own stream (the
        // second used to overwrite the first) and its own rank in the saved capture.
        QTemporaryDir dir;
        const QString h5 = dir.filePath("two.h5");
        const QString workload = SPANSCOPE_NVTX_WORKLOAD;
        const Run run = runTool({"--output", h5, "--", "/bin/sh", "-c",
                                 workload + " basic && " + workload + " basic"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains("2 processes"), qPrintable(run.out));
        auto loaded = loadCapture(h5.toStdString());
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        const Capture& c = *loaded.value().capture;
        // On failure, say what spanscope-run saw: this once lost rank 1 in a sanitized run.
        QVERIFY2(c.ranks == std::vector<int32_t>({0, 1}), qPrintable(run.out + run.err));
        QVERIFY2(callsPerRegion(c)["iteration"] == uint64_t(2 * kThreads * kIterations),
                 qPrintable(run.out + run.err));
        std::map<int32_t, int> marksPerRank, threadsPerRank;
        for (const auto& mark : c.nvtx.marks) {
            ++marksPerRank[mark.rank];
            QVERIFY(c.thread(mark.rank, mark.thread) != nullptr);
        }
        for (const auto& thread : c.threads)
            ++threadsPerRank[thread.rank];
        QCOMPARE(marksPerRank, (std::map<int32_t, int>{{0, kMarks}, {1, kMarks}}));
        QCOMPARE(threadsPerRank, (std::map<int32_t, int>{{0, 1 + kThreads}, {1, 1 + kThreads}}));
        const MetadataValue* pids = findMetadata(c.metadata, "pids");
        QVERIFY(pids && pids->list.size() == 2 && pids->list[0] != pids->list[1]);
        QVERIFY2(c.warnings.empty(), warningsText(c).c_str());
        // Nothing of the temporary streams is left beside the capture.
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
                 QStringList({"two.h5"}));
    }

    void forkedWorkersAreProcessesOfTheirOwn()
    {
        // Workers forked without exec (as Python's multiprocessing and PyTorch's DataLoader
        // do), from inside a range while another thread records: each is a rank of its own
        // with exactly its ranges, its threads, the names given before the fork, and none of
        // the parent's records.
        QTemporaryDir dir;
        const QString h5 = dir.filePath("workers.h5");
        constexpr int kWorkers = 4;
        const Run run = runTool({"--output", h5, "--", SPANSCOPE_NVTX_WORKLOAD, "forkworkers",
                                 QString::number(kWorkers)});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QString("%1 processes").arg(kWorkers + 1)), qPrintable(run.out));
        auto loaded = loadCapture(h5.toStdString());
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        const std::string problems =
            spanscope::testing::checkForkedWorkers(*loaded.value().capture, kWorkers);
        QVERIFY2(problems.empty(), problems.c_str());
    }

    void forkedGrandchildrenKeepTheThreadName()
    {
        // A child forks again: every generation is a rank whose thread keeps the name given
        // once, in the first process.
        QTemporaryDir dir;
        const QString h5 = dir.filePath("chain.h5");
        const Run run =
            runTool({"--output", h5, "--", SPANSCOPE_NVTX_WORKLOAD, "forkchain", "2"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        auto loaded = loadCapture(h5.toStdString());
        QVERIFY(loaded.ok());
        const Capture& c = *loaded.value().capture;
        QCOMPARE(c.ranks, std::vector<int32_t>({0, 1, 2}));
        QCOMPARE(callsPerRegion(c)["link"], uint64_t(3));
        QCOMPARE(c.threads.size(), size_t(3));
        for (const auto& thread : c.threads)
            QCOMPARE(c.strings.text(thread.name), std::string("chain"));
    }

    void forkStormNeitherHangsNorLeaks()
    {
        // 1,000 short children, 8 at a time: every one is saved, the job ends, and the
        // parent holds the same descriptors after the storm as before it.
        QTemporaryDir dir;
        const QString h5 = dir.filePath("storm.h5");
        constexpr int kChildren = 1000;
        const Run run = runTool({"--output", h5, "--", SPANSCOPE_NVTX_WORKLOAD, "forkstorm",
                                 QString::number(kChildren)});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const auto fds = QRegularExpression("fds (\\d+) (\\d+)").match(run.out);
        QVERIFY2(fds.hasMatch(), qPrintable(run.out));
        QCOMPARE(fds.captured(2), fds.captured(1));
        QVERIFY2(run.out.contains(QString("%1 processes").arg(kChildren + 1)), qPrintable(run.out));
        auto loaded = loadCapture(h5.toStdString());
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        const Capture& c = *loaded.value().capture;
        QCOMPARE(c.ranks.size(), size_t(kChildren + 1));
        QCOMPARE(callsPerRegion(c)["storm-child"], uint64_t(kChildren));
        QCOMPARE(callsPerRegion(c)["storm"], uint64_t(1));
        QVERIFY2(c.warnings.empty(), warningsText(c).c_str());
    }

    void jobExitsWithRangesOpen()
    {
        QTemporaryDir dir;
        const QString h5 = dir.filePath("open.h5");
        const Run run = runTool({"--output", h5, "--", SPANSCOPE_NVTX_WORKLOAD, "open"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains("3 ranges were still open"), qPrintable(run.out));
        auto loaded = loadCapture(h5.toStdString());
        QVERIFY(loaded.ok());
        const Capture& c = *loaded.value().capture;
        QCOMPARE(callsPerRegion(c),
                 (std::map<std::string, uint64_t>{
                     {"open-1", 1}, {"open-2", 1}, {"open-async", 1}, {"closed", 1}}));
        QCOMPARE(metadataInt(c, "nvtx_closed_at_end"), int64_t(3));
        QCOMPARE(c.nvtx.closedAtEnd.size(), size_t(3));
        QVERIFY2(c.warnings.empty(), warningsText(c).c_str()); // closed calls, properly nested
    }

    void exitCodeAndNoNvtx()
    {
        QTemporaryDir dir;
        const QString h5 = dir.filePath("none.h5");
        const Run run = runTool({"--output", h5, "--", "/bin/sh", "-c", "exit 3"});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.out.contains("sent no NVTX records"), qPrintable(run.out));
        QVERIFY(loadCapture(h5.toStdString()).ok());
        QCOMPARE(runTool({"--output", h5, "--", "/bin/sh", "-c", "kill -TERM $$"}).exitCode,
                 128 + SIGTERM);
        // No temporary stream is left behind.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList({"none.h5"}));
    }

    void relativeOutputAndJobChangesDirectory()
    {
        QTemporaryDir dir;
        const Run run =
            runTool({"--output", "rel.h5", "--", "/bin/sh", "-c",
                     QStringLiteral("cd / && exec %1 open").arg(SPANSCOPE_NVTX_WORKLOAD)},
                    QProcessEnvironment::systemEnvironment(), dir.path());
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        auto loaded = loadCapture(dir.filePath("rel.h5").toStdString());
        QVERIFY(loaded.ok());
        QCOMPARE(loaded.value().capture->rows.size(), size_t(4));
    }

    // --connect: the job streams to a viewer's socket; here the viewer is this test, which
    // assembles what arrives.
    void connectStreamsToSocket()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("viewer.sock").toStdString();
        const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        QVERIFY(listener >= 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
        QCOMPARE(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
        QCOMPARE(::listen(listener, 1), 0);
        live::NvtxAssembler assembler;
        spanscope::protocol::Decoder decoder(assembler);
        std::thread viewer([&] {
            pollfd ready{listener, POLLIN, 0};
            if (::poll(&ready, 1, 60000) != 1) // the job never connected: fail, don't hang
                return;
            const int connection = ::accept(listener, nullptr, nullptr);
            if (connection < 0)
                return;
            char buffer[1 << 16];
            ssize_t n;
            while ((n = ::read(connection, buffer, sizeof buffer)) > 0)
                decoder.feed(buffer, size_t(n));
            ::close(connection);
        });
        const Run run = runTool(
            {"--connect", QString::fromStdString(path), "--", SPANSCOPE_NVTX_WORKLOAD, "basic"});
        viewer.join();
        ::close(listener);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY(decoder.finish());
        QVERIFY(decoder.sawEnd());
        assembler.finish();
        const auto capture = assembler.snapshot();
        QVERIFY2(capture->warnings.empty(), warningsText(*capture).c_str());
        QCOMPARE(callsPerRegion(*capture)["iteration"], uint64_t(kThreads * kIterations));
        QCOMPARE(assembler.counts().marks, uint64_t(kMarks));
    }

    void jobKilledMidCapture()
    {
        // Well past the Hello frame and the first definitions: flood ranges were sent.
        constexpr qint64 kFloodBytesBeforeKill = 64 * 1024;
        QTemporaryDir dir;
        const QString h5 = dir.filePath("killed.h5");
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("SPANSCOPE_COLLECTOR", SPANSCOPE_COLLECTOR_LIB);
        env.remove("NVTX_INJECTION64_PATH");
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(SPANSCOPE_RUN, {"--output", h5, "--", SPANSCOPE_NVTX_WORKLOAD, "flood", "20000"});
        QVERIFY(p.waitForStarted());
        // Find the job (spanscope-run's child) and SIGKILL it once its stream holds ranges:
        // conditions, not time, so a loaded machine cannot make the test fail or pass vacuously.
        const QString children = QStringLiteral("/proc/%1/task/%1/children").arg(p.processId());
        qint64 job = 0;
        const auto findJob = [&] {
            QFile f(children);
            if (f.open(QIODevice::ReadOnly))
                job = f.readAll().trimmed().split(' ').first().toLongLong();
            return job > 0;
        };
        QTRY_VERIFY_WITH_TIMEOUT(findJob(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(bytesRecordedSoFar(h5) >= kFloodBytesBeforeKill,
                                 15000); // the job floods for 20 s
        QCOMPARE(::kill(pid_t(job), SIGKILL), 0);
        QVERIFY(p.waitForFinished(120000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QCOMPARE(p.exitCode(), 128 + SIGKILL);
        QVERIFY2(out.contains("no end frame") || out.contains("cut short"), qPrintable(out));
        auto loaded = loadCapture(h5.toStdString());
        QVERIFY(loaded.ok());
        const auto calls = callsPerRegion(*loaded.value().capture);
        QVERIFY2(calls.count("flood") && calls.at("flood") > 0, qPrintable(out));
        const MetadataValue* complete =
            findMetadata(loaded.value().capture->metadata, "nvtx_stream_complete");
        QVERIFY(complete && !complete->flag);
    }

    void jobDiesInsideRanges_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("signal");
        QTest::newRow("SIGSEGV") << "segv" << SIGSEGV;
        QTest::newRow("abort") << "abort" << SIGABRT;
        QTest::newRow("SIGKILL") << "kill" << SIGKILL;
    }

    void jobDiesInsideRanges()
    {
        // The job dies with a push range and a start/end range open: everything it recorded
        // before is saved, the two open ranges are kept and flagged as open, and
        // spanscope-run exits as the job did (128 + signal).
        QFETCH(QString, kind);
        QFETCH(int, signal);
        QTemporaryDir dir;
        const QString h5 = dir.filePath("died.h5");
        QProcess p;
        p.setProcessEnvironment(dyingJobEnvironment());
        p.start(SPANSCOPE_RUN,
                {"--output", h5, "--", SPANSCOPE_NVTX_WORKLOAD, "crash", kind, dir.path()});
        QVERIFY(p.waitForStarted());
        // The job dies only once its open ranges reached spanscope-run (a condition).
        QTRY_VERIFY_WITH_TIMEOUT(recordedSoFar(h5).contains("open-async"), 60000);
        QFile go(dir.filePath("go"));
        QVERIFY(go.open(QIODevice::WriteOnly));
        go.close();
        QVERIFY(p.waitForFinished(120000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QCOMPARE(p.exitCode(), 128 + signal);
        auto loaded = loadCapture(h5.toStdString());
        QVERIFY2(loaded.ok(), qPrintable(out + p.readAllStandardError()));
        const Capture& c = *loaded.value().capture;
        auto calls = callsPerRegion(c);
        QCOMPARE(calls["before"], uint64_t(kCrashBeforeRanges));
        QCOMPARE(calls["open-outer"], uint64_t(1));
        QCOMPARE(calls["open-async"], uint64_t(1));
        std::set<std::string> open;
        for (const uint64_t e : c.nvtx.closedAtEnd)
            for (const auto& row : c.rows)
                if (e >= row.firstEvent && e < row.firstEvent + row.count)
                    open.insert(c.regionName(row.region));
        QCOMPARE(open, (std::set<std::string>{"open-outer", "open-async"}));
    }

    void terminateReachesTheJobAndTheCaptureIsSaved()
    {
        // SIGTERM to spanscope-run (a batch scheduler's kill) ends the job, not the recorder:
        // the job gets it, and what it recorded is saved.
        QTemporaryDir dir;
        const QString h5 = dir.filePath("terminated.h5");
        QProcess p;
        p.setProcessEnvironment(dyingJobEnvironment());
        // Phase 1, then the job waits for go-2, which never comes.
        p.start(SPANSCOPE_RUN,
                {"--output", h5, "--", SPANSCOPE_NVTX_WORKLOAD, "phased", "2", dir.path()});
        QVERIFY(p.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(dir.filePath("done-1")) &&
                                     recordedSoFar(h5).contains("phase"),
                                 60000);
        QCOMPARE(::kill(pid_t(p.processId()), SIGTERM), 0);
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 128 + SIGTERM);
        auto loaded = loadCapture(h5.toStdString());
        QVERIFY(loaded.ok());
        QCOMPARE(callsPerRegion(*loaded.value().capture)["phase"], uint64_t(kPhaseRanges));
        // Nothing of the temporary streams is left beside the capture.
        QCOMPARE(QDir(dir.path()).entryList({"terminated.h5*"}), QStringList({"terminated.h5"}));
    }

    // --lossless: four threads recording 1 M pairs without a pause lose nothing, and the
    // saved capture holds every one of them.
    void losslessRecordingKeepsEveryRange()
    {
        QTemporaryDir dir;
        const QString h5 = dir.filePath("lossless.h5");
        const Run run = runTool({"--output", h5, "--lossless", "--", SPANSCOPE_NVTX_WORKLOAD, "pairs", "1000000"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(" 0 dropped,"), qPrintable(run.out));
        QVERIFY2(run.err.contains("lossless queue peaked at"), qPrintable(run.err));
        auto loaded = loadCapture(h5.toStdString());
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        const Capture& c = *loaded.value().capture;
        QCOMPARE(callsPerRegion(c)["pair"], uint64_t(1000000));
        QCOMPARE(metadataInt(c, "dropped_records"), int64_t(0));
    }

    // The collector is the job's CUDA injection too, unless --no-cuda; another tool's CUDA
    // injection is refused, not replaced.
    void injectsIntoCudaUnlessTold()
    {
        QTemporaryDir dir;
        const QStringList show = {"--", "/bin/sh", "-c", "echo \"cuda=$CUDA_INJECTION64_PATH\""};
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("CUDA_INJECTION64_PATH");
        const Run on = runTool(QStringList{"--output", dir.filePath("on.h5")} + show, env);
        QVERIFY2(on.out.contains(QStringLiteral("cuda=") + SPANSCOPE_COLLECTOR_LIB), qPrintable(on.out + on.err));
        const Run off = runTool(QStringList{"--output", dir.filePath("off.h5"), "--no-cuda"} + show, env);
        QVERIFY2(off.out.contains("cuda=\n"), qPrintable(off.out + off.err));

        env.insert("CUDA_INJECTION64_PATH", "/usr/lib/another-cuda-tool.so");
        const Run refused = runTool(QStringList{"--output", dir.filePath("refused.h5")} + show, env);
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("CUDA_INJECTION64_PATH is already set to /usr/lib/another-cuda-tool.so"),
                 qPrintable(refused.err));
        QVERIFY(refused.err.contains("--no-cuda"));
        const Run kept = runTool(QStringList{"--output", dir.filePath("kept.h5"), "--no-cuda"} + show, env);
        QVERIFY2(kept.out.contains("cuda=/usr/lib/another-cuda-tool.so"), qPrintable(kept.out + kept.err));
    }

    void refusesAnotherInjectionAndBadUsage()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        QTemporaryDir dir;
        QProcess p;
        env.insert("SPANSCOPE_COLLECTOR", SPANSCOPE_COLLECTOR_LIB);
        env.insert("NVTX_INJECTION64_PATH", "/usr/lib/some-other-tool.so");
        p.setProcessEnvironment(env);
        p.start(SPANSCOPE_RUN, {"--output", dir.filePath("x.h5"), "--", "/bin/true"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains("already set"));
        QVERIFY(!QFile::exists(dir.filePath("x.h5")));

        QCOMPARE(runTool({}).exitCode, 2);
        QCOMPARE(runTool({"--output", dir.filePath("x.h5")}).exitCode, 2);
        QCOMPARE(runTool({"--bogus", "--", "/bin/true"}).exitCode, 2);
        QCOMPARE(runTool({"--output", "a.h5", "--connect", "s", "--", "/bin/true"}).exitCode, 2);
        const Run badCap = runTool({"--output", "a.h5", "--queue-cap", "lots", "--", "/bin/true"});
        QCOMPARE(badCap.exitCode, 2);
        QVERIFY2(badCap.err.contains("--queue-cap takes a number of MiB"), qPrintable(badCap.err));
        const Run usage = runTool({"--", "/bin/true"});
        QCOMPARE(usage.exitCode, 2);
        QVERIFY(usage.err.contains("Usage: spanscope-run"));
        // --help and --version answer on stdout and succeed (help2man reads them).
        const Run help = runTool({"--help"});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.startsWith("Usage: spanscope-run"));
        const Run version = runTool({"--version"});
        QCOMPARE(version.exitCode, 0);
        QCOMPARE(version.out, QStringLiteral("spanscope-run " SPANSCOPE_VERSION "\n"));
    }
};

QTEST_GUILESS_MAIN(TestSpanscopeRun)
#include "tst_spanscope_run.moc"
