// Real NVTX jobs (tests/collector/nvtx_workload.cpp) run under libspanscope-collector; their
// streams are decoded with the protocol decoder and checked record by record.
#include "collector/nvtx_workload_counts.h"
#include "protocol/spanscope_decoder.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <set>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace spanscope::protocol;
using namespace spanscope::test;

namespace {

// Everything a stream held, in stream order where it matters.
struct Capture : DecoderHandler
{
    struct Timed
    {
        std::uint32_t tid;
        std::uint64_t timestamp;
    };
    std::map<std::uint32_t, std::string> strings;
    std::vector<ThreadInfoRecord> threads;
    std::vector<PushRecord> pushes;
    std::vector<PopRecord> pops;
    std::vector<RangeStartRecord> starts;
    std::vector<RangeEndRecord> ends;
    std::vector<MarkRecord> marks;
    std::vector<DomainCreateRecord> domains;
    std::vector<CategoryNameRecord> categories;
    std::vector<ClockCalibrationRecord> calibrations;
    std::vector<Timed> timeline; // every timed record, in stream order
    // Push (+1) and pop (-1) per (tid, domain), in stream order, with the pushed message.
    std::vector<std::pair<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t>> stackOps;
    std::uint64_t dropped = 0;
    bool hello = false, end = false;

    void onHello(const HelloPayload&) override { hello = true; }
    void onEnd() override { end = true; }
    void onString(std::uint32_t id, std::string_view s) override { strings[id] = std::string(s); }
    void onThreadInfo(const ThreadInfoRecord& r) override { threads.push_back(r); }
    void onPush(const PushRecord& r) override
    {
        pushes.push_back(r);
        timeline.push_back({r.tid, r.timestamp});
        stackOps.push_back({{r.tid, r.domain}, r.message});
    }
    void onPop(const PopRecord& r) override
    {
        pops.push_back(r);
        timeline.push_back({r.tid, r.timestamp});
        stackOps.push_back({{r.tid, r.domain}, 0xFFFFFFFFu});
    }
    void onRangeStart(const RangeStartRecord& r) override
    {
        starts.push_back(r);
        timeline.push_back({r.tid, r.timestamp});
    }
    void onRangeEnd(const RangeEndRecord& r) override
    {
        ends.push_back(r);
        timeline.push_back({r.tid, r.timestamp});
    }
    void onMark(const MarkRecord& r) override
    {
        marks.push_back(r);
        timeline.push_back({r.tid, r.timestamp});
    }
    void onDomainCreate(const DomainCreateRecord& r) override { domains.push_back(r); }
    void onCategoryName(const CategoryNameRecord& r) override { categories.push_back(r); }
    void onClockCalibration(const ClockCalibrationRecord& r) override { calibrations.push_back(r); }
    void onDropped(const DroppedRecord& r) override { dropped += r.count; }

    std::string str(std::uint32_t id) const
    {
        auto it = strings.find(id);
        return it == strings.end() ? std::string() : it->second;
    }
    std::uint32_t tidNamed(const std::string& name) const
    {
        for (const auto& t : threads)
            if (str(t.nameId) == name)
                return t.tid;
        return 0;
    }
};

QProcessEnvironment collectorEnv(const char* var, const QString& value)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("NVTX_INJECTION64_PATH", SPANSCOPE_COLLECTOR_LIB);
    env.remove("SPANSCOPE_OUTPUT");
    env.remove("SPANSCOPE_SOCKET");
    env.insert(var, value);
    return env;
}

