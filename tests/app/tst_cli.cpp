// spanscope-cli summary: formats, exit codes and messages.

#include "app/cli/compare_command.h"
#include "app/cli/summary_command.h"
#include "support/h5_builder.h"
#include "support/test_helpers.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#ifdef SPANSCOPE_CLI_RENDER
#include <QImage>
#endif
#include <QProcess>

#include <sstream>

using namespace spanscope;
using namespace spanscope::testing;

void writeShifted(const std::string& file, int64_t offset);

namespace {

struct Run
{
    int code;
    std::string out, err;
};

Run summary(std::vector<std::string> args)
{
    std::ostringstream out, err;
    const int code = app::cli::runSummary(args, out, err);
    return {code, out.str(), err.str()};
}

} // namespace

class TestCli : public QObject
{
    Q_OBJECT

private slots:
    void jsonHasEveryField()
    {
        const auto run = summary({dataFile("scope-profiler/compat/schema-3.h5"), "--format", "json"});
        QCOMPARE(run.code, 0);
        QVERIFY(run.err.empty());
        const auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(run.out));
        QVERIFY(doc.isObject());
        const auto root = doc.object();
        QCOMPARE(root["schema"].toInt(), 3);
        QCOMPARE(root["layout"].toString(), QString("columnar"));
        QCOMPARE(root["ranks"].toArray().size(), 1);
        QVERIFY(root["metadata"].isObject());
        QVERIFY(root["warnings"].isArray());
        const auto region = root["regions"].toArray()[0].toObject();
        for (const char* key : {"name", "rank", "calls", "unclosed", "total_ns", "mean_ns", "min_ns",
                                "max_ns", "std_ns", "first_duration_ns", "last_duration_ns", "p50_ns",
                                "p95_ns", "p99_ns", "exclusive_ns", "start_min_ns", "end_max_ns",
                                "gpu_calls", "gpu_total_ns"})
            QVERIFY2(region.contains(key), key);
        QCOMPARE(region["total_ns"].toInt(), 33);
        QCOMPARE(region["p95_ns"].toDouble(), 14.8);
        QVERIFY(region["gpu_calls"].isNull());
        const auto pooled = root["pooled"].toArray()[0].toObject();
        QVERIFY(!pooled.contains("rank"));
        QCOMPARE(pooled["calls"].toInt(), 3);
    }

    void int64StaysExact()
    {
        // 2^53 + 11 cannot survive a trip through double; check the text itself.
        QTemporaryDir dir;
        const std::string file = (dir.path() + "/big.h5").toStdString();
        writeShifted(file, (int64_t(1) << 53) + 1);
        const auto run = summary({file, "--format=json"});
        QCOMPARE(run.code, 0);
        QVERIFY2(run.out.find("\"start_min_ns\": 9007199254741003") != std::string::npos, run.out.c_str());
    }

    void csvOneRowPerRegionAndRank()
    {
        const auto run = summary({dataFile("scope-profiler/solver-2rank.h5"), "--format", "csv"});
        QCOMPARE(run.code, 0);
        std::istringstream lines(run.out);
        std::string header, line;
        std::getline(lines, header);
        QVERIFY(header.rfind("file,name,rank,calls,unclosed,total_ns", 0) == 0);
        int rows = 0;
        while (std::getline(lines, line))
            ++rows;
        QCOMPARE(rows, 12); // 6 regions x 2 ranks
    }

    void textTableIsAligned()
    {
        const auto run = summary({dataFile("scope-profiler/compat/schema-1.h5")});
        QCOMPARE(run.code, 0);
        QVERIFY(run.out.find("schema 1, per-rank layout, 1 rank, 1 region, 3 calls") != std::string::npos);
        QVERIFY(run.out.find("Region  Calls  Total") != std::string::npos);
        QVERIFY(run.out.find("solve       3  33 ns  11 ns") != std::string::npos);
    }

    void unreadableFileGivesExitOneOthersStillSummarized()
    {
        const auto run = summary({"/nonexistent/file.h5", dataFile("scope-profiler/compat/schema-2.h5"),
                                  "--format", "csv"});
        QCOMPARE(run.code, 1);
        QVERIFY(run.err.find("/nonexistent/file.h5: no such file") != std::string::npos);
        QVERIFY(run.out.find("schema-2.h5,solve,0,3") != std::string::npos);
    }

    void severalFilesAsJsonArray()
    {
        const auto run = summary({dataFile("scope-profiler/compat/schema-1.h5"),
                                  dataFile("scope-profiler/compat/schema-2.h5"), "--format", "json"});
        QCOMPARE(run.code, 0);
        const auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(run.out));
        QVERIFY(doc.isArray());
        QCOMPARE(doc.array().size(), 2);
    }

    void compareGatesOnSlowdowns()
    {
        QTemporaryDir dir;
        auto write = [&](const char* name, int64_t extra) {
            const std::string file = (dir.path() + "/" + name).toStdString();
            H5Builder b(file);
            ColumnarRow row("solve", 0, {}, {});
            for (int i = 0; i < 400; ++i) {
                row.starts.push_back(i * 10'000);
                row.ends.push_back(i * 10'000 + 1000 + (i * 7919) % 1000 + extra);
            }
            writeColumnar(b, {row, ColumnarRow("io", 0, {5'000'000}, {5'000'100})});
            return file;
        };
        const auto base = write("base.h5", 0), same = write("same.h5", 0), slow = write("slow.h5", 400);
        std::ostringstream out, err;
        QCOMPARE(app::cli::runCompare({base, same}, out, err), 0);
        QCOMPARE(app::cli::runCompare({base, slow, "--format", "json"}, out, err), 1);
        QVERIFY(out.str().find("\"verdict\": \"slower\"") != std::string::npos);
        // Filtered to io, nothing got slower.
        QCOMPARE(app::cli::runCompare({base, slow, "--region", "^io$"}, out, err), 0);
        // A threshold above the change lets it pass.
        QCOMPARE(app::cli::runCompare({base, slow, "--threshold", "50"}, out, err), 0);
        std::ostringstream csv;
        QCOMPARE(app::cli::runCompare({base, slow, "--format", "csv", "--metric", "p95"}, csv, err), 1);
        QVERIFY(csv.str().rfind("region,rank,baseline,candidate,metric", 0) == 0);
        QCOMPARE(app::cli::runCompare({base}, out, err), 2);
        QCOMPARE(app::cli::runCompare({base, slow, "--metric", "max"}, out, err), 2);
        QCOMPARE(app::cli::runCompare({base, slow, "--region", "("}, out, err), 2);
        std::ostringstream missing;
        QCOMPARE(app::cli::runCompare({base, "/no/such.h5"}, out, missing), 1);
        QVERIFY(missing.str().find("/no/such.h5: no such file") != std::string::npos);
    }

    void usageErrors()
    {
        QCOMPARE(summary({}).code, 2);
        QCOMPARE(summary({"--format", "xml", "a.h5"}).code, 2);
        QCOMPARE(summary({"--format"}).code, 2);
        QCOMPARE(summary({"--bogus", "a.h5"}).code, 2);
    }

#ifdef SPANSCOPE_CLI_RENDER
    void renderWritesTheTimeline()
    {
        QTemporaryDir dir;
        const QString cli = QString(SPANSCOPE_BIN_DIR) + "/spanscope-cli";
        const QString output = dir.path() + "/timeline.png";
        QProcess process;
        process.start(cli, {"render", QString::fromStdString(dataFile("scope-profiler/solver-2rank.h5")),
                            "--output", output, "--width", "800", "--height", "300", "--lanes", "rank 1"});
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitCode(), 0);
        QVERIFY(process.readAllStandardOutput().contains("92 calls in view")); // rank 1 only
        QImage image(output);
        QCOMPARE(image.size(), QSize(800, 300));

        process.start(cli, {"render", QString::fromStdString(dataFile("scope-profiler/solver-2rank.h5"))});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 2); // no --output
        process.start(cli, {"render", "/no/such.h5", "--output", output});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 1);
        process.start(cli, {"render", QString::fromStdString(dataFile("scope-profiler/solver-2rank.h5")),
                            "--output", output, "--from", "500", "--to", "100"});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 2);
    }
#endif

    void executableExitCodes()
    {
        const QString cli = QString(SPANSCOPE_BIN_DIR) + "/spanscope-cli";
        QProcess process;
        process.start(cli, {"summary", QString::fromStdString(dataFile("scope-profiler/solver-1rank.h5"))});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 0);
        QVERIFY(process.readAllStandardOutput().contains("solver.linear_solve"));
        process.start(cli, {"frobnicate"});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 2);
        process.start(cli, {"summary", "/no/such.h5"});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 1);
        QVERIFY(process.readAllStandardError().contains("/no/such.h5: no such file"));
    }
};

void writeShifted(const std::string& file, int64_t offset)
{
    H5Builder b(file);
    writeColumnar(b, {ColumnarRow{"solve", 0, {offset + 10, offset + 20}, {offset + 15, offset + 33}}});
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
