// Kineto (PyTorch profiler) traces: GPU work and its attributes, devices, GPU memory,
// launches and their flows, the categories of older PyTorch versions.
#include "model/capture_loader.h"
#include "model/gpu/launch_gpu_time.h"
#include "model/stats/allocation_stats.h"
#include "model/stats/gpu_summary.h"
#include "support/trace_files.h"

#include <QtTest>

#include <map>
#include <set>

using namespace spanscope;
using testing::kinetoDataPath;
using testing::loadOk;
using testing::pooledOf;

class TestKinetoImport : public QObject
{
    Q_OBJECT

    testing::TraceFiles m_files;

    std::string write(const QString& name, const QByteArray& text) { return m_files.write(name, text); }
    static QString dataPath(const QString& name) { return kinetoDataPath(name); }

private slots:
    void kernelsKeepTheirAttributesAndLaunches()
    {
        auto capture = loadOk(dataPath("tiny-two-streams.json.gz").toStdString());
        QVERIFY(capture);
        const auto& c = *capture;
        // The one kernel with a known shape: grid 110x1x1, block 128, 20 registers.
        bool found = false;
        for (size_t row = 0; row < c.gpuActivities.size(); ++row) {
            const auto shape = c.gpuActivities.kernelShape(row);
            if (!shape || shape->grid[0] != 110)
                continue;
            found = true;
            QCOMPARE(shape->block[0], 128u);
            QCOMPARE(shape->registersPerThread, uint16_t(20));
            QCOMPARE(c.gpuActivities.correlation(row), uint64_t(1930734));
            const uint32_t event = c.gpuActivities.event(row);
            const auto& track = c.track(model::TrackId{c.events.track[event]});
            QCOMPARE(track.kind, model::TrackKind::GpuStream);
            QCOMPARE(track.device, 1);
            QCOMPARE(track.stream, int64_t(7));
            // Its args are kept, byte for byte.
            const std::string args = c.args.text(model::ArgsRef{c.events.args[event]});
            QVERIFY(args.find("\"est. achieved occupancy %\": 9") != std::string::npos);
        }
        QVERIFY(found);
        // Copies know their size and direction.
        bool copy = false;
        for (size_t row = 0; row < c.gpuActivities.size(); ++row)
            if (c.gpuActivities.copyBytes(row) == uint64_t(1802240)) {
                copy = true;
                QCOMPARE(c.gpuActivities.copyKind(row), model::CopyKind::DeviceToDevice);
            }
        QVERIFY(copy);
    }

    void devicesAndTitlesFromKinetoMetadata()
    {
        auto capture = loadOk(dataPath("a100-simple-add.json.gz").toStdString());
        QVERIFY(capture);
        const auto& c = *capture;
        QCOMPARE(c.devices.size(), size_t(8));
        QCOMPARE(c.strings.text(c.devices[0].name), std::string("NVIDIA A100-PG509-200"));
        QCOMPARE(c.devices[0].multiprocessors, 108);
        QCOMPARE(c.devices[0].computeMajor, 8);
        QCOMPARE(c.devices[0].totalMemoryBytes, int64_t(42297524224));
        std::set<std::string> titles;
        for (uint32_t t = 0; t < c.tracks.size(); ++t)
            titles.insert(model::trackTitle(c, model::TrackId{t}));
        QVERIFY(titles.count("rank 0 \u00b7 thread 493459 (python3.10)"));
        QVERIFY(titles.count("rank 0 \u00b7 GPU 0 \u00b7 stream 7"));
        QVERIFY(titles.count("rank 0 \u00b7 GPU 0 \u00b7 stream 7 syncs"));
        // Kineto's own "Trace" span is not a region.
        for (uint32_t r = 0; r < c.regionNames.size(); ++r)
            QVERIFY(c.regionName(r).rfind("PyTorch Profiler", 0) != 0);
    }