// Runs the workload with SPANSCOPE_OUTPUT=<file>; returns false (with a QTest failure) if it
// does not finish within `timeoutMs` or fails.
bool runToFile(const QStringList& args, const QString& file, QByteArray* out = nullptr,
               int timeoutMs = 30000, bool forks = false, const QStringList& extraEnv = {})
{
    QProcess p;
    QProcessEnvironment env = collectorEnv("SPANSCOPE_OUTPUT", file);
    for (const QString& entry : extraEnv)
        env.insert(entry.section('=', 0, 0), entry.section('=', 1));
    if (forks) {
        // In a sanitizer build, a child forked while the collector's sender thread holds
        // the sanitizer allocator's lock deadlocks in LeakSanitizer's exit check (GCC 12's
        // runtime takes no fork handler for it): the job forks without exec, so no leak
        // check in this run. The collector's own behaviour in the child is what is tested.
        const QString asan = env.value("ASAN_OPTIONS");
        env.insert("ASAN_OPTIONS", asan.isEmpty() ? QStringLiteral("detect_leaks=0") : asan + QStringLiteral(":detect_leaks=0"));
    }
    p.setProcessEnvironment(env);
    p.start(SPANSCOPE_NVTX_WORKLOAD, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        qWarning("workload %s timed out", qPrintable(args.join(' ')));
        return false;
    }
    const QByteArray err = p.readAllStandardError();
    if (!err.isEmpty())
        qWarning("workload stderr: %s", err.constData());
    if (out)
        *out = p.readAllStandardOutput();
    return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

// Decodes a whole file; the error, empty when the stream is well-formed.
std::string decodeFile(const QString& path, Capture& capture)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return "cannot open " + path.toStdString();
    const QByteArray bytes = f.readAll();
    Decoder d(capture);
    // Feed in odd-sized chunks to exercise frames split across reads.
    for (qsizetype i = 0; i < bytes.size(); i += 4093)
        d.feed(bytes.constData() + i, std::size_t(std::min<qsizetype>(4093, bytes.size() - i)));
    d.finish();
    return d.error();
}

// Empty when every thread's push/pop stack in the stream never goes below zero and ends
// empty: no pop the viewer would match with the wrong range, no range left open because its
// pop was lost. Otherwise what is wrong.
std::string unbalancedStacks(const Capture& c)
{
    std::map<std::uint32_t, int64_t> depth;
    for (const auto& op : c.stackOps) {
        int64_t& level = depth[op.first.first];
        level += op.second == 0xFFFFFFFFu ? -1 : 1; // see onPop
        if (level < 0)
            return "thread " + std::to_string(op.first.first) + ": a pop with nothing open";
    }
    for (const auto& [tid, level] : depth)
        if (level != 0)
            return "thread " + std::to_string(tid) + ": " + std::to_string(level) +
                   " ranges never closed";
    return {};
}

// A Unix socket server on a temp path that accepts one connection and then never reads it,
// closes it at once, or reads it to the end. Test thread only.
class FakeViewer
{
public:
    enum class Mode { NeverRead, CloseAtOnce, ReadAll };

    FakeViewer(const QString& path, Mode mode) : m_mode(mode)
    {
        m_listen = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::strncpy(addr.sun_path, path.toLocal8Bit().constData(), sizeof addr.sun_path - 1);
        ::bind(m_listen, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
        ::listen(m_listen, 1);
        m_thread = std::thread([this] {
            m_conn = ::accept(m_listen, nullptr, nullptr);
            if (m_mode == Mode::CloseAtOnce && m_conn >= 0) {
                ::close(m_conn);
                m_conn = -1;
            }
            if (m_mode == Mode::ReadAll)
                drain();
        });
    }
    ~FakeViewer()
    {
        ::shutdown(m_listen, SHUT_RDWR);
        if (m_thread.joinable())
            m_thread.join();
        if (m_conn >= 0)
            ::close(m_conn);
        ::close(m_listen);
    }
    // A viewer that never read starts reading now (in the background, to the end).
    void startReading()
    {
        if (m_thread.joinable())
            m_thread.join(); // the job connected
        m_thread = std::thread([this] { drain(); });
    }
    // After the job ended: everything it managed to send.
    QByteArray readAll()
    {
        if (m_thread.joinable())
            m_thread.join();
        drain();
        return m_received;
    }

private:
    void drain()
    {
        char buf[65536];
        ssize_t n;
        while (m_conn >= 0 && (n = ::read(m_conn, buf, sizeof buf)) > 0)
            m_received.append(buf, n);
    }

    Mode m_mode;
    QByteArray m_received;
    int m_listen = -1;
    int m_conn = -1;
    std::thread m_thread;
};

constexpr int kLosslessPairs = 2000000;

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

class TestCollectorCapture : public QObject
{
    Q_OBJECT
private slots:
    void everyRecordKind()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("basic.sps");
        QVERIFY(runToFile({"basic"}, file));
        Capture c;
        const std::string error = decodeFile(file, c);
        QVERIFY2(error.empty(), error.c_str());
        QVERIFY(c.hello);
        QVERIFY(c.end);
        QCOMPARE(c.dropped, std::uint64_t(0));
        QVERIFY(c.calibrations.size() >= 2);
        for (const auto& cal : c.calibrations)
            QVERIFY(cal.ticksPerSecond > 1e6);

