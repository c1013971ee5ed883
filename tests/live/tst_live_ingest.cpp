// The viewer's live side without the GUI: model::live::LiveIngest fed by real NVTX jobs
// started with spanscope-run --connect, the job registry and spanscope-run --wait.
#include "collector/nvtx_workload_counts.h"
#include "support/forked_workers_check.h"
#include "model/live/job_registry.h"
#include "model/live/live_ingest.h"
#include "model/live/unix_socket.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>
#include <condition_variable>
#include <csignal>
#include <map>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

using namespace spanscope::model;
using namespace spanscope::test;

namespace {

constexpr int kJobTimeoutMs = 60000;

// Every update an ingest published, from its analysis thread.
class Updates
{
public:
    live::LiveIngest::Publish publisher()
    {
        return [this](std::shared_ptr<const live::LiveUpdate> update) {
            {
                std::lock_guard lock(m_mutex);
                m_all.push_back(std::move(update));
            }
            m_changed.notify_all();
        };
    }
    // The first update meeting `ready`, or null after `ms`.
    template <typename Ready>
    std::shared_ptr<const live::LiveUpdate> waitFor(Ready ready, int ms = kJobTimeoutMs)
    {
        std::unique_lock lock(m_mutex);
        std::shared_ptr<const live::LiveUpdate> found;
        m_changed.wait_for(lock, std::chrono::milliseconds(ms), [&] {
            for (const auto& u : m_all)
                if (ready(*u)) {
                    found = u;
                    return true;
                }
            return false;
        });
        return found;
    }
    std::shared_ptr<const live::LiveUpdate> waitFinal()
    {
        return waitFor([](const live::LiveUpdate& u) { return u.final; });
    }
    std::vector<std::shared_ptr<const live::LiveUpdate>> all()
    {
        std::lock_guard lock(m_mutex);
        return m_all;
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<std::shared_ptr<const live::LiveUpdate>> m_all;
};

QProcessEnvironment toolEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("SPANSCOPE_COLLECTOR", SPANSCOPE_COLLECTOR_LIB);
    env.remove("NVTX_INJECTION64_PATH");
    return env;
}

// Starts spanscope-run with `args`; the caller waits.
void startTool(QProcess& p, const QStringList& args, QProcessEnvironment env = toolEnvironment())
{
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    p.start(SPANSCOPE_RUN, args);
}

std::map<std::string, uint64_t> callsPerRegion(const Capture& c)
{
    std::map<std::string, uint64_t> calls;
    for (const auto& row : c.rows)
        calls[c.regionName(row.region)] += row.count;
    return calls;
}

std::string warningsText(const Capture& c)
{
    std::string text;
    for (const auto& w : c.warnings)
        text += w.message + "\n";
    return text;
}

std::unique_ptr<live::LiveIngest> startIngest(Updates& updates, int intervalMs = 100,
                                              double maxSpansPerSecond = 0)
{
    live::LiveIngestOptions options;
    options.intervalMs = intervalMs;
    options.assembler.maxSpansPerSecond = maxSpansPerSecond;
    auto started = live::LiveIngest::start(options, updates.publisher());
    if (!started) {
        qWarning("%s", started.error().toString().c_str());
        return nullptr;
    }
    return std::move(started.value());
}

// How a job's collector treats a viewer that falls behind. A test of what arrives counts
// every range, so it keeps them all (--lossless): a sanitized viewer on a loaded two-core
// machine can stall past the collector's default wait, and the frames it then drops (counted,
// as designed) are not what such a test is about. Tests of dropping and budgets use Default.
enum class Delivery { KeepEveryRange, Default };

// Runs `args` under spanscope-run --connect to `ingest` and waits for the job's end.
int runConnected(live::LiveIngest& ingest, const QStringList& command,
                 Delivery delivery = Delivery::KeepEveryRange)
{
    QProcess p;
    QStringList args{"--connect", QString::fromStdString(ingest.socketPath())};
    if (delivery == Delivery::KeepEveryRange)
        args << "--lossless";
    startTool(p, args + QStringList{"--"} + command);
    p.waitForFinished(kJobTimeoutMs);
    ingest.jobExited();
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

// Starts spanscope-demo for `seconds` streaming to `ingest`; true once 100 ranges arrived.
bool startDemoAndWaitForRanges(QProcess& job, live::LiveIngest& ingest, Updates& updates,
                               int seconds)
{
    startTool(job, {"--connect", QString::fromStdString(ingest.socketPath()), "--", SPANSCOPE_DEMO,
                    "--seconds", QString::number(seconds), "--quiet"});
    return job.waitForStarted() &&
           updates.waitFor([](const live::LiveUpdate& u) { return u.counts.calls > 100; });
}

} // namespace

class TestLiveIngest : public QObject
{
    Q_OBJECT

private slots:
    void basicWorkloadArrivesWhole()
    {
        Updates updates;
        auto ingest = startIngest(updates);
        QVERIFY(ingest);
        QCOMPARE(runConnected(*ingest, {SPANSCOPE_NVTX_WORKLOAD, "basic"}), 0);
        const auto final = updates.waitFinal();
        QVERIFY(final);
        QCOMPARE(final->endReason, std::string("the job ended"));
        const Capture& c = *final->loaded.capture;
        QVERIFY2(c.warnings.empty(), warningsText(c).c_str());
        QCOMPARE(callsPerRegion(c)["iteration"], uint64_t(kThreads * kIterations));
        QCOMPARE(final->counts.calls, uint64_t(kPushes + kRangeStarts));
        QCOMPARE(final->counts.marks, uint64_t(kMarks));
        QCOMPARE(final->counts.droppedRecords, uint64_t(0));
        QCOMPARE(final->processes, size_t(1));
        QVERIFY(final->loaded.summary && final->loaded.timeline);
        QVERIFY(final->bytesReceived > 0);
        QVERIFY(ingest->finished());
    }

