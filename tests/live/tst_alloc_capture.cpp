// spanscope-run --alloc on a real NVTX job with known allocations (alloc_nvtx_workload.cpp):
// every range's exclusive allocation count and bytes arrive exactly, in the saved capture
// and in spanscope-cli summary's JSON; a job without NVTX calls still reports its totals.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Run
{
    int exitCode = -1;
    QByteArray out, err;
};

Run run(const QString& program, const QStringList& args)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("SPANSCOPE_COLLECTOR", SPANSCOPE_COLLECTOR_LIB);
    env.remove("NVTX_INJECTION64_PATH");
    env.remove("LD_PRELOAD");
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    if (!p.waitForFinished(120000))
        p.kill(), p.waitForFinished();
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

QJsonObject summaryOf(const QString& h5)
{
    const Run cli = run(SPANSCOPE_CLI, {"summary", h5, "--format", "json"});
    if (cli.exitCode != 0)
        qWarning() << cli.err;
    return QJsonDocument::fromJson(cli.out).object();
}

} // namespace

class TestAllocCapture : public QObject
{
    Q_OBJECT

private slots:
    void rangesCarryTheirExclusiveAllocations()
    {
        QTemporaryDir dir;
        const QString h5 = dir.filePath("allocs.h5");
        const Run job = run(SPANSCOPE_RUN, {"--alloc", "--output", h5, "--", SPANSCOPE_ALLOC_NVTX_WORKLOAD});
        QVERIFY2(job.exitCode == 0, job.err.constData());
        const QJsonObject summary = summaryOf(h5);
        QMap<QString, QPair<qint64, qint64>> perRange;
        for (const QJsonValue& region : summary["regions"].toArray()) {
            const QJsonObject r = region.toObject();
            QVERIFY2(r["alloc_count"].isDouble(), qPrintable(r["name"].toString() + " has no alloc_count"));
            perRange[r["name"].toString()] = {r["alloc_count"].toInteger(), r["alloc_bytes"].toInteger()};
        }
        // The span API's span is a range of its own, with what it measured.
        const QMap<QString, QPair<qint64, qint64>> expected = {
            {"outer", {2, 200}}, {"inner", {4, 184}}, {"worker", {18, 10580}}, {"empty", {0, 0}},
            {"big", {1, 3 << 20}}, {"alloc: fill", {3, 192}}}; // worker: two calls of 9, 5290
        QCOMPARE(perRange, expected);

        // Their log2 size bins: {lowest size of the bin: (allocations, bytes)}.
        QMap<QString, QMap<qint64, QPair<qint64, qint64>>> sizes;
        for (const QJsonValue& region : summary["regions"].toArray())
            for (const QJsonValue& bin : region.toObject()["alloc_sizes"].toArray())
                sizes[region.toObject()["name"].toString()][bin.toObject()["min_bytes"].toInteger()] = {
                    bin.toObject()["allocations"].toInteger(), bin.toObject()["bytes"].toInteger()};
        using Bins = QMap<qint64, QPair<qint64, qint64>>;
        QCOMPARE(sizes["outer"], (Bins{{64, {2, 200}}}));
        QCOMPARE(sizes["inner"], (Bins{{32, {3, 120}}, {64, {1, 64}}}));
        // (two calls of "worker", one on each worker thread)
        QCOMPARE(sizes["worker"], (Bins{{4, {2, 8}}, {8, {2, 20}}, {16, {2, 40}}, {256, {2, 512}}, {512, {10, 10000}}}));
        QCOMPARE(sizes["big"], (Bins{{2 << 20, {1, 3 << 20}}}));
        QVERIFY(!sizes.contains("empty"));

        const QJsonObject metadata = summary["metadata"].toObject();
        QCOMPARE(metadata["dropped_records"].toInt(), 0);
        // The totals cover everything the job allocated, ranges or not.
        const qint64 total = metadata["alloc_total_allocations"].toInteger();
        QVERIFY(total >= 16);
        QVERIFY(metadata["alloc_total_bytes"].toInteger() >= 5674 + (3 << 20));
        QCOMPARE(metadata["alloc_in_ranges_allocations"].toInteger(), 25); // the span's are outside
        QStringList domains;
        for (const QJsonValue& d : summary["domains"].toArray())
            domains << d.toObject()["name"].toString();
        QVERIFY2(domains.contains("allocation spans"), qPrintable(domains.join(',')));
        QCOMPARE(metadata["alloc_in_ranges_bytes"].toInteger(), 5674 + 5290 + (3 << 20));

        // Per thread: each worker made its 9 inside "worker" (the second one on the counter
        // block the first left behind: its count must not include the first's); every
        // thread's count is its ranges' plus what it made outside them, and the threads add
        // up to the job's total.
        const QJsonArray threads = summary["threads"].toArray();
        QCOMPARE(threads.size(), 3);
        qint64 threadSum = 0;
        for (const QJsonValue& t : threads) {
            const QJsonObject thread = t.toObject();
            threadSum += thread["alloc_count"].toInteger();
            const qint64 outside = thread["alloc_outside_ranges_count"].toInteger();
            if (thread["id"].toInt() >= 1) {
                QCOMPARE(thread["alloc_count"].toInteger(), 9);
                QCOMPARE(outside, 0);
            } else { // outer, inner, big; then the span's 3 and the job's own setup, outside
                QCOMPARE(thread["alloc_count"].toInteger() - outside, 7);
                QVERIFY(outside >= 3);
            }
        }
        QCOMPARE(threadSum, total);
        // The job's allocations as one device: the counts, and the heap's peak, which the
        // 3 MiB block (sent one by one, with the heap right after it) reached.
        const QJsonObject cpu = summary["allocations"].toArray()[0].toObject();
        QCOMPARE(cpu["device"].toString(), QStringLiteral("cpu"));
        QCOMPARE(cpu["allocs"].toInteger(), total);
        QVERIFY2(cpu["peak_bytes"].toInteger() >= 3 << 20, QJsonDocument(cpu).toJson().constData());
        // The span API's operation, with the fields of Report::writeJson.
        const QJsonArray operations = summary["alloc_operations"].toArray();
        QCOMPARE(operations.size(), 1);
        const QJsonObject fill = operations[0].toObject();
        QCOMPARE(fill["name"].toString(), QStringLiteral("fill"));
        QCOMPARE(fill["spans"].toInt(), 1);
        QCOMPARE(fill["iterations"].toInt(), 3);
        QCOMPARE(fill["allocations_per_iteration"].toDouble(), 1.0);
        QCOMPARE(fill["bytes_per_iteration"].toDouble(), 64.0);
        QVERIFY(fill["bytes_interval"].isNull()); // one span: no interval
        QVERIFY(metadata["alloc_outside_ranges_allocations"].toInteger() > 0); // std::thread, stdio
        QVERIFY(metadata["alloc_peak_live_bytes"].toInteger() > 0);

        // The text summary has a table of them; the CSV two columns.
        const Run text = run(SPANSCOPE_CLI, {"summary", h5});
        QVERIFY2(QRegularExpression("\\nworker +2 +18 +10\\.33 KiB +9\\.00").match(QString::fromUtf8(text.out)).hasMatch(),
                 text.out.constData());
        const Run csv = run(SPANSCOPE_CLI, {"summary", h5, "--format", "csv"});
        QVERIFY(csv.out.contains(",alloc_count,alloc_bytes,kind\n"));
        QVERIFY2(QRegularExpression(",worker,0,2,.*,18,10580,cpu\\n").match(QString::fromUtf8(csv.out)).hasMatch(),
                 csv.out.constData());
    }

