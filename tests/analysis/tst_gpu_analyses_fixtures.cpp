// The GPU analyses of the real Kineto traces against tests/data/kineto/analyses.json, whose
// figures were computed from the traces' raw text by the definitions in
// docs/gpu-analyses.md, independently of spanscope: every figure of every device.
#include "model/analysis/gpu_analysis.h"
#include "model/io/capture_writer.h"
#include "model/io/chrome/chrome_trace_writer.h"
#include "support/trace_files.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace spanscope;
using testing::kinetoDataPath;

namespace {

QJsonObject expectedFiles()
{
    QFile file(kinetoDataPath("analyses.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object().value("files").toObject();
}

// Every figure of two analyses, as text: equal text, equal answers.
QString describe(const model::analysis::GpuAnalysis& a)
{
    QString out;
    for (const auto& d : a.devices) {
        const auto& u = d.utilization;
        out += QStringLiteral("device %1/%2 span %3 compute %4 comm %5 memory %6 idle %7 overlapped %8\n")
                   .arg(d.rank).arg(d.device).arg(u.spanNs).arg(u.computeNs).arg(u.communicationNs).arg(u.memoryNs)
                   .arg(u.idleNs).arg(u.communicationOverlappedNs);
        const auto& l = d.launchLatency;
        out += QStringLiteral("  latency %1 %2 %3 %4 %5\n").arg(l.count).arg(l.minNs).arg(l.medianNs).arg(l.maxNs).arg(l.negative);
        for (const auto& s : d.streams)
            out += QStringLiteral("  stream %1: %2 %3 %4 %5 %6 %7 %8\n")
                       .arg(s.stream).arg(s.activities).arg(s.busyNs).arg(s.gaps).arg(s.gapNs).arg(s.hostWaitNs)
                       .arg(s.otherWaitNs).arg(s.maxQueue);
        for (const auto& g : d.largestGaps)
            out += QStringLiteral("  gap %1 %2..%3 %4 %5\n").arg(g.stream).arg(g.startNs).arg(g.endNs).arg(int(g.kind)).arg(g.deviceIdleNs);
    }
    for (const auto& p : a.criticalPaths) {
        out += QStringLiteral("path %1: %2 ns, %3 nodes:").arg(p.rank).arg(p.lengthNs).arg(p.nodes.size());
        for (int64_t ns : p.boundBy)
            out += QStringLiteral(" %1").arg(ns);
        out += QLatin1Char('\n');
    }
    return out;
}

qint64 number(const QJsonObject& o, const char* key)
{
    return o.value(QLatin1String(key)).toVariant().toLongLong();
}

} // namespace

class TestGpuAnalysesFixtures : public QObject
{
    Q_OBJECT

private slots:
    void everyFigureOfEveryDevice_data()
    {
        QTest::addColumn<QString>("file");
        const QJsonObject files = expectedFiles();
        QVERIFY(!files.isEmpty());
        for (const QString& name : files.keys())
            QTest::newRow(qPrintable(name)) << name;
    }

    void everyFigureOfEveryDevice()
    {
        QFETCH(QString, file);
        const QJsonObject expected = expectedFiles().value(file).toObject();
        auto capture = testing::loadOk(kinetoDataPath(file).toStdString());
        QVERIFY(capture);
        const auto analysis = model::analysis::analyzeGpu(*capture);
        QCOMPARE(int(analysis.devices.size()), expected.size());
        for (const auto& d : analysis.devices) {
            const QString id = QString::number(d.device);
            QVERIFY2(expected.contains(id), qPrintable("device " + id + " not expected"));
            const QJsonObject x = expected.value(id).toObject();
            const auto& u = d.utilization;
            QCOMPARE(u.spanNs, number(x, "span_ns"));
            QCOMPARE(u.computeNs, number(x, "compute_ns"));
            QCOMPARE(u.communicationNs, number(x, "communication_ns"));
            QCOMPARE(u.memoryNs, number(x, "memory_ns"));
            QCOMPARE(u.idleNs, number(x, "idle_ns"));
            QCOMPARE(u.communicationTotalNs, number(x, "communication_total_ns"));
            QCOMPARE(u.communicationOverlappedNs, number(x, "communication_overlapped_ns"));
            QCOMPARE(u.computeNs + u.communicationNs + u.memoryNs + u.idleNs, u.spanNs);
            const QJsonObject classes = x.value("classes").toObject();
            for (int c = 0; c < model::analysis::kGpuWorkClasses; ++c) {
                const QJsonObject k =
                    classes.value(model::analysis::gpuWorkClassName(model::analysis::GpuWorkClass(c))).toObject();
                QCOMPARE(qint64(u.classes[c].count), number(k, "count"));
                QCOMPARE(u.classes[c].totalNs, number(k, "total_ns"));
            }
            const QJsonObject l = x.value("launch_latency").toObject();
            QCOMPARE(qint64(d.launchLatency.count), number(l, "count"));
            QCOMPARE(d.launchLatency.minNs, number(l, "min_ns"));
            QCOMPARE(d.launchLatency.medianNs, number(l, "median_ns"));
            QCOMPARE(d.launchLatency.maxNs, number(l, "max_ns"));
            QCOMPARE(qint64(d.launchLatency.negative), number(l, "negative"));
            const QJsonArray streams = x.value("streams").toArray();
            QCOMPARE(int(d.streams.size()), int(streams.size()));
            for (int s = 0; s < streams.size(); ++s) {
                const QJsonObject xs = streams[s].toObject();
                const auto& f = d.streams[size_t(s)];
                QCOMPARE(f.stream, number(xs, "stream"));
                QCOMPARE(qint64(f.activities), number(xs, "activities"));
                QCOMPARE(f.busyNs, number(xs, "busy_ns"));
                QCOMPARE(qint64(f.gaps), number(xs, "gaps"));
                QCOMPARE(f.gapNs, number(xs, "gap_ns"));
                QCOMPARE(f.hostWaitNs, number(xs, "host_wait_ns"));
                QCOMPARE(f.otherWaitNs, number(xs, "other_wait_ns"));
                QCOMPARE(qint64(f.maxQueue), number(xs, "max_queue"));
            }
        }
    }

    // The timeline's derived lanes agree with the analyses: the utilization lane's mean over
    // the span is the busy share, and each queue lane's peak is the stream's max_queue.
    void derivedLanesAgreeWithTheAnalyses_data() { everyFigureOfEveryDevice_data(); }
    void derivedLanesAgreeWithTheAnalyses()
    {
        QFETCH(QString, file);
        auto capture = testing::loadOk(kinetoDataPath(file).toStdString(), model::LoadOptions{true}); // as the viewer
        QVERIFY(capture);
        const auto analysis = model::analysis::analyzeGpu(*capture);
        // Without a timeline (the CLI) there are none.
        const auto plain = testing::loadOk(kinetoDataPath(file).toStdString());
        QVERIFY(plain);
        for (const auto& series : plain->counters)
            QVERIFY(!series.derived);
        int utilizationLanes = 0, queueLanes = 0;
        for (const auto& series : capture->counters) {
            if (!series.derived)
                continue;
            const auto& track = capture->track(series.track);
            const std::string& name = capture->strings.text(track.name);
            for (const auto& d : analysis.devices) {
                if (d.rank != track.rank || d.device != track.device)
                    continue;
                const auto& u = d.utilization;
                if (name == "GPU utilization") {
                    ++utilizationLanes;
                    const double busy = double(u.spanNs - u.idleNs) / double(u.spanNs);
                    QVERIFY(std::abs(series.meanOver(u.firstStartNs, u.lastEndNs) - busy) < 1e-9);
                    continue;
                }
                for (const auto& s : d.streams)
                    if (name == "stream " + std::to_string(s.stream) + " queue") {
                        ++queueLanes;
                        QCOMPARE(uint64_t(series.maximum()), s.maxQueue);
                    }
            }
        }
        QCOMPARE(utilizationLanes, int(analysis.devices.size()));
        int streamsWithLaunches = 0;
        for (const auto& d : analysis.devices)
            for (const auto& s : d.streams)
                streamsWithLaunches += s.maxQueue > 0;
        QVERIFY(queueLanes >= streamsWithLaunches);
    }

    // Imported, saved by spanscope and opened again, or recorded live: the same answers.
    void savedCapturesGiveTheSameAnswers_data()
    {
        QTest::addColumn<QString>("path");
        for (const char* file : {"kineto/a100-simple-add.json.gz", "kineto/sampled-five-streams.json.gz",
                                 "kineto/v100-memory-part.json.gz", "kineto/mi250-rocm.json.gz",
                                 "gpu-check/h200-cuda13/gpu-workload.sps", "pytorch-h200/collector-h200.sps"})
            QTest::newRow(file) << QStringLiteral(SPANSCOPE_TEST_DATA "/") + QString::fromLatin1(file);
    }

    void savedCapturesGiveTheSameAnswers()
    {
        QFETCH(QString, path);
        auto original = testing::loadOk(path.toStdString());
        QVERIFY(original);
        const auto before = model::analysis::analyzeGpu(*original);
        QVERIFY(!before.empty());
        QVERIFY(!before.criticalPaths.empty());
        // A trace is saved as Chrome trace JSON (a region file has no place for its threads
        // and instants), with its args as they were or, loaded without them, as spanscope
        // writes them; a live capture as a region file.
        QTemporaryDir dir;
        const bool trace = path.endsWith(QStringLiteral(".json.gz"));
        std::vector<std::shared_ptr<const model::Capture>> sources{original};
        if (trace)
            sources.push_back(testing::loadOk(path.toStdString(), model::LoadOptions{false, false}));
        for (size_t i = 0; i < sources.size(); ++i) {
            const std::string saved = dir.filePath(QString("saved-%1").arg(i) + (trace ? ".json.gz" : ".h5")).toStdString();
            const auto written = trace ? model::io::writeChromeTrace(*sources[i], saved)
                                       : model::io::writeCaptureFile(*sources[i], saved);
            QVERIFY2(written.ok(), written.ok() ? "" : written.error().toString().c_str());
            auto reopened = testing::loadOk(saved);
            QVERIFY(reopened);
            QCOMPARE(describe(model::analysis::analyzeGpu(*reopened)), describe(before));
        }
    }
};

QTEST_GUILESS_MAIN(TestGpuAnalysesFixtures)
#include "tst_gpu_analyses_fixtures.moc"
