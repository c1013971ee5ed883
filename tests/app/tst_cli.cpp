// spanscope-cli summary: formats, exit codes and messages.

#include "app/cli/compare_command.h"
#include "app/cli/launch_settings.h"
#include "app/cli/summary_command.h"
#include "support/h5_builder.h"
#include "support/kineto_builder.h"
#include "support/test_helpers.h"
#include "spanscope_version.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#ifdef SPANSCOPE_CLI_RENDER
#include <QImage>
#endif
#include <QProcess>

#include <algorithm>
#include <cmath>
#include <sstream>

using namespace spanscope;
using namespace spanscope::testing;

void writeShifted(const std::string& file, int64_t offset);
void writeThreaded(const std::string& file);

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

// Statistics of a list of durations, computed here the plain way (sorting, numpy's linear
// percentile, population std) to check the report against.
struct Expected
{
    int64_t calls, total, minimum, maximum;
    double mean, stddev, p50, p95, p99;
};

Expected expectedOf(std::vector<int64_t> d)
{
    std::sort(d.begin(), d.end());
    Expected e{int64_t(d.size()), 0, d.front(), d.back(), 0, 0, 0, 0, 0};
    for (const int64_t x : d)
        e.total += x;
    e.mean = double(e.total) / double(d.size());
    for (const int64_t x : d)
        e.stddev += (double(x) - e.mean) * (double(x) - e.mean);
    e.stddev = std::sqrt(e.stddev / double(d.size()));
    auto percentile = [&](double p) {
        const double at = p / 100.0 * double(d.size() - 1);
        const size_t lo = size_t(at);
        const size_t hi = std::min(lo + 1, d.size() - 1);
        return double(d[lo]) + (at - double(lo)) * double(d[hi] - d[lo]);
    };
    e.p50 = percentile(50);
    e.p95 = percentile(95);
    e.p99 = percentile(99);
    return e;
}

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