    void timelineGrowsWhileTheJobRuns()
    {
        Updates updates;
        auto ingest = startIngest(updates);
        QVERIFY(ingest);
        QCOMPARE(runConnected(*ingest, {SPANSCOPE_DEMO, "--seconds", "2", "--quiet"}), 0);
        const auto final = updates.waitFinal();
        QVERIFY(final);
        uint64_t previous = 0;
        int growing = 0;
        for (const auto& u : updates.all()) {
            const uint64_t calls = u->loaded.capture->callCount();
            QVERIFY2(calls >= previous, "a later update shows fewer ranges");
            QCOMPARE(uint64_t(calls), u->counts.calls);
            growing += !u->final && calls > previous ? 1 : 0;
            previous = calls;
            QVERIFY(u->loaded.timeline);
        }
        QVERIFY2(growing >= 1, "no update while the job ran"); // every phase: phasedJobGrowsUpdateByUpdate
        // A sanitizer build under load records about a tenth of the ~10,000 ranges of 2 s.
        QVERIFY(final->counts.calls > 100);
        QVERIFY2(final->loaded.capture->nvtx.closedAtEnd.empty(),
                 warningsText(*final->loaded.capture).c_str());
    }

    // A job that goes on only once the previous phase was seen in an update: every phase is
    // in an update of its own while the job runs, whatever the machine's load.
    void phasedJobGrowsUpdateByUpdate()
    {
        constexpr int kPhases = 5;
        QTemporaryDir gates;
        Updates updates;
        auto ingest = startIngest(updates);
        QVERIFY(ingest);
        QProcess job;
        startTool(job, {"--connect", QString::fromStdString(ingest->socketPath()), "--", SPANSCOPE_NVTX_WORKLOAD,
                        "phased", QString::number(kPhases), gates.path()});
        QVERIFY(job.waitForStarted());
        std::vector<std::shared_ptr<const live::LiveUpdate>> seen;
        for (int phase = 1; phase <= kPhases; ++phase) {
            const uint64_t ranges = uint64_t(phase * kPhaseRanges);
            const auto update = updates.waitFor([ranges](const live::LiveUpdate& u) {
                return !u.final && u.loaded.capture->callCount() == ranges;
            });
            QVERIFY2(update, qPrintable(QString("phase %1 never showed").arg(phase)));
            seen.push_back(update);
            if (phase < kPhases)
                QVERIFY(QFile(gates.filePath(QString("go-%1").arg(phase + 1))).open(QIODevice::WriteOnly));
        }
        QVERIFY(job.waitForFinished(kJobTimeoutMs));
        ingest->jobExited();
        const auto final = updates.waitFinal();
        QVERIFY(final);
        QCOMPARE(final->loaded.capture->callCount(), size_t(kPhases * kPhaseRanges));
        for (size_t i = 1; i < seen.size(); ++i)
            QVERIFY(seen[i]->loaded.capture->callCount() > seen[i - 1]->loaded.capture->callCount());
    }