        QCOMPARE(int(c.pushes.size()), kPushes);
        QCOMPARE(int(c.pops.size()), kPushes);
        QCOMPARE(int(c.marks.size()), kMarks);
        QCOMPARE(int(c.starts.size()), kRangeStarts);
        QCOMPARE(int(c.ends.size()), kRangeStarts);
        QCOMPARE(int(c.threads.size()), kThreadNames);

        // Threads: named, distinct, and the ones that made the records.
        const std::uint32_t mainTid = c.tidNamed("main");
        QVERIFY(mainTid != 0);
        std::set<std::uint32_t> workerTids;
        for (int i = 0; i < kThreads; ++i)
            workerTids.insert(c.tidNamed("worker-" + std::to_string(i)));
        QCOMPARE(int(workerTids.size()), kThreads);
        QVERIFY(!workerTids.count(0) && !workerTids.count(mainTid));
        std::set<std::uint32_t> pushTids;
        for (const auto& p : c.pushes)
            pushTids.insert(p.tid);
        std::set<std::uint32_t> expectedTids = workerTids;
        expectedTids.insert(mainTid);
        QCOMPARE(pushTids, expectedTids);

        // Domains and categories.
        QCOMPARE(int(c.domains.size()), 1);
        QCOMPARE(c.str(c.domains[0].nameId), std::string(kDomainName));
        const std::uint32_t domain = c.domains[0].domain;
        QVERIFY(domain != 0);
        bool coreCategory = false, stepCategory = false;
        for (const auto& cat : c.categories) {
            coreCategory |= cat.domain == 0 && cat.category == kCoreCategory &&
                            c.str(cat.nameId) == "core-category";
            stepCategory |= cat.domain == domain && cat.category == kStepCategory &&
                            c.str(cat.nameId) == "steps";
        }
        QVERIFY(coreCategory);
        QVERIFY(stepCategory);

        // The main thread's pushes: A, W and Ex, with the Ex attributes intact.
        std::vector<std::string> mainPushes;
        for (const auto& p : c.pushes)
            if (p.tid == mainTid)
                mainPushes.push_back(c.str(p.message));
        QCOMPARE(mainPushes, (std::vector<std::string>{"outer", "inner-w", "inner-ex"}));
        for (const auto& p : c.pushes) {
            if (c.str(p.message) == "inner-ex") {
                QCOMPARE(p.color, kColor);
                QCOMPARE(p.category, kCoreCategory);
                QCOMPARE(p.payloadKind, std::uint32_t(PayloadKind::U64));
                QCOMPARE(p.payload, kPayload);
                QCOMPARE(p.domain, 0u);
            } else if (p.tid != mainTid) {
                QCOMPARE(p.domain, domain);
                const std::string m = c.str(p.message);
                QVERIFY2(m == "iteration" || m == "step", m.c_str());
                if (m == "step") {
                    QCOMPARE(p.category, kStepCategory);
                    QCOMPARE(p.payloadKind, std::uint32_t(PayloadKind::I32));
                    QCOMPARE(p.color, 0xFFFF0000u);
                }
            }
        }

        // Nesting: per thread and domain, pops match pushes; workers nest step in iteration.
        std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::string>> stacks;
        for (const auto& [key, message] : c.stackOps) {
            auto& stack = stacks[key];
            if (message == 0xFFFFFFFFu) {
                QVERIFY(!stack.empty());
                stack.pop_back();
            } else {
                if (key.first != mainTid) {
                    const std::string m = c.str(message);
                    QCOMPARE(m, std::string(stack.empty() ? "iteration" : "step"));
                }
                stack.push_back(c.str(message));
                QVERIFY(stack.size() <= 3);
            }
        }
        for (const auto& [key, stack] : stacks)
            QVERIFY(stack.empty());

        // Marks: A, W, Ex on main; one domain mark per worker.
        std::multiset<std::string> markNames;
        for (const auto& m : c.marks) {
            markNames.insert(c.str(m.message));
            QCOMPARE(m.domain, c.str(m.message) == "worker-done" ? domain : 0u);
        }
        QCOMPARE(markNames.count("mark-a"), std::size_t(1));
        QCOMPARE(markNames.count("mark-w"), std::size_t(1));
        QCOMPARE(markNames.count("mark-ex"), std::size_t(1));
        QCOMPARE(markNames.count("worker-done"), std::size_t(kThreads));

