// The collector's CUDA injection where there is no GPU (every CI machine): it fails soft,
// the capture says why, and NVTX recording goes on untouched.
#include "model/live/nvtx_assembler.h"
#include "protocol/spanscope_decoder.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <dlfcn.h>

#include <algorithm>
#include <vector>

using namespace spanscope;

namespace {

struct Recorded
{
    int exitCode = -1;
    QString out; // the program's stdout
    std::shared_ptr<model::Capture> capture;
};

// Runs the program with `arguments` under the collector with `cupti` as SPANSCOPE_CUPTI
// (empty: unset) and `extra` in its environment, and assembles what it recorded.
Recorded record(const QString& cupti, const QStringList& arguments = {}, const QStringList& extra = {})
{
    QTemporaryDir dir;
    const QString output = dir.filePath("job.sps");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("NVTX_INJECTION64_PATH", SPANSCOPE_COLLECTOR_LIB);
    env.insert("SPANSCOPE_OUTPUT", output);
    env.remove("SPANSCOPE_SOCKET");
    env.remove("SPANSCOPE_OUTPUT_DIR");
    if (cupti.isEmpty())
        env.remove("SPANSCOPE_CUPTI");
    else
        env.insert("SPANSCOPE_CUPTI", cupti);
    for (const QString& variable : extra)
        env.insert(variable.section('=', 0, 0), variable.section('=', 1));
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(SPANSCOPE_CUDA_INJECTION_PROGRAM, arguments);
    Recorded r;
    if (!p.waitForFinished(120000))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    QFile f(output);
    if (!f.open(QIODevice::ReadOnly))
        return r;
    const QByteArray bytes = f.readAll();
    model::live::NvtxAssembler assembler;
    protocol::Decoder decoder(assembler);
    decoder.feed(bytes.constData(), size_t(bytes.size()));
    const bool ok = decoder.finish();
    assembler.finish(ok ? std::string() : decoder.error());
    r.capture = assembler.snapshot();
    return r;
}

std::string metadataText(const model::Capture& c, const std::string& key)
{
    const model::MetadataValue* v = model::findMetadata(c.metadata, key);
    return v ? v->text : std::string();
}

// The calls of `region`, in start order (each of its rows is in that order).
struct Call
{
    int64_t start = 0, end = 0, gpu = -1, thread = -1;
};
std::vector<Call> callsOf(const model::Capture& c, const std::string& region)
{
    std::vector<Call> out;
    for (uint32_t row = 0; row < c.rows.size(); ++row) {
        if (c.regionName(c.rows[row].region) != region)
            continue;
        for (const uint64_t e : c.rowEvents(row))
            out.push_back({c.events.start[e], c.events.end[e], c.events.hasGpu() ? c.events.gpu[e] : -1, c.threadOfEvent(row, e)});
    }
    std::sort(out.begin(), out.end(), [](const Call& a, const Call& b) { return a.start < b.start; });
    return out;
}

uint64_t calls(const model::Capture& c, const std::string& region)
{
    uint64_t n = 0;
    for (const auto& row : c.rows)
        if (c.regionName(row.region) == region)
            n += row.count;
    return n;
}

} // namespace