    void everyProcessIsARank()
    {
        Updates updates;
        auto ingest = startIngest(updates);
        QVERIFY(ingest);
        const QString workload = SPANSCOPE_NVTX_WORKLOAD;
        QCOMPARE(
            runConnected(*ingest, {"/bin/sh", "-c", workload + " basic && " + workload + " basic"}),
            0);
        const auto final = updates.waitFinal();
        QVERIFY(final);
        const Capture& c = *final->loaded.capture;
        QCOMPARE(c.ranks, std::vector<int32_t>({0, 1}));
        QCOMPARE(final->processes, size_t(2));
        QCOMPARE(callsPerRegion(c)["iteration"], uint64_t(2 * kThreads * kIterations));
        QCOMPARE(c.nvtx.marks.size(), size_t(2 * kMarks));
        const MetadataValue* processes = findMetadata(c.metadata, "processes");
        QVERIFY(processes && processes->integer == 2);
        // Domains merged by name across the two processes.
        int named = 0;
        for (const auto& d : c.nvtx.domains)
            named += c.strings.text(d.name) == kDomainName ? 1 : 0;
        QCOMPARE(named, 1);
        QVERIFY2(c.warnings.empty(), warningsText(c).c_str());
    }

    void forkedWorkersConnectOnTheirOwn()
    {
        // Each worker forked without exec opens its own connection on its first NVTX call
        // and becomes a rank of the live capture.
        Updates updates;
        auto ingest = startIngest(updates);
        QVERIFY(ingest);
        constexpr int kWorkers = 3;
        QCOMPARE(runConnected(*ingest, {SPANSCOPE_NVTX_WORKLOAD, "forkworkers",
                                        QString::number(kWorkers)}),
                 0);
        const auto final = updates.waitFinal();
        QVERIFY(final);
        QCOMPARE(final->processes, size_t(kWorkers + 1));
        const std::string problems =
            spanscope::testing::checkForkedWorkers(*final->loaded.capture, kWorkers);
        QVERIFY2(problems.empty(), problems.c_str());
    }

