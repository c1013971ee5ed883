// libspanscope-alloc: the interposer counts every kind of allocation function once, with
// the requested size (a preloaded program with known allocations), and the span API of
// <spanscope/alloc.h> follows its rules (a linked program, one mode per process: reports,
// the abort of a span without iterations, exceptions unwinding through spans, merging).
#include "span_statistics.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#include <cmath>
#include <csignal>

using spanscope::alloc_internal::SpanRecord;

namespace {

struct Counted
{
    quint64 allocations = 0, bytes = 0, frees = 0;
    bool operator==(const Counted&) const = default;
};

struct Run
{
    int exitCode = -1;
    QProcess::ExitStatus status = QProcess::NormalExit;
    QByteArray out, err;
};

Run runProgram(const QString& program, const QStringList& arguments, bool preload)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("LD_PRELOAD"));
    if (preload)
        env.insert(QStringLiteral("LD_PRELOAD"), QStringLiteral(SPANSCOPE_ALLOC_LIB));
    process.setProcessEnvironment(env);
    process.start(program, arguments);
    Run run;
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        run.err = "did not finish";
        return run;
    }
    run.exitCode = process.exitCode();
    run.status = process.exitStatus();
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

QJsonObject operationNamed(const QJsonDocument& report, const QString& name)
{
    for (const QJsonValue& op : report.object().value(QStringLiteral("operations")).toArray())
        if (op.toObject().value(QStringLiteral("name")).toString() == name)
            return op.toObject();
    return {};
}

} // namespace

class TestAlloc : public QObject
{
    Q_OBJECT

private slots:
    void slopeThroughOriginWithHc0Interval()
    {
        // (1, 110), (2, 190), (4, 420): slope 2170/21; residuals 20/3, -50/3, 20/3;
        // se = sqrt(1*400/9 + 4*2500/9 + 16*400/9) / 21; t(0.975, 2) = 4.30265273.
        const std::vector<SpanRecord> spans = {{1, 110, 1}, {2, 190, 1}, {4, 420, 1}};
        const auto bytes = spanscope::alloc_internal::slopeThroughOrigin(spans, &SpanRecord::bytes);
        const double slope = 2170.0 / 21.0;
        const double se = std::sqrt((400.0 + 4 * 2500.0 + 16 * 400.0) / 9.0) / 21.0;
        QVERIFY(std::abs(bytes.slope - slope) < 1e-9);
        QVERIFY(std::abs(bytes.low - (slope - 4.30265273 * se)) < 1e-6);
        QVERIFY(std::abs(bytes.high - (slope + 4.30265273 * se)) < 1e-6);
        const auto allocs = spanscope::alloc_internal::slopeThroughOrigin(spans, &SpanRecord::allocations);
        QVERIFY(std::abs(allocs.slope - 7.0 / 21.0) < 1e-12);

        // One span: a slope, no interval. No iterations at all: nothing.
        const auto one = spanscope::alloc_internal::slopeThroughOrigin({{4, 400, 4}}, &SpanRecord::bytes);
        QCOMPARE(one.slope, 100.0);
        QVERIFY(std::isnan(one.low) && std::isnan(one.high));
        const auto none = spanscope::alloc_internal::slopeThroughOrigin({{0, 10, 1}, {0, 20, 2}},
                                                                        &SpanRecord::bytes);
        QVERIFY(std::isnan(none.slope) && std::isnan(none.low));
        // Exact data: a zero-width interval.
        const auto exact = spanscope::alloc_internal::slopeThroughOrigin({{1, 8, 1}, {3, 24, 3}},
                                                                         &SpanRecord::bytes);
        QCOMPARE(exact.slope, 8.0);
        QCOMPARE(exact.low, 8.0);
        QCOMPARE(exact.high, 8.0);
    }

    void studentQuantiles()
    {
        QCOMPARE(spanscope::alloc_internal::studentT975(1), 12.7062047);
        QCOMPARE(spanscope::alloc_internal::studentT975(30), 2.04227246);
        // Past the table: the expansion, against published values.
        QVERIFY(std::abs(spanscope::alloc_internal::studentT975(40) - 2.02107539) < 1e-6);
        QVERIFY(std::abs(spanscope::alloc_internal::studentT975(120) - 1.97993041) < 1e-6);
        QVERIFY(std::abs(spanscope::alloc_internal::studentT975(1000000) - 1.95996636) < 1e-6);
        QVERIFY(spanscope::alloc_internal::studentT975(31) < spanscope::alloc_internal::studentT975(30));
    }