    // spanscope-cli compare --metric allocs: a run whose "worker" makes 2 more allocations
    // per call fails the gate (exit 1, verdict "more"); the unchanged ranges are noise.
    void compareGatesOnMoreAllocations()
    {
        QTemporaryDir dir;
        const QString base = dir.filePath("base.h5"), more = dir.filePath("more.h5");
        QCOMPARE(run(SPANSCOPE_RUN, {"--alloc", "--output", base, "--", SPANSCOPE_ALLOC_NVTX_WORKLOAD, "40", "0"}).exitCode, 0);
        QCOMPARE(run(SPANSCOPE_RUN, {"--alloc", "--output", more, "--", SPANSCOPE_ALLOC_NVTX_WORKLOAD, "40", "2"}).exitCode, 0);
        const Run compare = run(SPANSCOPE_CLI, {"compare", base, more, "--metric", "allocs", "--format", "json"});
        QCOMPARE(compare.exitCode, 1);
        const QJsonObject result = QJsonDocument::fromJson(compare.out).object();
        QVERIFY(result["any_significant_slowdown"].toBool());
        QMap<QString, QJsonObject> changes;
        for (const QJsonValue& region : result["regions"].toArray())
            changes[region.toObject()["name"].toString()] = region.toObject()["changes"].toArray()[0].toObject();
        QCOMPARE(changes["worker"]["verdict"].toString(), QStringLiteral("more"));
        QCOMPARE(changes["worker"]["baseline_allocations"].toDouble(), 9.0);
        QCOMPARE(changes["worker"]["candidate_allocations"].toDouble(), 11.0);
        QCOMPARE(changes["empty"]["verdict"].toString(), QStringLiteral("noise"));
        // The other way round: fewer, and the gate passes.
        const Run back = run(SPANSCOPE_CLI, {"compare", more, base, "--metric", "bytes"});
        QCOMPARE(back.exitCode, 0);
        QVERIFY2(back.out.contains("fewer"), back.out.constData());
    }