// The lanes of writeThreaded(), with each lane's durations and exclusive time by hand.
struct Lane
{
    const char* region;
    int rank;
    int thread;
    const char* name;
    std::vector<int64_t> durations;
    int64_t exclusive;
};
const std::vector<Lane> kThreadedLanes = {
    // outer minus the inner calls it contains on the same thread
    {"outer", 0, 0, "MainThread", {50, 60}, (50 - 10) + (60 - 5)},
    {"outer", 0, 1, "worker-1", {60, 90}, (60 - 30) + (90 - 60)},
    {"outer", 1, 0, "MainThread", {70}, 70 - 20},
    {"inner", 0, 0, "MainThread", {10, 5}, 15},
    {"inner", 0, 1, "worker-1", {30, 60}, 90},
    {"inner", 1, 0, "MainThread", {20}, 20},
};

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

    // The GPU analyses under the names scripts use (docs/cli.md), with the figures of
    // tests/data/kineto/analyses.json; the same tables as CSV.
    void gpuAnalysesHaveTheirNames()
    {
        const std::string trace = dataFile("kineto/sampled-five-streams.json.gz");
        const auto run = summary({trace, "--format", "json", "--kernel-class", "gemm=gemm",
                                  "--kernel-class", "nothing=^no_such_kernel$"});
        QCOMPARE(run.code, 0);
        const auto gpu = QJsonDocument::fromJson(QByteArray::fromStdString(run.out)).object()["gpu"].toObject();
        const auto device = gpu["devices"].toArray()[0].toObject();
        const auto u = device["utilization"].toObject();
        for (const char* key : {"span_ns", "compute_ns", "communication_ns", "memory_ns", "idle_ns",
                                "communication_total_ns", "communication_overlapped_ns", "classes"})
            QVERIFY2(u.contains(key), key);
        QCOMPARE(u["communication_overlapped_ns"].toInteger(), qint64(59216000));
        QCOMPARE(u["classes"].toObject()["communication"].toObject()["count"].toInt(), 10);
        QVERIFY(u["labels"].toObject().contains("gemm"));
        const auto latency = device["launch_latency"].toObject();
        for (const char* key : {"count", "min_ns", "median_ns", "max_ns", "negative"})
            QVERIFY2(latency.contains(key), key);
        QCOMPARE(latency["median_ns"].toInteger(), qint64(10831000));
        const auto stream = device["streams"].toArray()[0].toObject();
        for (const char* key : {"activities", "busy_ns", "gaps", "gap_ns", "host_wait_ns", "other_wait_ns", "max_queue"})
            QVERIFY2(stream.contains(key), key);
        QCOMPARE(stream["max_queue"].toInt(), 80);
        QCOMPARE(device["largest_gaps"].toArray().size(), 20);
        const auto path = gpu["critical_path"].toObject();
        QVERIFY(path["length_ns"].toInteger() > 0);
        qint64 shares = 0;
        for (const auto& ns : path["bound_by"].toObject())
            shares += ns.toInteger();
        QCOMPARE(shares, path["length_ns"].toInteger());
        QVERIFY(path["path"].toArray().size() >= 2);
        QCOMPARE(gpu["labels"].toArray()[1].toObject()["kernels"].toInt(), 0);
        // Text says that a class matched nothing; CSV gives each table.
        const auto text = summary({trace, "--kernel-class", "nothing=^no_such_kernel$"});
        QVERIFY(text.out.find("the kernel class 'nothing' (^no_such_kernel$) matched no kernel") != std::string::npos);
        QVERIFY(text.out.find("GPU utilization") != std::string::npos);
        const auto csv = summary({trace, "--format", "csv", "--table", "gpu-streams"});
        QCOMPARE(csv.code, 0);
        QVERIFY(csv.out.rfind("file,rank,device,stream,name,activities,busy_ns,", 0) == 0);
        QCOMPARE(std::count(csv.out.begin(), csv.out.end(), '\n'), std::ptrdiff_t(6));
        QCOMPARE(summary({trace, "--table", "gpu-streams"}).code, 2); // a CSV table only
        QCOMPARE(summary({trace, "--kernel-class", "broken=("}).code, 2);
        QCOMPARE(summary({trace, "--format", "csv", "--table", "nonsense"}).code, 2);
    }

    // `spanscope-cli summary --format json` reproduces tests/data/kineto/analyses.json (figures
    // computed from the traces' raw text by the definitions, independently of spanscope)
    // field for field, for every file.
    void summaryReproducesTheFixturesAnalyses()
    {
        QFile file(QString::fromStdString(dataFile("kineto/analyses.json")));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject files = QJsonDocument::fromJson(file.readAll()).object()["files"].toObject();
        QVERIFY(files.size() >= 6);
        for (const QString& name : files.keys()) {
            const auto run = summary({dataFile(("kineto/" + name).toUtf8().constData()), "--format", "json"});
            QCOMPARE(run.code, 0);
            const QJsonArray devices =
                QJsonDocument::fromJson(QByteArray::fromStdString(run.out)).object()["gpu"].toObject()["devices"].toArray();
            const QJsonObject expected = files[name].toObject();
            QCOMPARE(devices.size(), expected.size());
            for (const auto& value : devices) {
                const QJsonObject device = value.toObject();
                const QJsonObject x = expected[QString::number(device["device"].toInt())].toObject();
                QVERIFY2(!x.isEmpty(), qPrintable(name));
                const QJsonObject u = device["utilization"].toObject();
                for (const char* key : {"span_ns", "compute_ns", "communication_ns", "memory_ns", "idle_ns",
                                        "communication_total_ns", "communication_overlapped_ns"})
                    QVERIFY2(u[key].toInteger() == x[key].toInteger(), qPrintable(name + " " + key));
                QCOMPARE(u["classes"].toObject(), x["classes"].toObject());
                QCOMPARE(device["launch_latency"].toObject(), x["launch_latency"].toObject());
                const QJsonArray streams = device["streams"].toArray(), xs = x["streams"].toArray();
                QCOMPARE(streams.size(), xs.size());
                for (int s = 0; s < xs.size(); ++s)
                    for (const QString& key : xs[s].toObject().keys())
                        QVERIFY2(streams[s].toObject()[key] == xs[s].toObject()[key],
                                 qPrintable(name + " stream " + QString::number(s) + " " + key));
            }
        }
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

    // A C++ kernel's whole signature can run to thousands of characters: in the text table
    // such a name is shortened in the middle (its beginning and end kept, whole code
    // points), so the table stays readable; CSV keeps it whole.
    void longNamesAreShortenedInTheTextTableOnly()
    {
        QTemporaryDir dir;
        std::string name = "void gemm<";
        for (int i = 0; i < 300; ++i)
            name += "\u03b1"; // α: two bytes in UTF-8
        name += ">(int, float*) end";
        const std::string path = dir.filePath("long.json").toStdString();
        {
            QFile file(QString::fromStdString(path));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"" + name
                        + "\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2},"
                          " {\"ph\": \"X\", \"name\": \"short\", \"pid\": 1, \"tid\": 1, \"ts\": 5, \"dur\": 1}]}")
                           .c_str());
        }
        const auto text = summary({path});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.find("  Chrome trace, 1 rank, 2 regions, 2 calls\n") != std::string::npos, text.out.c_str());
        const size_t at = text.out.find("void gemm<");
        QVERIFY2(at != std::string::npos, text.out.c_str());
        const std::string line = text.out.substr(at, text.out.find('\n', at) - at);
        const QString shown = QString::fromStdString(line.substr(0, line.find("  ")));
        QCOMPARE(shown.size(), qsizetype(80));
        QVERIFY(shown.startsWith(QStringLiteral("void gemm<\u03b1")));
        QVERIFY(shown.endsWith(QStringLiteral("\u03b1>(int, float*) end")));
        QCOMPARE(shown.count(QChar(0x2026)), qsizetype(1));
        QVERIFY(text.out.find("short ") != std::string::npos);
        const auto csv = summary({path, "--format", "csv"});
        QCOMPARE(csv.code, 0);
        QVERIFY(csv.out.find(name) != std::string::npos);
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

    // The GPU analyses of runs side by side, and the GPU metrics as a gate: one figure per
    // run (idle share, path length) by the threshold, latencies by their rank test.
    void compareGatesOnGpuMetrics()
    {
        QTemporaryDir dir;
        // 200 kernels of 10 µs, launched `latency` µs before each starts, `idle` µs apart.
        auto write = [&](const char* name, int64_t latency, int64_t idle) {
            testing::KinetoTrace t;
            int64_t at = 0;
            for (int i = 0; i < 200; ++i) {
                const int64_t correlation = i + 1;
                const int64_t extra = (i * 7919) % 3; // ties would make the rank test blind
                t.call("cudaLaunchKernel", at, 1'000, correlation).kernel("k", at + 1'000 + (latency + extra) * 1'000,
                                                                         10'000, 7, correlation);
                at += 11'000 + (latency + extra) * 1'000 + idle * 1'000;
            }
            t.call("cudaDeviceSynchronize", at, 1'000, 9999);
            const std::string file = (dir.path() + "/" + name).toStdString();
            QFile f(QString::fromStdString(file));
            if (!f.open(QIODevice::WriteOnly) || f.write(t.json()) < 0)
                return std::string();
            return file;
        };
        const auto base = write("base.json", 5, 0), later = write("later.json", 20, 0), idle = write("idle.json", 5, 40);
        QVERIFY(!base.empty() && !later.empty() && !idle.empty());
        std::ostringstream out, err;
        QCOMPARE(app::cli::runCompare({base, base, "--metric", "gpu_idle"}, out, err), 0);
        std::ostringstream idleJson;
        QCOMPARE(app::cli::runCompare({base, idle, "--metric", "gpu_idle", "--format", "json"}, idleJson, err), 1);
        const auto root = QJsonDocument::fromJson(QByteArray::fromStdString(idleJson.str())).object();
        QCOMPARE(root["metric"].toString(), QString("gpu_idle"));
        QVERIFY(root["regions"].toArray().isEmpty());
        const auto device = root["gpu"].toObject()["devices"].toArray()[0].toObject();
        QCOMPARE(device["changes"].toArray()[0].toObject()["verdict"].toString(), QString("slower"));
        QVERIFY(device["runs"].toArray()[1].toObject()["idle_share"].toDouble() > 0.5);
        QCOMPARE(app::cli::runCompare({base, later, "--metric", "launch_latency"}, out, err), 1);
        QCOMPARE(app::cli::runCompare({later, base, "--metric", "launch_latency"}, out, err), 0); // faster
        QCOMPARE(app::cli::runCompare({base, later, "--metric", "critical_path"}, out, err), 1);
        std::ostringstream csv;
        QCOMPARE(app::cli::runCompare({base, later, "--metric", "critical_path", "--format", "csv"}, csv, err), 1);
        QVERIFY(csv.str().rfind("rank,device,baseline,candidate,metric,baseline_value,", 0) == 0);
        // Without a GPU metric the regions are compared and the GPU figures shown beside them.
        std::ostringstream text;
        QCOMPARE(app::cli::runCompare({base, idle}, text, err), 0);
        QVERIFY(text.str().find("GPU, per run") != std::string::npos);
        QVERIFY(text.str().find("Critical path, per run") != std::string::npos);
        // A GPU metric needs GPU work.
        const std::string h5 = dataFile("scope-profiler/compat/schema-3.h5");
        std::ostringstream none;
        QCOMPARE(app::cli::runCompare({h5, h5, "--metric", "gpu_idle"}, out, none), 2);
        QVERIFY(none.str().find("needs GPU work") != std::string::npos);
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

    void jsonHasStatisticsPerThread()
    {
        QTemporaryDir dir;
        const std::string file = (dir.path() + "/threads.h5").toStdString();
        writeThreaded(file);
        const auto run = summary({file, "--format", "json"});
        QCOMPARE(run.code, 0);
        const auto root = QJsonDocument::fromJson(QByteArray::fromStdString(run.out)).object();
        const auto pooled = root["pooled"].toArray();
        QCOMPARE(pooled.size(), 2);
        size_t lane = 0;
        for (const auto& regionValue : pooled) {
            const auto region = regionValue.toObject();
            const auto perThread = region["per_thread"].toArray();
            QCOMPARE(perThread.size(), 3);
            for (const auto& value : perThread) {
                const auto t = value.toObject();
                const Lane& l = kThreadedLanes[lane++];
                const Expected e = expectedOf(l.durations);
                QCOMPARE(region["name"].toString(), QString(l.region));
                QCOMPARE(t["rank"].toInteger(), qint64(l.rank));
                QCOMPARE(t["thread_id"].toInteger(), qint64(l.thread));
                QCOMPARE(t["thread_name"].toString(), QString(l.name));
                QCOMPARE(t["calls"].toInteger(), qint64(e.calls));
                QCOMPARE(t["unclosed"].toInteger(), qint64(0));
                QCOMPARE(t["total_ns"].toInteger(), qint64(e.total));
                QCOMPARE(t["min_ns"].toInteger(), qint64(e.minimum));
                QCOMPARE(t["max_ns"].toInteger(), qint64(e.maximum));
                QVERIFY(near(t["mean_ns"].toDouble(), e.mean));
                QVERIFY(near(t["std_ns"].toDouble(), e.stddev));
                QVERIFY(near(t["p50_ns"].toDouble(), e.p50));
                QVERIFY(near(t["p95_ns"].toDouble(), e.p95));
                QVERIFY(near(t["p99_ns"].toDouble(), e.p99));
                QCOMPARE(t["exclusive_ns"].toInteger(), qint64(l.exclusive));
                QVERIFY(t.contains("first_duration_ns") && t.contains("gpu_calls"));
            }
        }
        // The pooled figures still pool every thread.
        QCOMPARE(pooled[0].toObject()["total_ns"].toInteger(), qint64(50 + 60 + 60 + 90 + 70));

        const auto plain =
            summary({dataFile("scope-profiler/compat/schema-3.h5"), "--format", "json"});
        const auto noThreads =
            QJsonDocument::fromJson(QByteArray::fromStdString(plain.out)).object();
        const auto entry = noThreads["pooled"].toArray()[0].toObject();
        QVERIFY(entry["per_thread"].isArray());
        QVERIFY(entry["per_thread"].toArray().isEmpty());
    }

    void csvAndTextPerThread()
    {
        QTemporaryDir dir;
        const std::string file = (dir.path() + "/threads.h5").toStdString();
        writeThreaded(file);
        const auto csv = summary({file, "--format", "csv", "--per-thread"});
        QCOMPARE(csv.code, 0);
        std::istringstream lines(csv.out);
        std::string line;
        std::getline(lines, line);
        QVERIFY(line.rfind("file,name,rank,thread_id,thread_name,calls,unclosed,total_ns,", 0) ==
                0);
        std::vector<std::string> rows;
        while (std::getline(lines, line))
            rows.push_back(line.substr(file.size()));
        QCOMPARE(rows.size(), kThreadedLanes.size());
        for (size_t i = 0; i < rows.size(); ++i) {
            const Lane& l = kThreadedLanes[i];
            const Expected e = expectedOf(l.durations);
            std::ostringstream prefix;
            prefix << ',' << l.region << ',' << l.rank << ',' << l.thread << ',' << l.name << ','
                   << e.calls << ",0," << e.total << ',';
            QVERIFY2(rows[i].rfind(prefix.str(), 0) == 0, rows[i].c_str());
        }
        // Without --per-thread the CSV is unchanged: one row per region and rank.
        const auto plainCsv = summary({file, "--format", "csv"});
        QVERIFY(plainCsv.out.rfind("file,name,rank,calls,", 0) == 0);
        QCOMPARE(std::count(plainCsv.out.begin(), plainCsv.out.end(), '\n'), std::ptrdiff_t(5));

        // A file without thread ids keeps its rows, thread cells empty.
        const auto solver = summary(
            {dataFile("scope-profiler/solver-2rank.h5"), "--format", "csv", "--per-thread"});
        QCOMPARE(std::count(solver.out.begin(), solver.out.end(), '\n'), std::ptrdiff_t(13));
        QVERIFY(solver.out.find(",0,,,") != std::string::npos);

        const auto text = summary({file, "--per-thread"});
        QCOMPARE(text.code, 0);
        const auto table = text.out.find("\nPer thread\n");
        QVERIFY2(table != std::string::npos, text.out.c_str());
        std::istringstream tableLines(text.out.substr(table));
        bool found = false;
        while (std::getline(tableLines, line))
            if (line.rfind("outer", 0) == 0 && line.find("worker-1") != std::string::npos) {
                found = true;
                QVERIFY2(line.find("150 ns") != std::string::npos, line.c_str()); // total
                QVERIFY2(line.find("75 ns") != std::string::npos, line.c_str());  // mean
            }
        QVERIFY(found);
        QVERIFY(summary({file}).out.find("Per thread") == std::string::npos);
        QVERIFY(summary({dataFile("scope-profiler/compat/schema-1.h5"), "--per-thread"})
                    .out.find("the file recorded no thread ids") != std::string::npos);
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
        // --help and --version answer on stdout and succeed (help2man reads them).
        process.start(cli, {"--help"});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 0);
        QVERIFY(process.readAllStandardOutput().startsWith("Usage: spanscope-cli COMMAND"));
        process.start(cli, {"--version"});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 0);
        QCOMPARE(process.readAllStandardOutput(), QByteArray("spanscope-cli " SPANSCOPE_VERSION "\n"));
    }

    void largeInputsStartTheCoreWithHugePages()
    {
        using spanscope::app::cli::hugePageTunables;
        using spanscope::app::cli::inputBytes;
        QTemporaryDir dir;
        const auto path = [&](const char* name) { return dir.filePath(name).toStdString(); };
        // 5 MiB of JSON, and a gzip file of a few KiB whose trailer says it inflates to 5 MiB.
        const QByteArray big = "[" + QByteArray(5 << 20, ' ') + "]";
        QFile plain(dir.filePath("big.json"));
        QVERIFY(plain.open(QIODevice::WriteOnly) && plain.write(big) == big.size());
        plain.close();
        QProcess gzip;
        gzip.start("gzip", {"-k", dir.filePath("big.json")});
        QVERIFY(gzip.waitForFinished(60000) && gzip.exitCode() == 0);
        QFile small(dir.filePath("small.json"));
        QVERIFY(small.open(QIODevice::WriteOnly) && small.write("[]") == 2);
        small.close();

        QCOMPARE(inputBytes(path("big.json").c_str()), uint64_t(big.size()));
        QVERIFY(QFileInfo(dir.filePath("big.json.gz")).size() < 100000);
        QCOMPARE(inputBytes(path("big.json.gz").c_str()), uint64_t(big.size()));
        QCOMPARE(inputBytes(path("missing.json").c_str()), uint64_t(0));
        QCOMPARE(inputBytes(dir.path().toStdString().c_str()), uint64_t(0)); // a folder

        const auto tunables = [&](std::vector<std::string> args, const char* current) {
            args.insert(args.begin(), "spanscope-cli");
            std::vector<const char*> argv;
            for (const auto& arg : args)
                argv.push_back(arg.c_str());
            return hugePageTunables(int(argv.size()), argv.data(), current);
        };
        QCOMPARE(tunables({"summary", path("small.json")}, nullptr), std::nullopt);
        QCOMPARE(tunables({"summary", "--format", "json", path("small.json"), path("big.json.gz")}, nullptr),
                 std::optional<std::string>("glibc.malloc.hugetlb=1"));
        QCOMPARE(tunables({"compare", path("big.json"), path("small.json")}, ""),
                 std::optional<std::string>("glibc.malloc.hugetlb=1"));
        QCOMPARE(tunables({"summary", path("big.json")}, "glibc.malloc.arena_max=2"),
                 std::optional<std::string>("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"));
        QCOMPARE(tunables({"summary", path("big.json")}, "glibc.malloc.hugetlb=0"), std::nullopt);

        // Through the launcher the large file is read as any other.
        QProcess cli;
        cli.start(QString(SPANSCOPE_BIN_DIR) + "/spanscope-cli", {"summary", "--format", "json", dir.filePath("big.json.gz")});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 0);
        QVERIFY2(cli.readAllStandardOutput().contains("\"regions\""), cli.readAllStandardError().constData());
    }
};

