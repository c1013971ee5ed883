// Chrome trace import: the real traces' published figures, export and import, exact
// timestamps, every phase, and damaged input (Kineto's GPU work: tst_kineto_import).
#include "model/capture_loader.h"
#include "model/compare/run_comparison.h"
#include "model/io/chrome/chrome_trace_reader.h"
#include "model/io/capture_writer.h"
#include "model/io/chrome/chrome_trace_writer.h"
#include "model/report/summary_report.h"
#include "model/io/chrome/decimal_time.h"
#include "model/stats/gpu_summary.h"
#include "support/capture_builder.h"
#include "support/trace_files.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <zlib.h>

#include <set>

using namespace spanscope;

namespace {

QString dataPath(const QString& name)
{
    return testing::kinetoDataPath(name);
}
using testing::loadOk;

using testing::pooledOf;

} // namespace

class TestChromeImport : public QObject
{
    Q_OBJECT

    testing::TraceFiles m_files;

    std::string write(const QString& name, const QByteArray& text) { return m_files.write(name, text); }

    std::string writeGzip(const QString& name, const QByteArray& text)
    {
        const std::string path = m_files.path(name).toStdString();
        gzFile out = gzopen(path.c_str(), "wb");
        gzwrite(out, text.constData(), unsigned(text.size()));
        gzclose(out);
        return path;
    }

private slots:
    void realTracesReproduceTheirPublishedFigures_data()
    {
        QTest::addColumn<QString>("file");
        QFile expectedFile(dataPath("expected.json"));
        QVERIFY(expectedFile.open(QIODevice::ReadOnly));
        const auto files = QJsonDocument::fromJson(expectedFile.readAll()).object().value("files").toObject();
        QCOMPARE(files.size(), 6);
        for (const QString& file : files.keys())
            QTest::newRow(qPrintable(file)) << file;
    }

    void realTracesReproduceTheirPublishedFigures()
    {
        QFETCH(QString, file);
        QFile expectedFile(dataPath("expected.json"));
        QVERIFY(expectedFile.open(QIODevice::ReadOnly));
        const QJsonObject expected =
            QJsonDocument::fromJson(expectedFile.readAll()).object().value("files").toObject().value(file).toObject();
        auto loaded = model::loadCapture(dataPath(file).toStdString(), nullptr, model::LoadOptions{false, false});
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        const auto& capture = *loaded.value().capture;

        const model::GpuSummary gpu = model::summarizeGpu(capture);
        QJsonArray streams;
        for (const auto& device : gpu.devices)
            for (const auto& s : device.streams)
                streams.append(QJsonObject{{"device", device.device},
                                           {"stream", qint64(s.stream)},
                                           {"kernels", qint64(s.kernels)},
                                           {"kernel_ns", qint64(s.kernelNs)},
                                           {"memcpys", qint64(s.memcpys)},
                                           {"memcpy_bytes", qint64(s.memcpyBytes)},
                                           {"memcpy_ns", qint64(s.memcpyNs)},
                                           {"memsets", qint64(s.memsets)},
                                           {"memset_ns", qint64(s.memsetNs)}});
        QCOMPARE(streams, expected.value("streams").toArray());
        QCOMPARE(qint64(gpu.launchesMatched), expected.value("launches_matched").toInteger());

        const auto pooled = pooledOf(loaded.value());
        const QJsonObject cpu = expected.value("cpu_regions").toObject();
        for (const QString& name : cpu.keys()) {
            const auto it = pooled.find("cpu " + name.toStdString());
            QVERIFY2(it != pooled.end(), qPrintable(name));
            const QJsonObject want = cpu.value(name).toObject();
            QCOMPARE(qint64(it->second.calls), want.value("calls").toInteger());
            QCOMPARE(qint64(it->second.total), want.value("total_ns").toInteger());
            QCOMPARE(qint64(it->second.gpuCalls), want.value("gpu_calls").toInteger());
            QCOMPARE(qint64(it->second.gpuTotal), want.value("gpu_total_ns").toInteger());
        }
        const QJsonObject kernels = expected.value("kernels").toObject();
        for (const QString& name : kernels.keys()) {
            const auto it = pooled.find("kernel " + name.toStdString());
            QVERIFY2(it != pooled.end(), qPrintable(name));
            QCOMPARE(qint64(it->second.calls), kernels.value(name).toObject().value("calls").toInteger());
            QCOMPARE(qint64(it->second.total), kernels.value(name).toObject().value("total_ns").toInteger());
        }
        uint64_t cpuCalls = 0;
        for (const auto& [key, p] : pooled)
            if (key.rfind("cpu ", 0) == 0)
                cpuCalls += p.calls;
        QCOMPARE(qint64(cpuCalls), expected.value("cpu_calls_total").toInteger());

        QJsonObject allocations;
        for (const auto& a : model::summarizeAllocations(capture))
            allocations.insert(QString::fromStdString(model::memoryDeviceName(a.device)),
                               QJsonObject{{"allocs", qint64(a.allocs)},
                                           {"frees", qint64(a.frees)},
                                           {"alloc_bytes", qint64(a.allocBytes)},
                                           {"peak_bytes", qint64(a.peakBytes)}});
        QCOMPARE(allocations, expected.value("allocations").toObject());
    }