    void withoutNvtxTheTotalsStillArrive()
    {
        QTemporaryDir dir;
        const QString h5 = dir.filePath("plain.h5");
        // ls makes no NVTX call at all.
        const Run job = run(SPANSCOPE_RUN, {"--alloc", "--output", h5, "--", "/bin/ls", "/"});
        QVERIFY2(job.exitCode == 0, job.err.constData());
        const QJsonObject metadata = summaryOf(h5)["metadata"].toObject();
        QVERIFY2(metadata["alloc_total_allocations"].toInteger() > 0,
                 QJsonDocument(metadata).toJson().constData());
        QCOMPARE(metadata["alloc_in_ranges_allocations"].toInteger(), 0);
        QCOMPARE(metadata["alloc_outside_ranges_allocations"].toInteger(),
                 metadata["alloc_total_allocations"].toInteger());
        // The text summary says so too, with no region to list.
        const Run text = run(SPANSCOPE_CLI, {"summary", h5});
        QVERIFY2(text.out.contains("  job total: ") && text.out.contains("of them outside every range"),
                 text.out.constData());
    }

    void withoutAllocTheColumnsStayEmpty()
    {
        QTemporaryDir dir;
        const QString h5 = dir.filePath("nvtx.h5");
        // (alloc_nvtx_workload links libspanscope-alloc for its span, so it always reports.)
        const Run job = run(SPANSCOPE_RUN, {"--output", h5, "--", SPANSCOPE_NVTX_WORKLOAD, "basic"});
        QVERIFY2(job.exitCode == 0, job.err.constData());
        const QJsonObject summary = summaryOf(h5);
        QVERIFY(!summary["regions"].toArray().isEmpty());
        for (const QJsonValue& region : summary["regions"].toArray())
            QVERIFY(region.toObject()["alloc_count"].isNull());
        QVERIFY(!summary["metadata"].toObject().contains("alloc_total_allocations"));
    }
};

QTEST_GUILESS_MAIN(TestAllocCapture)
#include "tst_alloc_capture.moc"