void writeShifted(const std::string& file, int64_t offset)
{
    H5Builder b(file);
    writeColumnar(b, {ColumnarRow{"solve", 0, {offset + 10, offset + 20}, {offset + 15, offset + 33}}});
}

// Two regions, outer containing inner, on two threads of rank 0 and one of rank 1
// (kThreadedLanes lists what each lane holds).
void writeThreaded(const std::string& file)
{
    H5Builder b(file);
    writeColumnar(b, {ColumnarRow("outer", 0, {0, 100, 200, 300}, {50, 160, 260, 390}),
                      ColumnarRow("inner", 0, {10, 110, 210, 310}, {20, 140, 215, 370}),
                      ColumnarRow("outer", 1, {0}, {70}), ColumnarRow("inner", 1, {5}, {25})});
    b.ints("/events/thread_ids", {0, 1, 0, 1, 0, 1, 0, 1, 0, 0});
    b.uints("/thread_table/ranks", {0, 0, 1});
    b.ints("/thread_table/index", {0, 1, 0});
    b.ints("/thread_table/ident", {111, 222, 333});
    b.ints("/thread_table/native_id", {1001, 1002, 2001});
    b.ints("/thread_table/daemon", {0, 1, 0}, {H5T_STD_I8LE});
    b.strings("/thread_table/name", {"MainThread", "worker-1", "MainThread"});
    b.ints("/thread_table/start_ns", {0, 90, 0});
    b.ints("/thread_table/end_ns", {400, 400, 100});
    b.ints("/thread_table/cpu_ns", {180, 40, 5});
    QVERIFY(b.ok());
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