class TstCudaInjection : public QObject
{
    Q_OBJECT

private slots:
    void withoutLibcuptiNvtxGoesOn()
    {
        const Recorded r = record("/nonexistent/libcupti.so");
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.capture);
        const std::string status = metadataText(*r.capture, "cuda_activity");
        QVERIFY2(status.rfind("unavailable: libcupti could not be loaded (/nonexistent/libcupti.so", 0) == 0,
                 status.c_str());
        QCOMPARE(calls(*r.capture, "after CUDA init"), uint64_t(3));
        // Device windows find the collector although it was loaded privately.
        QVERIFY2(r.out.contains("device-window entry visible: yes"), qPrintable(r.out));
        bool warned = false;
        for (const auto& w : r.capture->warnings)
            warned |= w.message.find("CUDA activity unavailable: libcupti could not be loaded") == 0;
        QVERIFY(warned);
        QVERIFY(findMetadata(r.capture->metadata, "gpu_clock") == nullptr);
    }

    // The real libcupti of the CUDA toolkit, on a machine without a driver: CUPTI refuses,
    // the capture says so and why.
    void withLibcuptiButNoDriverNvtxGoesOn()
    {
        if (void* driver = dlopen("libcuda.so.1", RTLD_NOW)) {
            dlclose(driver);
            QSKIP("this machine has a CUDA driver: scripts/gpu-check.sh covers it");
        }
        const Recorded r = record({});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.capture);
        const std::string status = metadataText(*r.capture, "cuda_activity");
        QVERIFY2(status.rfind("unavailable: ", 0) == 0, status.c_str());
        if (status.find("libcupti could not be loaded") == std::string::npos) // a toolkit is installed
            QVERIFY2(status.find("no CUDA driver is loaded in this process") != std::string::npos, status.c_str());
        QCOMPARE(calls(*r.capture, "after CUDA init"), uint64_t(3));
        QCOMPARE(r.capture->events.size(), size_t(3));
    }

    // A libcupti that behaves as the real one where it matters here (fake_cupti.cpp): API
    // records name their thread by pthread_self() unless the collector asks for the system's
    // thread ids, and carry CLOCK_MONOTONIC ns where NVTX records carry ticks. Each launch
    // (a microsecond inside its range) must land on the thread of the range that made it and
    // inside it, so that the range gets the GPU time of its kernel, all through a run.
    void launchesLandInTheirRangesWithTheirGpuTime()
    {
        constexpr int kSteps = 3000;
        const Recorded r = record(SPANSCOPE_FAKE_CUPTI, {"--launch", QString::number(kSteps)});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.capture);
        const std::string status = metadataText(*r.capture, "cuda_activity");
        QVERIFY2(status.rfind("recording", 0) == 0, status.c_str());
        QCOMPARE(metadataText(*r.capture, "cuda_thread_ids"), std::string());
        const std::vector<Call> steps = callsOf(*r.capture, "step");
        const std::vector<Call> launches = callsOf(*r.capture, "cudaLaunchKernel");
        QCOMPARE(steps.size(), size_t(kSteps));
        QCOMPARE(launches.size(), size_t(kSteps));
        int outside = 0;
        int64_t worst = 0; // ns the farthest launch reached outside its range
        for (int i = 0; i < kSteps; ++i) {
            QCOMPARE(launches[i].thread, steps[i].thread);
            const int64_t out = std::max(steps[i].start - launches[i].start, launches[i].end - steps[i].end);
            outside += out > 0;
            worst = std::max(worst, out);
            QCOMPARE(launches[i].gpu, int64_t(i + 1) * 1000);
        }
        QVERIFY2(outside == 0, qPrintable(QString("%1 of %2 launches outside their range, by up to %3 ns")
                                              .arg(outside).arg(kSteps).arg(worst)));
        for (int i = 0; i < kSteps; ++i)
            QCOMPARE(steps[i].gpu, int64_t(i + 1) * 1000);
        QCOMPARE(r.capture->threads.size(), size_t(1));
    }

    // Where CUPTI cannot name threads by their OS ids, the capture says what that costs.
    void withoutSystemThreadIdsTheCaptureSaysSo()
    {
        const Recorded r = record(SPANSCOPE_FAKE_CUPTI, {"--launch", "3"}, {"FAKE_CUPTI_NO_SYSTEM_THREAD_IDS=1"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.capture);
        QCOMPARE(metadataText(*r.capture, "cuda_thread_ids"),
                 std::string("pthread ids: cuptiSetThreadIdType failed: CUPTI_FAKE_RESULT"));
        bool warned = false;
        for (const auto& w : r.capture->warnings)
            warned |= w.message.find("CUDA calls were recorded under CUPTI's pthread ids") == 0;
        QVERIFY(warned);
        QCOMPARE(callsOf(*r.capture, "step").size(), size_t(3));
        QCOMPARE(r.capture->threads.size(), size_t(2)); // the calls on a thread of their own
    }
};

QTEST_GUILESS_MAIN(TstCudaInjection)
#include "tst_cuda_injection.moc"