    void spanBudgetBoundsWhatAFloodKeeps()
    {
        // 10 M push/pop pairs as fast as four threads make them, recorded with a budget of
        // 1,000 spans per second: the capture holds at most the budget's worth for each
        // second of the job's clock (the viewer's memory follows the budget, not the
        // flood), and every pair is accounted for: kept, left out by the budget, or dropped
        // by the collector (whole ranges only: two records a pair).
        constexpr uint64_t kPairs = 10'000'000;
        constexpr double kBudget = 1000;
        Updates updates;
        auto ingest = startIngest(updates, 100, kBudget);
        QVERIFY(ingest);
        QCOMPARE(runConnected(*ingest, {SPANSCOPE_NVTX_WORKLOAD, "pairs", QString::number(kPairs)},
                              Delivery::Default), 0);
        const auto final = updates.waitFinal();
        QVERIFY(final);
        const Capture& c = *final->loaded.capture;
        const live::NvtxCounts& counts = final->counts;
        const uint64_t kept = c.callCount();
        QCOMPARE(counts.droppedRecords % 2, uint64_t(0));
        QCOMPARE(kept + counts.budgetDroppedSpans + counts.droppedRecords / 2, kPairs);
        qInfo("%llu pairs: %llu kept, %llu left out by the budget, %llu dropped by the collector",
              (unsigned long long)kPairs, (unsigned long long)kept,
              (unsigned long long)counts.budgetDroppedSpans,
              (unsigned long long)(counts.droppedRecords / 2));
        QVERIFY(counts.budgetDroppedSpans > 0);
        QVERIFY(kept > 0);
        int64_t first = INT64_MAX, last = INT64_MIN;
        for (const RegionRow& row : c.rows) // the rows' calls (the columns may hold others)
            for (const uint64_t i : c.rowEvents(row)) {
                first = std::min(first, c.events.start[i]);
                last = std::max(last, c.events.end[i]);
            }
        // Budget windows open at most once a second of the job's clock.
        const uint64_t windows = uint64_t((last - first) / 1'000'000'000) + 1;
        QVERIFY2(kept <= uint64_t(kBudget) * windows,
                 qPrintable(QString("%1 spans kept over %2 budget windows").arg(kept).arg(windows)));
    }

    void detachKeepsWhatArrivedAndTheJobCarriesOn()
    {
        Updates updates;
        auto ingest = startIngest(updates);
        QVERIFY(ingest);
        QProcess job;
        QVERIFY(startDemoAndWaitForRanges(job, *ingest, updates, 3));
        ingest->detach();
        const auto final = updates.waitFinal();
        QVERIFY(final);
        QVERIFY(final->endReason.rfind("detached", 0) == 0);
        QVERIFY(final->counts.calls > 100);
        QVERIFY(warningsText(*final->loaded.capture).find("detached") != std::string::npos);
        QVERIFY(job.state() == QProcess::Running); // it carries on without capture
        QVERIFY(job.waitForFinished(kJobTimeoutMs));
        QCOMPARE(job.exitCode(), 0);
    }

    void jobKilledMidCaptureKeepsWhatArrived()
    {
        Updates updates;
        auto ingest = startIngest(updates);
        QVERIFY(ingest);
        QProcess job;
        QVERIFY(startDemoAndWaitForRanges(job, *ingest, updates, 30));
        ingest->watchPid(int(job.processId())); // spanscope-run execs into the job
        ::kill(pid_t(job.processId()), SIGKILL);
        // Not reaped yet (a zombie, as an attached job whose parent is slow would be): the
        // pid watch must still see that it ended.
        const auto final = updates.waitFinal();
        QVERIFY(job.waitForFinished(kJobTimeoutMs));
        QVERIFY(final);
        QCOMPARE(final->endReason, std::string("the job ended"));
        QVERIFY(final->counts.calls > 100);
        const std::string warnings = warningsText(*final->loaded.capture);
        QVERIFY2(warnings.find("no end frame") != std::string::npos, warnings.c_str());
    }

    void malformedStreamIsNamedAndKept()
    {
        Updates updates;
        auto ingest = startIngest(updates);
        QVERIFY(ingest);
        std::string error;
        const int fd = live::connectUnix(ingest->socketPath(), error);
        QVERIFY2(fd >= 0, error.c_str());
        QVERIFY(live::writeAll(fd, std::string(64, 'x')));
        ::close(fd);
        // Read, found damaged and closed by the ingest thread: a condition, not a delay.
        QVERIFY(updates.waitFor([](const live::LiveUpdate& u) {
            return u.processes == 1 && u.openProcesses == 0;
        }));
        ingest->jobExited();
        const auto final = updates.waitFinal();
        QVERIFY(final);
        const std::string warnings = warningsText(*final->loaded.capture);
        QVERIFY2(warnings.find("process connection 1") != std::string::npos, warnings.c_str());
        QVERIFY2(warnings.find("damaged") != std::string::npos, warnings.c_str());
    }

    void jobWithoutNvtxSaysSo()
    {
        Updates updates;
        auto ingest = startIngest(updates);
        QVERIFY(ingest);
        QCOMPARE(runConnected(*ingest, {"/bin/true"}), 0);
        const auto final = updates.waitFinal();
        QVERIFY(final);
        QCOMPARE(final->loaded.capture->events.size(), size_t(0));
        const std::string warnings = warningsText(*final->loaded.capture);
        QVERIFY2(warnings.find("no NVTX records") != std::string::npos, warnings.c_str());
    }

    void waitingJobIsListedAndAttached()
    {
        QTemporaryDir jobs;
        qputenv("SPANSCOPE_JOBS_DIR", jobs.path().toUtf8());
        // A hostile command line: the entry stays one line per value.
        const QString oddArgument = "name with\nnewline \\ and = signs";
        QProcess waiting;
        startTool(waiting, {"--wait", "--", "/bin/sh", "-c",
                            QString(SPANSCOPE_NVTX_WORKLOAD) + " basic", oddArgument});
        QVERIFY(waiting.waitForStarted());
        std::vector<live::WaitingJob> listed;
        QTRY_VERIFY_WITH_TIMEOUT((listed = live::listWaitingJobs().value()).size() == 1, 10000);
        const live::WaitingJob job = listed.front();
        QCOMPARE(job.pid, int(waiting.processId()));
        QVERIFY2(QString::fromStdString(job.command).endsWith(oddArgument), job.command.c_str());
        QCOMPARE(QString::fromStdString(job.workingDirectory), QDir::currentPath());

        // A stranger's request is refused and the job keeps waiting.
        std::string error, answer;
        const int stranger = live::connectUnix(job.controlSocket, error);
        QVERIFY(stranger >= 0);
        QVERIFY(live::writeAll(stranger, "hello\n"));
        QVERIFY(live::readLine(stranger, answer, 5000, error));
        ::close(stranger);
        QVERIFY2(answer.rfind("error ", 0) == 0, answer.c_str());
        QCOMPARE(live::listWaitingJobs().value().size(), size_t(1));

        Updates updates;
        auto ingest = startIngest(updates);
        QVERIFY(ingest);
        auto attached = live::attachToJob(job, ingest->socketPath());
        QVERIFY2(attached.ok(), attached.ok() ? "" : attached.error().toString().c_str());
        QCOMPARE(attached.value(), job.pid);
        QVERIFY(waiting.waitForFinished(kJobTimeoutMs));
        QCOMPARE(waiting.exitCode(), 0);
        ingest->jobExited();
        const auto final = updates.waitFinal();
        QVERIFY(final);
        QCOMPARE(final->counts.calls, uint64_t(kPushes + kRangeStarts));
        QVERIFY(live::listWaitingJobs().value().empty()); // its entries are gone
        QCOMPARE(
            QDir(jobs.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::System),
            QStringList());
        qunsetenv("SPANSCOPE_JOBS_DIR");
    }

    void ctrlCWithdrawsAWaitingJob()
    {
        QTemporaryDir jobs;
        qputenv("SPANSCOPE_JOBS_DIR", jobs.path().toUtf8());
        QProcess waiting;
        startTool(waiting, {"--wait", "--", "/bin/true"});
        QVERIFY(waiting.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(live::listWaitingJobs().value().size() == 1, 10000);
        ::kill(pid_t(waiting.processId()), SIGINT);
        QVERIFY(waiting.waitForFinished(10000));
        QCOMPARE(waiting.exitCode(), 130);
        QVERIFY(live::listWaitingJobs().value().empty());
        qunsetenv("SPANSCOPE_JOBS_DIR");
    }

    void staleForeignAndUnsafeEntries()
    {
        QTemporaryDir jobs;
        qputenv("SPANSCOPE_JOBS_DIR", jobs.path().toUtf8());
        // An entry whose spanscope-run died (a pid that no longer exists) is cleaned up.
        QProcess gone;
        gone.start("/bin/true");
        QVERIFY(gone.waitForFinished());
        const qint64 deadPid = gone.processId() > 0 ? gone.processId() : 999999;
        const QString stale = jobs.filePath(QString::number(deadPid) + ".job");
        {
            QFile f(stale);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QString("pid=%1\ncommand=old\ncwd=/\nsince=1\n").arg(deadPid).toUtf8());
        }
        {
            QFile f(jobs.filePath("junk.job"));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("not=an entry\n");
        }
        auto listed = live::listWaitingJobs();
        QVERIFY(listed.ok());
        QVERIFY(listed.value().empty());
        QVERIFY(!QFile::exists(stale));

        // A directory others may write to is refused, with the reason.
        QCOMPARE(::chmod(jobs.path().toLocal8Bit().constData(), 0777), 0);
        listed = live::listWaitingJobs();
        QVERIFY(!listed.ok());
        QVERIFY2(listed.error().message.find("not a private directory") != std::string::npos,
                 listed.error().message.c_str());
        ::chmod(jobs.path().toLocal8Bit().constData(), 0700);

        // Attaching to a job that went away names it.
        live::WaitingJob missing;
        missing.pid = int(deadPid);
        missing.command = "old";
        missing.controlSocket = jobs.filePath("nothing.sock").toStdString();
        auto attached = live::attachToJob(missing, "/tmp/x.sock", 500);
        QVERIFY(!attached.ok());
        QVERIFY2(attached.error().message.find("no longer waiting") != std::string::npos,
                 attached.error().message.c_str());
        qunsetenv("SPANSCOPE_JOBS_DIR");
    }

    void entryValuesRoundTrip()
    {
        for (const std::string value :
             {"", "plain", "a\nb", "back\\slash", "\\n literal", "\r\n\\"})
            QCOMPARE(live::unescapeEntryValue(live::escapeEntryValue(value)), value);
        QVERIFY(live::escapeEntryValue("a\nb").find('\n') == std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestLiveIngest)
#include "tst_live_ingest.moc"