    void memoryEventsBecomeAllocationsAndCounters()
    {
        auto capture = loadOk(dataPath("v100-memory-part.json.gz").toStdString());
        QVERIFY(capture);
        const auto& c = *capture;
        QCOMPARE(c.allocations.size(), size_t(248 + 248 + 5146 + 4422));
        bool allocated = false, reserved = false;
        for (const auto& series : c.counters) {
            const auto& track = c.track(series.track);
            const std::string name = c.strings.text(track.name);
            if (track.device == 1 && name == "allocated") {
                allocated = true;
                QCOMPARE(int64_t(series.maximum()), int64_t(6629508096));
                QCOMPARE(c.strings.text(series.unit), std::string("bytes"));
            }
            reserved |= track.device == 1 && name == "reserved";
        }
        QVERIFY(allocated);
        QVERIFY(reserved);
    }

    // Allocation events without the allocator's totals imply an "allocated" counter: the
    // bytes allocated minus freed since the recording began.
    void allocationsImplyTheirCounter()
    {
        const std::string path = write("memory.json", R"([
  {"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1, "args": {"Device Type": 1, "Device Id": 0, "Addr": 16, "Bytes": 100}},
  {"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": 2, "args": {"Device Type": 1, "Device Id": 0, "Addr": 32, "Bytes": 50}},
  {"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": 3, "args": {"Device Type": 1, "Device Id": 0, "Addr": 16, "Bytes": -100}}
])");
        auto capture = loadOk(path, model::LoadOptions{true});
        QVERIFY(capture);
        QCOMPARE(capture->counters.size(), size_t(1));
        const auto& series = capture->counters.front();
        QCOMPARE(capture->strings.text(capture->track(series.track).name), std::string("allocated"));
        QCOMPARE(capture->track(series.track).device, 0);
        QCOMPARE(series.size(), size_t(3));
        QCOMPARE(series.value(2), 50.0);
        QCOMPARE(series.maximum(), 150.0);
        QCOMPARE(model::summarizeAllocations(*capture).front().peakBytes, int64_t(150));
    }