        // Start/end: every start ends once; "cross" starts on main and ends on worker-0.
        std::map<std::uint64_t, RangeStartRecord> startById;
        for (const auto& s : c.starts) {
            QVERIFY(s.rangeId != 0);
            QVERIFY(startById.emplace(s.rangeId, s).second);
        }
        for (const auto& e : c.ends) {
            QVERIFY(startById.count(e.rangeId));
            const auto& s = startById[e.rangeId];
            QVERIFY(e.timestamp >= s.timestamp);
            if (c.str(s.message) == "cross") {
                QCOMPARE(s.tid, mainTid);
                QCOMPARE(e.tid, c.tidNamed("worker-0"));
            }
            if (c.str(s.message) == "domain-async")
                QCOMPARE(s.domain, domain);
            startById.erase(e.rangeId);
        }
        QVERIFY(startById.empty());

        // Timestamps never go back within a thread.
        std::map<std::uint32_t, std::uint64_t> last;
        for (const auto& t : c.timeline) {
            QVERIFY(t.timestamp >= last[t.tid]);
            last[t.tid] = t.timestamp;
        }
    }

    void exitWithRangesOpenStillFlushes()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("open.sps");
        QVERIFY(runToFile({"open"}, file));
        Capture c;
        const std::string error = decodeFile(file, c);
        QVERIFY2(error.empty(), error.c_str());
        QVERIFY(c.end);
        QCOMPARE(int(c.pushes.size()), 3);
        QCOMPARE(int(c.pops.size()), 1);
        QCOMPARE(int(c.starts.size()), 1);
        QCOMPARE(int(c.ends.size()), 0);
        QCOMPARE(c.str(c.starts[0].message), std::string("open-async"));
    }

    // A thread still flooding while the process exits: the process still ends, and the
    // stream it leaves is well-formed (the exit flush sends at most what was queued when it
    // began; here the flood's own drops end it sooner, so this does not single that out).
    void exitWhileAThreadStillRecords()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("endless.sps");
        QVERIFY(runToFile({"exitduringflood", "2000000"}, file, nullptr, 60000));
        Capture c;
        const std::string error = decodeFile(file, c);
        QVERIFY2(error.empty(), error.c_str());
        QVERIFY(c.hello);
        QVERIFY(!c.pushes.empty());
    }

    void forkingJob()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("fork.sps");
        QByteArray out;
        QVERIFY(runToFile({"fork"}, file, &out, 20000, true));
        const QList<QByteArray> words = out.trimmed().split(' ');
        QCOMPARE(words.size(), 2);
        const std::uint32_t childPid = words[1].toUInt();
        QVERIFY(childPid != 0);
        Capture c;
        const std::string error = decodeFile(file, c);
        QVERIFY2(error.empty(), error.c_str());
        QVERIFY(c.end);
        // The parent's records are all there; the child recorded nothing: one file cannot
        // hold two streams (with a directory or a socket the child gets its own, see
        // tst_spanscope_run forkedWorkersAreProcessesOfTheirOwn).
        QCOMPARE(int(c.pushes.size()), 1);
        QCOMPARE(int(c.pops.size()), 1);
        QCOMPARE(int(c.marks.size()), 1);
        QCOMPARE(c.str(c.marks[0].message), std::string("after-fork"));
        for (const auto& t : c.timeline)
            QVERIFY(t.tid != childPid);
    }

    // A flood overflows the rings: every record is either in the stream or in a Dropped count.
    void floodAccountsForEveryRecord()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("flood.sps");
        QByteArray out;
        // A 1 MiB queue cap: four flooding threads pass it on any machine, sanitized or
        // not, so the drop path is exercised.
        QVERIFY(runToFile({"flood", "300"}, file, &out, 30000, false, {"SPANSCOPE_QUEUE_CAP_MB=1"}));
        QVERIFY(out.startsWith("pairs "));
        const std::uint64_t pairs = out.mid(6).trimmed().toULongLong();
        QVERIFY(pairs > 0);
        Capture c;
        const std::string error = decodeFile(file, c);
        QVERIFY2(error.empty(), error.c_str());
        QVERIFY(c.end);
        QCOMPARE(c.pushes.size() + c.pops.size() + c.dropped, 2 * pairs);
        // Pairs stay whole: a dropped push takes its pop along, and a recorded push always
        // finds room for its pop. On every thread the stream's stack never goes below zero
        // and ends empty, so the viewer never matches a pop with the wrong range.
        QVERIFY(c.dropped > 0);
        const std::string unbalanced = unbalancedStacks(c);
        QVERIFY2(unbalanced.empty(), unbalanced.c_str());
    }

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

        const QByteArray bytes = viewer.readAll();
        Capture c;
        Decoder d(c);
        QVERIFY2(d.feed(bytes.constData(), std::size_t(bytes.size())), d.error().c_str());
        QVERIFY2(d.finish(), d.error().c_str());
        QVERIFY(c.end);
        QVERIFY(c.dropped > 0); // the socket really was full
        QCOMPARE(c.pushes.size() + c.pops.size() + c.dropped, 2 * pairs);
        const std::string unbalanced = unbalancedStacks(c);
        QVERIFY2(unbalanced.empty(), unbalanced.c_str());
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

    void twoLibrariesWithTheirOwnNvtx()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("twolibs.sps");
        QVERIFY(runToFile({"twolibs"}, file));
        Capture c;
        const std::string error = decodeFile(file, c);
        QVERIFY2(error.empty(), error.c_str());
        QVERIFY(c.end);
        // One domain, merged by name; the second library's CORE and CORE2 calls arrived.
        QCOMPARE(int(c.domains.size()), 1);
        const std::uint32_t domain = c.domains[0].domain;
        std::map<std::string, std::uint32_t> pushDomain;
        for (const auto& p : c.pushes)
            pushDomain[c.str(p.message)] = p.domain;
        QCOMPARE(pushDomain.size(), std::size_t(3));
        QCOMPARE(pushDomain["first-library"], domain);
        QCOMPARE(pushDomain["second-library"], domain);
        QCOMPARE(pushDomain["second-core"], 0u);
        QCOMPARE(int(c.pops.size()), 3);
    }

    void jobKilledMidCapture()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("killed.sps");
        QProcess p;
        p.setProcessEnvironment(collectorEnv("SPANSCOPE_OUTPUT", file));
        p.start(SPANSCOPE_NVTX_WORKLOAD, {"flood", "20000"});
        QVERIFY(p.waitForStarted());
        // Killed once its stream holds ranges (well past the Hello frame and the first
        // definitions): a condition, so a loaded machine cannot make the test vacuous.
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(file).size() >= 64 * 1024, 15000); // it floods for 20 s
        p.kill();
        QVERIFY(p.waitForFinished(5000));
        // What was written is a well-formed stream without an End frame (a frame cut by the
        // kill aside).
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        Capture c;
        Decoder d(c);
        QVERIFY2(d.feed(bytes.constData(), std::size_t(bytes.size())), d.error().c_str());
        if (!d.finish())
            QVERIFY2(d.error().find("truncated") != std::string::npos, d.error().c_str());
        QVERIFY(c.hello);
        QVERIFY(!c.end);
        QVERIFY(!c.pushes.empty());
    }

    void dumpToolReadsARecording()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("dump.sps");
        QVERIFY(runToFile({"basic"}, file));
        QProcess dump;
        dump.start(SPANSCOPE_SPS_DUMP, {file});
        QVERIFY(dump.waitForFinished(30000));
        const QByteArray out = dump.readAllStandardOutput();
        QVERIFY2(dump.exitCode() == 0, dump.readAllStandardError().constData());
        QVERIFY2(out.contains("complete (end frame)"), out.constData());
        QVERIFY2(out.contains(QByteArray("push               ") + QByteArray::number(kPushes)),
                 out.constData());
        QVERIFY2(out.contains("worker-3"), out.constData());

        // A cut file: non-zero exit and the decoder's reason.
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.resize(f.size() - 5));
        f.close();
        dump.start(SPANSCOPE_SPS_DUMP, {file});
        QVERIFY(dump.waitForFinished(30000));
        QCOMPARE(dump.exitCode(), 1);
        QVERIFY(dump.readAllStandardError().contains("stream truncated"));
    }

    void noDestinationMeansNoCollectionAndNoHarm()
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("NVTX_INJECTION64_PATH", SPANSCOPE_COLLECTOR_LIB);
        env.remove("SPANSCOPE_OUTPUT");
        env.remove("SPANSCOPE_SOCKET");
        p.setProcessEnvironment(env);
        p.start(SPANSCOPE_NVTX_WORKLOAD, {"basic"});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const QByteArray err = p.readAllStandardError();
        QCOMPARE(err.count("spanscope-collector: "), 1); // logged once, then off
    }
};

QTEST_GUILESS_MAIN(TestCollectorCapture)
#include "tst_collector_capture.moc"
