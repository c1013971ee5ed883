// The GPU analyses of the real Kineto traces against tests/data/kineto/analyses.json, whose
// figures were computed from the traces' raw text by the definitions in
// docs/gpu-analyses.md, independently of spanscope: every figure of every device.
#include "model/analysis/gpu_analysis.h"
#include "support/trace_files.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
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
};

QTEST_GUILESS_MAIN(TestGpuAnalysesFixtures)
#include "tst_gpu_analyses_fixtures.moc"