    // The CUPTI range profiler's ranges (PyTorch's cupti-range-profiler traces) are GPU
    // ranges on their device, with their metrics as attributes, not CPU calls beside a stream.
    void rangeProfilerRangesAreGpuRanges()
    {
        const std::string path = write("ranges.json", R"({"traceEvents": [
  {"ph": "X", "cat": "cuda_profiler_range", "name": "gemm_kernel", "pid": 0, "tid": 0, "ts": 10, "dur": 5, "args": {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 1048576, "sm__inst_executed_pipe_tensor.sum": 0}},
  {"ph": "X", "cat": "cuda_profiler_range", "name": "relu_kernel", "pid": 0, "tid": 0, "ts": 15, "dur": 5, "args": {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 0}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 100, "ts": 9, "dur": 12}
]})");
        auto capture = loadOk(path, model::LoadOptions{true});
        QVERIFY(capture);
        const auto& c = *capture;
        int ranges = 0;
        for (uint32_t r = 0; r < c.rows.size(); ++r) {
            const auto& row = c.rows[r];
            if (c.regionName(row.region) == "aten::mm") {
                QCOMPARE(c.regionKind(row.region), model::RegionKind::Cpu);
                continue;
            }
            ++ranges;
            QCOMPARE(c.regionKind(row.region), model::RegionKind::GpuRange);
            const uint64_t e = c.rowEvents(row).front();
            const auto& track = c.track(c.trackOfEvent(r, e));
            QCOMPARE(track.kind, model::TrackKind::GpuDevice);
            QCOMPARE(track.device, 0);
            QVERIFY(c.args.text(model::ArgsRef{c.events.args[e]}).find("smsp__sass_thread_inst_executed_op_ffma") !=
                    std::string::npos);
        }
        QCOMPARE(ranges, 2);
        for (const auto& t : c.tracks)
            QVERIFY(c.strings.text(t.name).find("syncs") == std::string::npos);
    }

    // Kineto writes a launch flow (ac2g) whose id is the launch's correlation number, and
    // also ends one, with no start, on runtime calls that launched nothing. Neither is a
    // missing arrow: the launch is drawn once from the correlation ids, and only flow
    // events that really have no other end are counted.
    void kinetoLaunchFlowsAreNotCountedAsMissing()
    {
        const std::string path = write("flows.json", R"({"traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"correlation": 5}},
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 20, "dur": 3, "args": {"correlation": 5, "device": 0, "stream": 7}},
  {"ph": "s", "id": 5, "cat": "ac2g", "name": "ac2g", "pid": 1, "tid": 1, "ts": 10},
  {"ph": "f", "id": 5, "cat": "ac2g", "name": "ac2g", "pid": 0, "tid": 7, "ts": 20, "bp": "e"},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventQuery", "pid": 1, "tid": 1, "ts": 30, "dur": 2, "args": {"correlation": 6}},
  {"ph": "f", "id": 6, "cat": "ac2g", "name": "ac2g", "pid": 1, "tid": 1, "ts": 30, "bp": "e"},
  {"ph": "f", "id": 7, "cat": "ac2g", "name": "ac2g", "pid": 1, "tid": 1, "ts": 31, "bp": "e"},
  {"ph": "f", "id": 9, "cat": "link", "name": "hop", "pid": 1, "tid": 1, "ts": 12, "bp": "e"}
]})");
        auto loaded = model::loadCapture(path, nullptr, model::LoadOptions{true});
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        const auto& c = *loaded.value().capture;
        QCOMPARE(c.flows.size(), size_t(1));
        QCOMPARE(c.flows.kind(0), model::FlowKind::Launch);
        std::string warnings;
        for (const auto& w : c.warnings)
            warnings += w.message + "\n";
        // The finish of id 7 (no runtime call has that correlation) and the user flow's.
        QVERIFY2(warnings.find("2 flow events have no other end") != std::string::npos, warnings.c_str());

        // Real traces: every launch, and the links of runtime calls to the syncs they wait
        // on, are drawn; nothing is reported missing.
        for (const auto& [file, flows] : {std::pair{"a100-simple-add.json.gz", size_t(139)},
                                          std::pair{"v100-memory-part.json.gz", size_t(7686)}}) {
            auto real = loadOk(dataPath(file).toStdString());
            QVERIFY(real);
            QCOMPARE(real->flows.size(), flows);
            for (const auto& w : real->warnings)
                QVERIFY2(w.message.find("flow events") == std::string::npos, w.message.c_str());
        }
    }

    // PyTorch 1.8 and 1.9 wrote Kineto's categories capitalised ("Operator", "Runtime",
    // "Kernel", "Memcpy", "Memset"): their GPU work is GPU work and their launches link.
    // Their launch flows were "async_gpu" (later "async_cpu_to_gpu", now "ac2g"): drawn
    // once, and not counted as missing where they end on a call that launched nothing.
    void kinetoCategoriesOfPyTorch18AreKnown()
    {
        const std::string path = write("pytorch18.json", R"json({"traceEvents": [
  {"ph": "X", "cat": "Operator", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 50},
  {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"correlation": 3, "external id": 2}},
  {"ph": "X", "cat": "Kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": "stream 7", "ts": 20, "dur": 30, "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 3, "external id": 2}},
  {"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": "stream 7", "ts": 60, "dur": 4, "args": {"device": 0, "stream": 7, "correlation": 4, "bytes": 4096}},
  {"ph": "X", "cat": "Memset", "name": "Memset (Device)", "pid": 0, "tid": "stream 7", "ts": 70, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 5, "bytes": 64}},
  {"ph": "s", "id": 3, "cat": "async_gpu", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "bp": "e"},
  {"ph": "f", "id": 3, "cat": "async_gpu", "name": "cudaLaunchKernel", "pid": 0, "tid": "stream 7", "ts": 20, "bp": "e"},
  {"ph": "X", "cat": "Runtime", "name": "cudaEventQuery", "pid": 1, "tid": 1, "ts": 30, "dur": 1, "args": {"correlation": 9}},
  {"ph": "f", "id": 9, "cat": "async_cpu_to_gpu", "name": "async_gpu", "pid": 1, "tid": 1, "ts": 30, "bp": "e"}
]})json");
        auto loaded = model::loadCapture(path, nullptr, model::LoadOptions{true});
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        const auto& c = *loaded.value().capture;
        std::map<std::string, model::RegionKind> kinds;
        for (uint32_t region = 0; region < c.regionNames.size(); ++region)
            kinds[c.regionName(region)] = c.regionKind(region);
        QCOMPARE(kinds["aten::mm"], model::RegionKind::Cpu);
        QCOMPARE(kinds["volta_sgemm_128x64_nn"], model::RegionKind::Kernel);
        QCOMPARE(kinds["Memcpy HtoD (Pageable -> Device)"], model::RegionKind::Memcpy);
        QCOMPARE(kinds["Memset (Device)"], model::RegionKind::Memset);
        QCOMPARE(c.flows.size(), size_t(1));
        QCOMPARE(c.flows.kind(0), model::FlowKind::Launch);
        QCOMPARE(c.regionName(c.rows[loaded.value().timeline->rowOf(c.flows.to(0))].region),
                 std::string("volta_sgemm_128x64_nn"));
        for (size_t row = 0; row < c.gpuActivities.size(); ++row)
            if (c.gpuActivities.copyBytes(row) == uint64_t(4096))
                QCOMPARE(c.gpuActivities.copyKind(row), model::CopyKind::HostToDevice);
        for (const auto& w : c.warnings)
            QVERIFY2(w.message.find("flow events") == std::string::npos, w.message.c_str());
    }

    void launchesGiveCpuRangesTheirGpuTime()
    {
        // Thread 1: op [0, 100] launches k1 (10 µs) and k2 (5 µs); thread 2 launches k3 at
        // a time inside op, but on another thread: it does not count for op.
        const std::string path = write("launch.json", R"([
  {"ph": "X", "name": "op", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "name": "cudaLaunchKernel", "cat": "cuda_runtime", "pid": 1, "tid": 1, "ts": 10, "dur": 2, "args": {"correlation": 7}},
  {"ph": "X", "name": "cudaLaunchKernel", "cat": "cuda_runtime", "pid": 1, "tid": 1, "ts": 20, "dur": 2, "args": {"correlation": 8}},
  {"ph": "X", "name": "cudaLaunchKernel", "cat": "cuda_runtime", "pid": 1, "tid": 2, "ts": 30, "dur": 2, "args": {"correlation": 9}},
  {"ph": "X", "name": "k1", "cat": "kernel", "pid": 0, "tid": 7, "ts": 15, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 7}},
  {"ph": "X", "name": "k2", "cat": "kernel", "pid": 0, "tid": 7, "ts": 40, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 8}},
  {"ph": "X", "name": "k3", "cat": "kernel", "pid": 0, "tid": 7, "ts": 50, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 9}}
)");
        auto loaded = model::loadCapture(path);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        const auto& c = *loaded.value().capture;
        const auto pooled = pooledOf(loaded.value());
        QCOMPARE(pooled.at("cpu op").gpuTotal, int64_t(15000));
        QCOMPARE(pooled.at("cpu op").gpuCalls, uint64_t(1));
        QCOMPARE(pooled.at("cpu cudaLaunchKernel").gpuTotal, int64_t(16000));
        QCOMPARE(pooled.at("cpu cudaLaunchKernel").gpuCalls, uint64_t(3));
        QCOMPARE(model::matchedLaunches(c), uint64_t(3));
        // op's work ran on the GPU from 15 µs to 45 µs.
        for (uint32_t r = 0; r < c.rows.size(); ++r)
            if (c.regionName(c.rows[r].region) == "op")
                QCOMPARE(model::projectedGpuSpan(c, r, uint32_t(c.rows[r].firstEvent)),
                         (std::optional<std::pair<int64_t, int64_t>>({15000, 45000})));
        // Kernels are regions of their own kind on their stream's track.
        QCOMPARE(pooled.count("kernel k1"), size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestKinetoImport)
#include "tst_kineto_import.moc"