    // A trace's own thread lanes have no place in a region file: saving one as .h5 is
    // refused with what would be lost, and no file is left behind. (GPU work on GPU tracks
    // alone would fit: /spanscope/gpu.)
    void savingATraceAsARegionFileIsRefused()
    {
        auto loaded = model::loadCapture(SPANSCOPE_TEST_DATA "/kineto/a100-simple-add.json.gz");
        QVERIFY(loaded.ok());
        const std::string path = m_files.path("trace.h5").toStdString();
        const auto written = model::io::writeCaptureFile(*loaded.value().capture, path);
        QVERIFY(!written.ok());
        const std::string message = written.error().toString();
        QVERIFY2(message.find("cannot save this capture as a region file") != std::string::npos, message.c_str());
        QVERIFY2(message.find("threads and async tracks") != std::string::npos, message.c_str());
        QVERIFY2(message.find("GPU") == std::string::npos, message.c_str());
        QVERIFY(!QFile::exists(QString::fromStdString(path)));
    }

    void exportThenImportGivesTheSameSummary_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* file : {"kineto/a100-simple-add.json.gz", "kineto/v100-memory-part.json.gz",
                                 "kineto/mi250-rocm.json.gz", "kineto/cpu-only.json.gz",
                                 "scope-profiler/solver-2rank.h5", "scope-profiler/compat/schema-2.h5"})
            QTest::newRow(file) << QString(file);
    }

    void exportThenImportGivesTheSameSummary()
    {
        QFETCH(QString, file);
        auto summaryOf = [](const std::string& path) {
            auto loaded = model::loadCapture(path);
            if (!loaded)
                qFatal("%s", loaded.error().toString().c_str());
            model::report::JsonWriter json;
            model::report::summaryJson({*loaded.value().capture, *loaded.value().summary}, json);
            return QJsonDocument::fromJson(QByteArray::fromStdString(json.text())).object();
        };
        const std::string source = QStringLiteral(SPANSCOPE_TEST_DATA "/").toStdString() + file.toStdString();
        auto loaded = model::loadCapture(source);
        QVERIFY(loaded.ok());
        const std::string exported = m_files.path(QFileInfo(file).fileName() + ".trace.json.gz").toStdString();
        const auto written = model::io::writeChromeTrace(*loaded.value().capture, exported);
        QVERIFY2(written.ok(), written.ok() ? "" : written.error().toString().c_str());
        const QJsonObject before = summaryOf(source), after = summaryOf(exported);
        for (const char* key : {"ranks", "num_ranks", "regions", "pooled", "gpu", "allocations", "threads"})
            QVERIFY2(before.value(key) == after.value(key), key);
    }

    // Threads, tasks (async lanes, nested), GPU and await times, two ranks, an unclosed
    // call: what region files and NVTX captures hold goes through Chrome JSON and back.
    void exportKeepsLanesAndPerCallValues()
    {
        auto capture = testing::buildCapture(R"(
outer 0 1000 9000 thread=0 gpu=500
inner 0 2000 3000 thread=0 gpu=100
inner 0 4000 5000 thread=1 await=200
step 0 1000 8000 task=3 thread=1
sub 0 2000 4000 task=3 thread=1
sub 0 4000 6000 task=3 thread=1
late 1 10000 9000
solo 1 100 200
)");
        auto original = model::analyzeCapture(capture, {nullptr, 0, 1}, {});
        QVERIFY(original);
        const std::string exported = m_files.path("built.json").toStdString();
        QVERIFY(model::io::writeChromeTrace(*capture, exported).ok());
        auto back = model::loadCapture(exported);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().toString().c_str());
        auto text = [](const model::LoadedCapture& loaded) {
            model::report::JsonWriter json;
            model::report::summaryJson({*loaded.capture, *loaded.summary}, json);
            const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(json.text())).object();
            // Region by region; per-thread breakdowns aside: Chrome's async events carry no
            // thread, so a task call's thread does not travel (docs/chrome-trace-import.md).
            QJsonArray pooled;
            for (const auto& region : o.value("pooled").toArray()) {
                QJsonObject r = region.toObject();
                r.remove("per_thread");
                pooled.append(r);
            }
            return QJsonDocument(QJsonObject{{"regions", o.value("regions")}, {"pooled", pooled}})
                .toJson(QJsonDocument::Compact);
        };
        const QByteArray got = text(back.value()), want = text(*original);
        if (got != want) {
            qWarning("got  %s", got.constData());
            qWarning("want %s", want.constData());
        }
        QCOMPARE(got, want);
    }

    // Kernels compare by name across traces, apart from CPU ranges of the same name.
    void tracesCompareRegionByNameAndKind()
    {
        auto trace = [&](const QString& name, int kernelMicros) {
            QByteArray events = "[";
            for (int i = 0; i < 40; ++i) {
                const QByteArray ts = QByteArray::number(i * 1000);
                events += "{\"ph\": \"X\", \"name\": \"gemm\", \"cat\": \"cpu_op\", \"pid\": 1, \"tid\": 1, "
                          "\"ts\": " + ts + ", \"dur\": 100},";
                events += "{\"ph\": \"X\", \"name\": \"gemm\", \"cat\": \"kernel\", \"pid\": 0, \"tid\": 7, "
                          "\"ts\": " + ts + ", \"dur\": " + QByteArray::number(kernelMicros + i % 3)
                          + ", \"args\": {\"device\": 0, \"stream\": 7}},";
            }
            events.chop(1);
            return model::loadCapture(write(name, events + "]"));
        };
        auto base = trace("base.json", 100), slower = trace("slower.json", 200);
        QVERIFY(base.ok() && slower.ok());
        model::CompareOptions options;
        const auto comparison = model::compareRuns(
            {{base.value().capture.get(), base.value().summary.get(), "base"},
             {slower.value().capture.get(), slower.value().summary.get(), "slower"}},
            options);
        QCOMPARE(comparison.regions.size(), size_t(2));
        for (const auto& region : comparison.regions) {
            QCOMPARE(region.name, std::string("gemm"));
            QCOMPARE(region.changes[0].verdict, region.kind == model::RegionKind::Kernel ? model::Verdict::Slower
                                                                                         : model::Verdict::Noise);
        }
        QVERIFY(comparison.anySignificantSlowdown());
    }

    void timestampsAreExactDecimals()
    {
        using model::io::decimalMicrosToNs;
        QCOMPARE(decimalMicrosToNs("1669783687464181"), std::optional<int64_t>(1669783687464181000));
        QCOMPARE(decimalMicrosToNs("4203669604595.407"), std::optional<int64_t>(4203669604595407));
        // An epoch timestamp in µs with a fraction: a double would be off by up to 0.25 µs.
        QCOMPARE(decimalMicrosToNs("1735632360123456.789"), std::optional<int64_t>(1735632360123456789));
        QCOMPARE(decimalMicrosToNs("1e3"), std::optional<int64_t>(1000000));
        QCOMPARE(decimalMicrosToNs("2.5E-3"), std::optional<int64_t>(2)); // 2.5 ns: half to even
        QCOMPARE(decimalMicrosToNs("0.0035"), std::optional<int64_t>(4));
        QCOMPARE(decimalMicrosToNs("1.0005"), std::optional<int64_t>(1000));
        QCOMPARE(decimalMicrosToNs("1.00050000000000000000000000000000000000000001"), std::optional<int64_t>(1001));
        QCOMPARE(decimalMicrosToNs("-1.5"), std::optional<int64_t>(-1500));
        QCOMPARE(decimalMicrosToNs("0"), std::optional<int64_t>(0));
        QCOMPARE(decimalMicrosToNs("9223372036854775.807"), std::optional<int64_t>(INT64_MAX));
        QCOMPARE(decimalMicrosToNs("9223372036854775.808"), std::nullopt);
        QCOMPARE(decimalMicrosToNs("1e400"), std::nullopt);
        QCOMPARE(decimalMicrosToNs("abc"), std::nullopt);
        QCOMPARE(decimalMicrosToNs("1.2.3"), std::nullopt);
        QCOMPARE(decimalMicrosToNs(""), std::nullopt);
        QCOMPARE(model::io::decimalToInt64("7.0"), std::optional<int64_t>(7));
        QCOMPARE(model::io::decimalToInt64("7.5"), std::nullopt);
    }

    void everyPhase()
    {
        const std::string path = write("phases.json", R"({"displayTimeUnit": "ns", "otherData": {"host": "node1"},
 "traceEvents": [
  {"ph": "M", "name": "process_name", "pid": 10, "args": {"name": "trainer"}},
  {"ph": "M", "name": "thread_name", "pid": 10, "tid": 11, "args": {"name": "main"}},
  {"ph": "X", "name": "outer", "cat": "op", "pid": 10, "tid": 11, "ts": 1.5, "dur": 10, "args": {"k": 1}},
  {"ph": "E", "pid": 10, "tid": 11, "ts": 9},
  {"ph": "B", "name": "inner", "pid": 10, "tid": 11, "ts": 3},
  {"ph": "E", "pid": 10, "tid": 11, "ts": 99},
  {"ph": "B", "name": "open", "pid": 10, "tid": 12, "ts": 20},
  {"ph": "i", "name": "tick", "s": "t", "pid": 10, "tid": 11, "ts": 4},
  {"ph": "i", "name": "everyone", "s": "g", "pid": 10, "tid": 11, "ts": 5},
  {"ph": "C", "name": "queue", "pid": 10, "ts": 1, "args": {"depth": 3, "bytes": 100}},
  {"ph": "C", "name": "queue", "pid": 10, "ts": 2, "args": {"depth": 7, "bytes": 50}},
  {"ph": "s", "id": 5, "cat": "link", "name": "hop", "pid": 10, "tid": 11, "ts": 2},
  {"ph": "f", "id": 5, "cat": "link", "name": "hop", "pid": 20, "tid": 21, "ts": 30, "bp": "e"},
  {"ph": "X", "name": "remote", "pid": 20, "tid": 21, "ts": 29, "dur": 2},
  {"ph": "b", "name": "request", "cat": "net", "id": "0x1", "pid": 10, "ts": 1},
  {"ph": "n", "name": "progress", "cat": "net", "id": "0x1", "pid": 10, "ts": 2},
  {"ph": "e", "cat": "net", "id": "0x1", "pid": 10, "ts": 6},
  {"ph": "b", "name": "request", "cat": "net", "id": "0x2", "pid": 10, "ts": 2},
  {"ph": "e", "cat": "net", "id": "0x2", "pid": 10, "ts": 3},
  {"ph": "P", "name": "sample", "pid": 10, "tid": 11, "ts": 1},
  {"ph": "P", "name": "sample", "pid": 10, "tid": 11, "ts": 2}
]})");
        auto loaded = model::loadCapture(path, nullptr, model::LoadOptions{true});
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        const auto& c = *loaded.value().capture;
        QCOMPARE(c.ranks, (std::vector<int32_t>{0, 1}));
        std::map<std::string, int> calls;
        for (const auto& row : c.rows)
            calls[c.regionName(row.region)] += int(row.count);
        QCOMPARE(calls, (std::map<std::string, int>{{"outer", 1}, {"inner", 1}, {"open", 1}, {"remote", 1}, {"request", 2}}));
        // "outer" at 1.5 µs: exact ns. The first E closes "inner" (the innermost B) at 9 µs;
        // the second E ends nothing and is counted.
        for (uint32_t r = 0; r < c.rows.size(); ++r) {
            const std::string& name = c.regionName(c.rows[r].region);
            const uint64_t e = c.rows[r].firstEvent;
            if (name == "outer")
                QCOMPARE(c.events.start[e], int64_t(1500));
            if (name == "inner")
                QCOMPARE(c.events.end[e] - c.events.start[e], int64_t(6000));
            if (name == "open")
                QVERIFY(c.events.end[e] < c.events.start[e]); // never ended
            if (name == "request")
                QCOMPARE(c.track(c.trackOfEvent(r, e)).kind, model::TrackKind::Task);
        }
        // Two overlapping async ids of one category: two lanes.
        int asyncTracks = 0;
        for (const auto& track : c.tracks)
            asyncTracks += track.kind == model::TrackKind::Task;
        QCOMPARE(asyncTracks, 2);
        QCOMPARE(c.counters.size(), size_t(2));
        for (const auto& series : c.counters) {
            const std::string name = c.strings.text(c.track(series.track).name);
            QVERIFY(name == "queue depth" || name == "queue bytes");
            QCOMPARE(series.size(), size_t(2));
            QCOMPARE(series.maximum(), name == "queue depth" ? 7.0 : 100.0);
        }
        QCOMPARE(c.instants.size(), size_t(3)); // tick, everyone, the async "progress"
        QCOMPARE(c.flows.size(), size_t(1));
        QCOMPARE(c.flows.kind(0), model::FlowKind::User);
        QCOMPARE(c.regionName(c.rows[loaded.value().timeline->rowOf(c.flows.to(0))].region), std::string("remote"));
        QCOMPARE(model::trackTitle(c, c.trackOfEvent(0, c.flows.from(0))), std::string("rank 0 \u00b7 thread 11 main"));
        std::string warnings;
        for (const auto& w : c.warnings)
            warnings += w.message + "\n";
        QVERIFY2(warnings.find("1 'E' events end nothing") != std::string::npos, warnings.c_str());
        QVERIFY2(warnings.find("1 'B' events never ended") != std::string::npos, warnings.c_str());
        QVERIFY2(warnings.find("2 events of phase 'P' are not shown") != std::string::npos, warnings.c_str());
        const auto* host = model::findMetadata(c.metadata, "host");
        QVERIFY(host && host->text == "node1");
    }

    void damagedInputKeepsWhatCameBefore()
    {
        QByteArray good = R"({"traceEvents": [
  {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
  {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 3, "dur": 1},
  {"ph": "X", "name": "c", "pid": 1, "tid": 1, "ts": 5, "dur": 1}
]})";
        // Cut inside the third event.
        const QByteArray cut = good.left(good.indexOf("\"c\"") + 2);
        auto loaded = model::loadCapture(write("cut.json", cut));
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        QCOMPARE(loaded.value().capture->events.size(), size_t(2));
        QVERIFY(loaded.value().capture->warnings.front().message.find("the file is cut short") != std::string::npos);

        // The same, gzipped and cut: what inflates is kept.
        const std::string gz = writeGzip("whole.json.gz", good.repeated(1));
        QFile whole(QString::fromStdString(gz));
        QVERIFY(whole.open(QIODevice::ReadOnly));
        const QByteArray bytes = whole.readAll();
        auto truncatedGzip = model::loadCapture(write("cut.json.gz", bytes.left(bytes.size() - 12)));
        QVERIFY2(truncatedGzip.ok(), truncatedGzip.ok() ? "" : truncatedGzip.error().toString().c_str());
        std::string warnings;
        for (const auto& w : truncatedGzip.value().capture->warnings)
            warnings += w.message;
        QVERIFY2(warnings.find("gzip data is damaged or cut short") != std::string::npos, warnings.c_str());

        // The array form may end without its bracket, and with a trailing comma.
        auto open = model::loadCapture(write("open.json", R"([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1},)"));
        QVERIFY2(open.ok(), open.ok() ? "" : open.error().toString().c_str());
        QCOMPARE(open.value().capture->events.size(), size_t(1));
    }

    // An escaped surrogate with no partner (a name cut between the two halves of a
    // character, or made by hand) would make the JSON parser reject the string and cost the
    // event; it becomes U+FFFD and the event is kept. Pairs, other escapes and an escaped
    // backslash followed by "ud800" stay as they are.
    void unpairedSurrogatesBecomeReplacementCharacters()
    {
        const QByteArray text = R"([
  {"ph": "X", "name": "high \ud800 alone", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
  {"ph": "X", "name": "low \uDC00 first", "pid": 1, "tid": 1, "ts": 3, "dur": 1},
  {"ph": "X", "name": "high then \ud83d\u0041", "pid": 1, "tid": 1, "ts": 5, "dur": 1},
  {"ph": "X", "name": "pair \ud83d\ude00 \t \\ud800", "pid": 1, "tid": 1, "ts": 7, "dur": 1},
  {"ph": "X", "name": "at the end \udbff", "pid": 1, "tid": 1, "ts": 9, "dur": 1}
])";
        auto loaded = model::loadCapture(write("surrogates.json", text));
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        const auto& c = *loaded.value().capture;
        QCOMPARE(c.events.size(), size_t(5));
        std::set<std::string> names;
        for (uint32_t r = 0; r < c.regionNames.size(); ++r)
            names.insert(c.regionName(r));
        const std::string fffd = "\xEF\xBF\xBD";
        const std::set<std::string> expected = {
            "high " + fffd + " alone", "low " + fffd + " first", "high then " + fffd + "A",
            "pair \xF0\x9F\x98\x80 \t \\ud800", "at the end " + fffd};
        QCOMPARE(names, expected);
        QCOMPARE(c.warnings.size(), size_t(1));
        QVERIFY2(c.warnings[0].message.find(
                     "4 unpaired UTF-16 surrogate escapes (\\ud800-\\udfff) are shown as U+FFFD") !=
                     std::string::npos,
                 c.warnings[0].message.c_str());
    }

    void badInputIsNamedNeverCrashes()
    {
        auto errorOf = [&](const QString& name, const QByteArray& text) {
            auto loaded = model::loadCapture(write(name, text));
            return loaded.ok() ? std::string() : loaded.error().toString();
        };
        QVERIFY(errorOf("empty.json", "   ").find("empty.json") != std::string::npos);
        QVERIFY(errorOf("text.json", "{ hello").find("text.json") != std::string::npos);
        QVERIFY(errorOf("noevents.json", R"({"a": 1})").find("no \"traceEvents\"") != std::string::npos);
        QVERIFY(errorOf("scalar.json", "[[[").find("scalar.json") != std::string::npos);

        // Wrong types: the event is skipped and counted, the rest is read.
        auto loaded = model::loadCapture(write("types.json", R"([
  {"ph": "X", "name": "ok", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
  {"ph": "X", "name": "bad ts", "pid": 1, "tid": 1, "ts": "soon", "dur": 1},
  {"ph": "X", "name": "bad pid", "pid": {"x": 1}, "tid": 1, "ts": 1, "dur": 1},
  {"ph": "X", "name": "negative", "pid": 1, "tid": 1, "ts": 1, "dur": -5},
  {"ph": 7, "name": "bad ph", "pid": 1, "tid": 1, "ts": 1},
  "not an object",
  {"ph": "X", "name": {"nested": true}, "pid": 1, "tid": 1, "ts": 1, "dur": 1}
])"));
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        const auto& c = *loaded.value().capture;
        QCOMPARE(c.events.size(), size_t(1));
        QCOMPARE(c.warnings.size(), size_t(1));
        QVERIFY2(c.warnings[0].message.find("6 events could not be used; first: 'ts' is not a number")
                     != std::string::npos,
                 c.warnings[0].message.c_str());
        QVERIFY(c.warnings[0].message.find("at byte ") != std::string::npos);

        // A huge name is cut, invalid UTF-8 replaced, an out-of-order file sorted.
        const QByteArray hugeName(3 << 20, 'x');
        const QByteArray badUtf8("caf\xC3\x28", 5);
        const QByteArray huge = "[{\"ph\": \"X\", \"name\": \"" + hugeName
                                + "\", \"pid\": 1, \"tid\": 1, \"ts\": 9, \"dur\": 1},"
                                  "{\"ph\": \"X\", \"name\": \""
                                + badUtf8 + "\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]";
        auto big = model::loadCapture(write("huge.json", huge));
        QVERIFY2(big.ok(), big.ok() ? "" : big.error().toString().c_str());
        const auto& b = *big.value().capture;
        std::set<size_t> lengths;
        bool replaced = false;
        for (uint32_t r = 0; r < b.regionNames.size(); ++r) {
            lengths.insert(b.regionName(r).size());
            replaced |= b.regionName(r) == "caf?(";
        }
        QVERIFY(*lengths.rbegin() <= 64 * 1024 + 3);
        QVERIFY(replaced);
    }
};

QTEST_GUILESS_MAIN(TestChromeImport)
#include "tst_chrome_import.moc"