    void everyAllocationFunctionCountsOnce()
    {
        const Run run = runProgram(QStringLiteral(SPANSCOPE_ALLOC_KINDS), {}, true);
        QVERIFY2(run.status == QProcess::NormalExit && run.exitCode == 0, run.err.constData());
        QMap<QString, QList<Counted>> seen;
        for (const QByteArray& line : run.out.split('\n')) {
            const QList<QByteArray> f = line.split(' ');
            if (f.size() == 4)
                seen[QString::fromUtf8(f[0])].append({f[1].toULongLong(), f[2].toULongLong(), f[3].toULongLong()});
        }
        // step -> allocations, requested bytes, frees
        const QList<QPair<QString, Counted>> expected = {
            {"malloc", {1, 100, 1}},
            {"malloc-only", {1, 1000, 0}},
            {"calloc", {1, 200, 1}},
            {"realloc-grow", {2, 5050, 2}},
            {"realloc-null", {1, 70, 1}},
            {"realloc-zero", {1, 30, 1}},
            {"reallocarray", {1, 32, 1}},
            {"posix_memalign", {1, 100, 1}},
            {"aligned_alloc", {1, 128, 1}},
            {"memalign", {1, 10, 1}},
            {"valloc", {1, 10, 1}},
            {"pvalloc", {1, 10, 1}},
            {"new", {1, 4, 1}},
            {"new-array", {1, 40, 1}},
            {"new-nothrow", {1, 7, 1}},
            {"new-aligned", {1, 64, 1}},
            {"new-aligned-array", {1, 128, 1}},
            {"sized-delete", {1, 24, 1}},
            {"strdup", {1, 6, 1}},
            {"string", {1, 101, 1}},
            {"vector-growth", {4, 60, 4}},
            {"failed-malloc", {0, 0, 0}},
            {"failed-new-nothrow", {0, 0, 0}},
            {"free-null", {0, 0, 0}},
            {"zero-malloc", {1, 0, 1}},
            {"signal", {1, 48, 1}},
            {"forked-child", {1, 64, 1}},
            {"process-has-threads", {1, 0, 0}},
        };
        for (const auto& [name, counted] : expected) {
            QVERIFY2(seen.value(name).size() == 1, qPrintable(name + " missing:\n" + QString::fromUtf8(run.out)));
            const Counted got = seen.value(name).first();
            QVERIFY2(got == counted, qPrintable(QStringLiteral("%1: %2 allocations, %3 bytes, %4 frees")
                                                    .arg(name).arg(got.allocations).arg(got.bytes).arg(got.frees)));
        }
        // A failed throwing new: only the exception object the runtime allocates for it.
        const QList<Counted> thrown = seen.value(QStringLiteral("failed-new"));
        QCOMPARE(thrown.size(), 1);
        QCOMPARE(thrown.first().allocations, 1u);
        QCOMPARE(thrown.first().frees, 1u);
        // Two threads one after the other, each 100 pairs of malloc(16) + free.
        QCOMPARE(seen.value(QStringLiteral("thread")).size(), 2);
        for (const Counted& c : seen.value(QStringLiteral("thread")))
            QCOMPARE(c, (Counted{100, 1600, 100}));
    }

