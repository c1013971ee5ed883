// Real NVTX jobs (tests/collector/nvtx_workload.cpp) run under libspanscope-collector; their
// streams are decoded with the protocol decoder and checked record by record: every record
// kind, exits with ranges open or threads still recording, forks, floods, two libraries
// with their own NVTX, a job killed mid-capture. With a viewer on the socket:
// tst_collector_viewer.cpp.
#include "support/collector_job_checks.h"

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
        // Every frame's records come after a calibration read after them.
        QCOMPARE(c.stampedAfterTheirCalibration, 0);

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

        // As written: a push with a message only is the short record, one with a category,
        // color or payload the long one; a pop is short in the default domain only.
        int plainPushes = 0, defaultDomainPops = 0;
        for (const auto& p : c.pushes)
            plainPushes += (p.category | p.color | p.payloadKind) == 0;
        for (const auto& p : c.pops)
            defaultDomainPops += p.domain == 0;
        QVERIFY(plainPushes > 0 && plainPushes < kPushes);
        QVERIFY(defaultDomainPops > 0 && defaultDomainPops < kPushes);
        auto written = recordTypesIn(file);
        QCOMPARE(written[RecordType::PushShort], plainPushes);
        QCOMPARE(written[RecordType::Push], kPushes - plainPushes);
        QCOMPARE(written[RecordType::PopShort], defaultDomainPops);
        QCOMPARE(written[RecordType::Pop], kPushes - defaultDomainPops);

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
        // A frame of records every few ms for 300 ms: each carries a calibration read after
        // its records were stamped.
        QCOMPARE(c.stampedAfterTheirCalibration, 0);
        // Pairs stay whole: a dropped push takes its pop along, and a recorded push always
        // finds room for its pop. On every thread the stream's stack never goes below zero
        // and ends empty, so the viewer never matches a pop with the wrong range.
        QVERIFY(c.dropped > 0);
        const std::string unbalanced = unbalancedStacks(c);
        QVERIFY2(unbalanced.empty(), unbalanced.c_str());
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
