// The collector's CUDA injection where there is no GPU (every CI machine): it fails soft,
// the capture says why, and NVTX recording goes on untouched.
#include "model/live/nvtx_assembler.h"
#include "protocol/spanscope_decoder.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <dlfcn.h>

using namespace spanscope;

namespace {

struct Recorded
{
    int exitCode = -1;
    QString out; // the program's stdout
    std::shared_ptr<model::Capture> capture;
};

// Runs the program under the collector with `cupti` as SPANSCOPE_CUPTI (empty: unset) and
// assembles what it recorded.
Recorded record(const QString& cupti)
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
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(SPANSCOPE_CUDA_INJECTION_PROGRAM, {});
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
};

QTEST_GUILESS_MAIN(TstCudaInjection)
#include "tst_cuda_injection.moc"