    void withoutTheLibraryTheWorkloadSaysSo()
    {
        const Run run = runProgram(QStringLiteral(SPANSCOPE_ALLOC_KINDS), {}, false);
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("not loaded"));
    }

    void reportOfKnownSpans()
    {
        const Run run = runProgram(QStringLiteral(SPANSCOPE_ALLOC_SPANS), {QStringLiteral("report")}, false);
        QVERIFY2(run.status == QProcess::NormalExit && run.exitCode == 0, run.err.constData());
        const qsizetype split = run.out.indexOf("----\n");
        QVERIFY(split > 0);
        QJsonParseError error{};
        const QJsonDocument report = QJsonDocument::fromJson(run.out.left(split), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        const QString table = QString::fromUtf8(run.out.mid(split + 5));

        const QJsonObject noisy = operationNamed(report, QStringLiteral("noisy"));
        QCOMPARE(noisy.value("spans").toInt(), 3);
        QCOMPARE(noisy.value("iterations").toInt(), 7);
        QCOMPARE(noisy.value("bytes").toInt(), 720);
        QCOMPARE(noisy.value("allocations").toInt(), 3);
        QVERIFY(std::abs(noisy.value("bytes_per_iteration").toDouble() - 2170.0 / 21.0) < 1e-9);
        const QJsonArray interval = noisy.value("bytes_interval").toArray();
        QCOMPARE(interval.size(), 2);
        QVERIFY(interval[0].toDouble() < 2170.0 / 21.0 && interval[1].toDouble() > 2170.0 / 21.0);
        QVERIFY(std::abs(noisy.value("allocations_per_iteration").toDouble() - 1.0 / 3.0) < 1e-12);

        const QJsonObject exact = operationNamed(report, QStringLiteral("exact"));
        QCOMPARE(exact.value("spans").toInt(), 5);
        QCOMPARE(exact.value("iterations").toInt(), 15);
        QCOMPARE(exact.value("bytes").toInt(), 4500);
        QCOMPARE(exact.value("allocations").toInt(), 45);
        QCOMPARE(exact.value("bytes_per_iteration").toDouble(), 300.0);
        QCOMPARE(exact.value("allocations_per_iteration").toDouble(), 3.0);
        QCOMPARE(exact.value("allocations_interval").toArray(), (QJsonArray{3.0, 3.0}));

        // Every worker's 1 KiB vector, on threads that exited before the span ended.
        const QJsonObject fanOut = operationNamed(report, QStringLiteral("fan_out"));
        QCOMPARE(fanOut.value("spans").toInt(), 1);
        QVERIFY(fanOut.value("bytes").toInteger() >= 4 * 1024);
        QVERIFY(fanOut.value("allocations").toInteger() >= 4);
        QVERIFY(fanOut.value("bytes_interval").isNull()); // one span: no interval

        const QJsonObject zero = operationNamed(report, QStringLiteral("zero"));
        QCOMPARE(zero.value("iterations").toInt(), 0);
        QCOMPARE(zero.value("bytes").toInt(), 10);
        QVERIFY(zero.value("bytes_per_iteration").isNull());
        QVERIFY(zero.value("allocations_per_iteration").isNull());

        const QJsonObject quiet = operationNamed(report, QStringLiteral("quiet"));
        QCOMPARE(quiet.value("spans").toInt(), 1);
        QCOMPARE(quiet.value("bytes").toInt(), 0);
        QCOMPARE(quiet.value("allocations").toInt(), 0);
        QCOMPARE(operationNamed(report, QStringLiteral("made_inside_a_span")).value("spans").toInt(), 0);

        QVERIFY2(table.startsWith(QStringLiteral("Operation")), qPrintable(table));
        QVERIFY(table.contains(QStringLiteral("Bytes/iter")));
        QVERIFY(table.contains(QStringLiteral("Allocations/iter")));
        QVERIFY2(table.contains(QRegularExpression(QStringLiteral("\\nexact +\\| 300\\.0 \\[300\\.0, 300\\.0\\] +\\| 3\\.0 \\[3\\.0, 3\\.0\\]"))),
                 qPrintable(table));
        QVERIFY2(table.contains(QRegularExpression(QStringLiteral("\\nzero +\\| n/a +\\| n/a"))), qPrintable(table));
    }

    void spanWithoutIterationsAborts()
    {
        const Run run = runProgram(QStringLiteral(SPANSCOPE_ALLOC_SPANS), {QStringLiteral("abort")}, false);
        QCOMPARE(run.status, QProcess::CrashExit);
        QCOMPARE(run.exitCode, int(SIGABRT));
        QVERIFY2(run.err.contains("operation \"forgot \"iterations\"\" ended without iterations(n)"),
                 run.err.constData());
    }

    void unwindingSpansRecordNothing()
    {
        const Run run = runProgram(QStringLiteral(SPANSCOPE_ALLOC_SPANS), {QStringLiteral("unwind")}, false);
        QVERIFY2(run.status == QProcess::NormalExit && run.exitCode == 0, run.err.constData());
        const QJsonDocument report = QJsonDocument::fromJson(run.out);
        QCOMPARE(operationNamed(report, QStringLiteral("thrown_without_iterations")).value("spans").toInt(), 0);
        QCOMPARE(operationNamed(report, QStringLiteral("thrown_with_iterations")).value("spans").toInt(), 0);
        const QJsonObject inDestructor = operationNamed(report, QStringLiteral("made_while_unwinding"));
        QCOMPARE(inDestructor.value("spans").toInt(), 1);
        QCOMPARE(inDestructor.value("bytes").toInt(), 32);
        QCOMPARE(inDestructor.value("allocations").toInt(), 1);
        QVERIFY(inDestructor.value("bytes_interval").isNull());
    }

    void mergedReportsEqualOneSession()
    {
        const Run run = runProgram(QStringLiteral(SPANSCOPE_ALLOC_SPANS), {QStringLiteral("merge")}, false);
        QVERIFY2(run.status == QProcess::NormalExit && run.exitCode == 0, run.err.constData());
        const qsizetype split = run.out.indexOf("----\n");
        QVERIFY(split > 0);
        const QByteArray whole = run.out.left(split), merged = run.out.mid(split + 5);
        QCOMPARE(merged, whole);
        const QJsonDocument report = QJsonDocument::fromJson(whole);
        QCOMPARE(operationNamed(report, QStringLiteral("a")).value("spans").toInt(), 4);
        QCOMPARE(operationNamed(report, QStringLiteral("b")).value("spans").toInt(), 2);
    }
};

QTEST_GUILESS_MAIN(TestAlloc)
#include "tst_alloc.moc"
