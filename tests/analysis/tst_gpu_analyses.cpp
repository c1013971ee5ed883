// The GPU analyses rule by rule (docs/gpu-analyses.md), each on a trace written for it:
// utilization across classes, zero-length work, gaps and their causes, queues, launch
// latency, kernel classes, graph and driver launches, and the critical path through
// launches, busy streams and synchronizations.
#include "model/analysis/gpu_analysis.h"
#include "model/analysis/nccl_kernel.h"
#include "model/tables/args_fields.h"
#include "support/kineto_builder.h"
#include "support/trace_files.h"

#include <QtTest>

using namespace spanscope;
using model::analysis::GpuAnalysis;
using model::analysis::PathShare;
using testing::KinetoTrace;

class TestGpuAnalyses : public QObject
{
    Q_OBJECT

    testing::TraceFiles m_files;

    GpuAnalysis analyze(const KinetoTrace& trace, const model::analysis::KernelClasses& classes = {})
    {
        static int serial = 0;
        const std::string path = m_files.write(QString("trace-%1.json").arg(++serial), trace.json());
        auto capture = testing::loadOk(path);
        if (!capture)
            return {};
        m_capture = capture;
        return model::analysis::analyzeGpu(*capture, classes);
    }
    std::shared_ptr<const model::Capture> m_capture;

    static int64_t share(const model::analysis::CriticalPath& path, PathShare s) { return path.boundBy[int(s)]; }

private slots:
    // Span = compute + communication (not under compute) + memory (under neither) + idle.
    void classesSplitTheSpanWhereTheyOverlap()
    {
        KinetoTrace t;
        t.kernel("gemm", 0, 10'000, 7, 1)
            .kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 5'000, 15'000, 20, 2)
            .memcpy(15'000, 15'000, 21, 3)
            .memset(40'000, 10'000, 21, 4);
        const GpuAnalysis a = analyze(t);
        QCOMPARE(a.devices.size(), size_t(1));
        const auto& u = a.devices[0].utilization;
        QCOMPARE(u.spanNs, int64_t(50'000));
        QCOMPARE(u.computeNs, int64_t(10'000));
        QCOMPARE(u.communicationNs, int64_t(10'000));   // [10, 20) µs
        QCOMPARE(u.memoryNs, int64_t(20'000));          // [20, 30) and [40, 50)
        QCOMPARE(u.idleNs, int64_t(10'000));            // [30, 40)
        QCOMPARE(u.communicationTotalNs, int64_t(15'000));
        QCOMPARE(u.communicationOverlappedNs, int64_t(5'000));
        QCOMPARE(u.classes[int(model::analysis::GpuWorkClass::Memory)].count, uint64_t(2));
        QCOMPARE(u.classes[int(model::analysis::GpuWorkClass::Communication)].totalNs, int64_t(15'000));
    }

    // Zero-length work is counted but covers nothing; it still ends a gap.
    void zeroLengthWorkCountsButCoversNothing()
    {
        KinetoTrace t;
        t.kernel("a", 0, 10'000, 7, 1).kernel("marker", 15'000, 0, 7, 2).kernel("b", 20'000, 10'000, 7, 3);
        const GpuAnalysis a = analyze(t);
        const auto& d = a.devices.at(0);
        QCOMPARE(d.utilization.classes[0].count, uint64_t(3));
        QCOMPARE(d.utilization.computeNs, int64_t(20'000));
        QCOMPARE(d.utilization.idleNs, int64_t(10'000));
        QCOMPARE(d.streams.at(0).activities, uint64_t(3));
        QCOMPARE(d.streams.at(0).busyNs, int64_t(20'000));
        QCOMPARE(d.streams.at(0).gaps, uint64_t(2)); // 10 → 15 and 15 → 20 µs
        QCOMPARE(d.streams.at(0).gapNs, int64_t(10'000));
    }

    // A gap is the host's when the work after it was launched at or after the gap began,
    // else the stream waited on something else; both add up to the gaps.
    void aGapIsTheHostsOnlyWhenTheLaunchCameAfterItBegan()
    {
        KinetoTrace t;
        t.call("cudaLaunchKernel", 0, 1'000, 1).kernel("a", 2'000, 8'000, 7, 1); // ends at 10 µs
        t.call("cudaLaunchKernel", 15'000, 1'000, 2).kernel("b", 20'000, 10'000, 7, 2); // launched after 10
        t.call("cudaLaunchKernel", 5'000, 1'000, 3).kernel("c", 40'000, 10'000, 7, 3);  // launched before 30
        t.call("cudaLaunchKernel", 50'000, 1'000, 4).kernel("d", 60'000, 1'000, 7, 4);  // launched at 50: host
        const GpuAnalysis a = analyze(t);
        const auto& s = a.devices.at(0).streams.at(0);
        QCOMPARE(s.gaps, uint64_t(3));
        QCOMPARE(s.hostWaitNs, int64_t(10'000 + 10'000));
        QCOMPARE(s.otherWaitNs, int64_t(10'000));
        QCOMPARE(s.hostWaitNs + s.otherWaitNs, s.gapNs);
        const auto& gaps = a.devices.at(0).largestGaps;
        QCOMPARE(gaps.size(), size_t(3));
        QCOMPARE(gaps[0].startNs, int64_t(10'000)); // equal gaps: the earliest first
        QCOMPARE(gaps[1].kind, model::analysis::WaitKind::Other);
        QCOMPARE(m_capture->regionName(gaps[1].beforeRegion), std::string("b"));
        QCOMPARE(m_capture->regionName(gaps[1].afterRegion), std::string("c"));
        QCOMPARE(gaps[0].deviceIdleNs, int64_t(10'000));
    }

    // The GPU may start work before the launch call returns: a negative latency, kept.
    void latencyIsFromTheCallsEndAndMayBeNegative()
    {
        KinetoTrace t;
        t.call("cudaMemcpy", 0, 100'000, 1).memcpy(10'000, 40'000, 7, 1);      // −90 µs
        t.call("cudaLaunchKernel", 200'000, 5'000, 2).kernel("k", 208'000, 1'000, 7, 2); // 3 µs
        t.call("cudaLaunchKernel", 300'000, 5'000, 3).kernel("k", 312'000, 1'000, 7, 3); // 7 µs
        t.call("cudaLaunchKernel", 400'000, 5'000, 4).kernel("k", 410'000, 1'000, 7, 4); // 5 µs
        const GpuAnalysis a = analyze(t);
        const auto& l = a.devices.at(0).launchLatency;
        QCOMPARE(l.count, uint64_t(4));
        QCOMPARE(l.minNs, int64_t(-90'000));
        QCOMPARE(l.maxNs, int64_t(7'000));
        QCOMPARE(l.medianNs, int64_t(3'000)); // the lower median of −90, 3, 5, 7
        QCOMPARE(l.negative, uint64_t(1));
        QCOMPARE(l.values.size(), size_t(4));
    }

    // The queue counts work launched and not yet started; at equal times a start leaves
    // the queue before a launch joins it.
    void queueTiesTakeTheStartFirst()
    {
        KinetoTrace t;
        t.call("cudaLaunchKernel", 0, 1'000, 1).kernel("a", 5'000, 1'000, 7, 1);
        t.call("cudaLaunchKernel", 5'000, 1'000, 2).kernel("b", 20'000, 1'000, 7, 2);
        QCOMPARE(analyze(t).devices.at(0).streams.at(0).maxQueue, uint64_t(1));
        KinetoTrace u;
        u.call("cudaLaunchKernel", 0, 1'000, 1).kernel("a", 5'000, 1'000, 7, 1);
        u.call("cudaLaunchKernel", 4'000, 1'000, 2).kernel("b", 20'000, 1'000, 7, 2);
        QCOMPARE(analyze(u).devices.at(0).streams.at(0).maxQueue, uint64_t(2));
    }

    // A CUDA graph launch starts many kernels under one correlation id: one launch, one
    // latency (to its first kernel), each kernel queued; cuLaunchKernelEx is a launch too;
    // of a runtime and a driver call with one correlation id the runtime call launches.
    void graphAndDriverLaunches()
    {
        KinetoTrace t;
        t.call("cudaGraphLaunch", 0, 2'000, 9).kernel("g1", 10'000, 5'000, 7, 9).kernel("g2", 15'000, 5'000, 7, 9)
            .kernel("g3", 20'000, 5'000, 7, 9);
        t.call("cuLaunchKernelEx", 30'000, 1'000, 10, 1, "cuda_driver").kernel("ex", 33'000, 1'000, 7, 10);
        t.call("cuLaunchKernel", 40'000, 1'000, 11, 1, "cuda_driver");
        t.call("cudaLaunchKernel", 40'500, 2'000, 11).kernel("rt", 45'000, 1'000, 7, 11);
        const GpuAnalysis a = analyze(t);
        const auto& d = a.devices.at(0);
        QCOMPARE(d.launchLatency.count, uint64_t(3));
        QCOMPARE(d.launchLatency.minNs, int64_t(2'000));  // ex: 33 − 31 µs; rt: 45 − 42.5 = 2.5
        QCOMPARE(d.launchLatency.maxNs, int64_t(8'000));  // the graph: 10 − 2 µs
        QCOMPARE(d.streams.at(0).maxQueue, uint64_t(3)); // the graph's three kernels at once
        // The graph's kernels are on the critical path through the one launch.
        const auto* path = a.longestPath();
        QVERIFY(path);
        QVERIFY(share(*path, PathShare::LaunchOverhead) > 0);
    }

    // A synchronize the host waited in: the path goes through the GPU work it waited for
    // and the shares add up to the length.
    void aSynchronizeOnTheCriticalPath()
    {
        KinetoTrace t;
        t.op("step", 0, 100'000);
        t.call("cudaLaunchKernel", 1'000, 1'000, 1).kernel("k", 10'000, 70'000, 7, 1);
        t.call("cudaStreamSynchronize", 3'000, 79'000, 2).sync("Stream Sync", 4'000, 77'000, 7, 2);
        t.op("after", 85'000, 10'000);
        const GpuAnalysis a = analyze(t);
        QCOMPARE(a.criticalPaths.size(), size_t(1));
        const auto& path = a.criticalPaths[0];
        QCOMPARE(path.lengthNs, int64_t(100'000));
        QCOMPARE(share(path, PathShare::GpuCompute), int64_t(70'000));
        QCOMPARE(share(path, PathShare::LaunchOverhead), int64_t(9'000));  // 1 → 10 µs
        QCOMPARE(share(path, PathShare::Synchronization), int64_t(2'000)); // 80 → 82 µs
        QCOMPARE(share(path, PathShare::Cpu), int64_t(19'000));
        int64_t sum = 0;
        for (int64_t ns : path.boundBy)
            sum += ns;
        QCOMPARE(sum, path.lengthNs);
        QCOMPARE(path.nodes.front().timeNs, int64_t(0));
        QCOMPARE(path.nodes.back().timeNs, int64_t(100'000));
        bool throughKernel = false;
        for (const auto& node : path.nodes)
            throughKernel |= m_capture->regionName(node.region) == "k";
        QVERIFY(throughKernel);
    }

    // Without the profiler's record, a cudaDeviceSynchronize waited for the last work that
    // ended before it returned, on any stream.
    void aDeviceSynchronizeWithoutARecord()
    {
        KinetoTrace t;
        t.op("step", 0, 100'000);
        t.call("cudaLaunchKernel", 1'000, 1'000, 1).kernel("short", 5'000, 10'000, 7, 1);
        t.call("cudaLaunchKernel", 2'000, 1'000, 2).kernel("long", 6'000, 60'000, 20, 2);
        t.call("cudaDeviceSynchronize", 4'000, 64'000, 3);
        const GpuAnalysis a = analyze(t);
        const auto& path = a.criticalPaths.at(0);
        QCOMPARE(share(path, PathShare::GpuCompute), int64_t(60'000));
        QCOMPARE(share(path, PathShare::Synchronization), int64_t(2'000)); // 66 → 68 µs
        QCOMPARE(share(path, PathShare::LaunchOverhead), int64_t(4'000));  // 2 → 6 µs
    }

    // Work queued behind busy work waits on it (a kernel gap), not on its launch; a stream
    // that waits for an event of another waits for that stream's work.
    void busyStreamsAndStreamWaits()
    {
        KinetoTrace t;
        t.op("step", 0, 6'000); // returns at once: the GPU work ends last
        t.call("cudaLaunchKernel", 1'000, 1'000, 1).kernel("a", 10'000, 10'000, 7, 1);
        t.call("cudaLaunchKernel", 2'000, 1'000, 2).kernel("b", 21'000, 29'000, 7, 2); // queued behind a
        t.call("cudaStreamWaitEvent", 3'000, 1'000, 3).sync("Stream Wait Event", 3'200, 500, 20, 3, 7);
        t.call("cudaLaunchKernel", 4'000, 1'000, 4).kernel("c", 55'000, 10'000, 20, 4); // after b
        const GpuAnalysis a = analyze(t);
        const auto& path = a.criticalPaths.at(0);
        // step's start → launch of a → a → gap → b → wait → c.
        QCOMPARE(share(path, PathShare::KernelGap), int64_t(1'000));
        QCOMPARE(share(path, PathShare::Synchronization), int64_t(5'000)); // b's end 50 → c's start 55
        QCOMPARE(share(path, PathShare::GpuCompute), int64_t(10'000 + 29'000 + 10'000));
        QCOMPARE(share(path, PathShare::LaunchOverhead), int64_t(9'000));
        QCOMPARE(share(path, PathShare::Cpu), int64_t(1'000));
        QCOMPARE(path.lengthNs, int64_t(65'000));
    }

    // A copy the launch call waited for (cudaMemcpy to pageable memory) holds the call.
    void aSynchronousCopyHoldsItsCall()
    {
        KinetoTrace t;
        t.op("step", 0, 100'000);
        t.call("cudaMemcpy", 10'000, 80'000, 1).memcpy(20'000, 60'000, 7, 1);
        const GpuAnalysis a = analyze(t);
        const auto& path = a.criticalPaths.at(0);
        QCOMPARE(share(path, PathShare::GpuMemory), int64_t(60'000));
        QCOMPARE(share(path, PathShare::Synchronization), int64_t(10'000)); // 80 → 90 µs
        QCOMPARE(share(path, PathShare::LaunchOverhead), int64_t(10'000));
    }

    // Kernel classes: the communication pattern can change, labels sort kernels within
    // their class, and a label that takes nothing is said.
    void kernelClassesAreConfigurable()
    {
        KinetoTrace t;
        t.kernel("flash_fwd_kernel", 0, 10'000, 7, 1)
            .kernel("cross_device_reduce_1stage", 10'000, 10'000, 7, 2)
            .kernel("ncclKernel_AllGather", 20'000, 10'000, 7, 3);
        model::analysis::KernelClasses classes;
        QVERIFY(!classes.add("communication=^(nccl|rccl)|cross_device_reduce"));
        QVERIFY(!classes.add("attention=flash|fmha"));
        QVERIFY(!classes.add("moe=fused_moe"));
        QVERIFY(classes.add("compute=gemm").has_value());
        QVERIFY(classes.add("broken=(").has_value());
        QVERIFY(classes.add("no equals sign").has_value());
        const GpuAnalysis a = analyze(t, classes);
        const auto& u = a.devices.at(0).utilization;
        QCOMPARE(u.communicationNs, int64_t(20'000));
        QCOMPARE(u.computeNs, int64_t(10'000));
        QCOMPARE(a.labels.size(), size_t(2));
        QCOMPARE(a.labels[0].kernels, uint64_t(1));
        QCOMPARE(u.labels[0].busyNs, int64_t(10'000));
        QCOMPARE(a.labels[1].kernels, uint64_t(0)); // said in the report
        QVERIFY(a.classSpecs.at(0).find("cross_device_reduce") != std::string::npos);
    }

    // Args as fields in the order written, values raw; damage keeps what came before it.
    void argsFieldsInOrder()
    {
        const auto fields = model::argsFields(
            "{\"b\": 1, \"a\": \"x\\\"y\\u00e9\", \"grid\": [16, 1, 1], \"nested\": {\"k\": [1, {\"z\": \"}\"}]}, \"n\": null }");
        QCOMPARE(fields.size(), size_t(5));
        QCOMPARE(fields[0].key, std::string("b"));
        QCOMPARE(fields[1].key, std::string("a"));
        QCOMPARE(model::argsValueText(fields[1].value), std::string("x\"y\xc3\xa9"));
        QCOMPARE(fields[2].value, std::string("[16, 1, 1]"));
        QCOMPARE(fields[3].value, std::string("{\"k\": [1, {\"z\": \"}\"}]}"));
        QCOMPARE(fields[4].value, std::string("null"));
        QCOMPARE(model::argsInteger(fields, "b"), std::optional<int64_t>(1));
        QVERIFY(!model::argsInteger(fields, "a"));
        QCOMPARE(model::argsFields(R"({"a": 1, "b": [1, 2)").size(), size_t(1)); // cut short
        QVERIFY(model::argsFields("[1, 2]").empty());
        QVERIFY(model::argsFields("").empty());
    }

    // An NCCL kernel's collective and type from its name, its message from what the
    // profiler recorded (on the kernel, else around its launch), and its bandwidth.
    void ncclKernelsTellWhatTheyMoved()
    {
        using model::analysis::ncclKernelInfo;
        const auto ring = ncclKernelInfo("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", {});
        QVERIFY(ring);
        QCOMPARE(ring->collective, std::string("AllReduce"));
        QCOMPARE(ring->algorithm, std::string("RING"));
        QCOMPARE(ring->protocol, std::string("LL"));
        QCOMPARE(ring->reduction, std::string("Sum"));
        QCOMPARE(ring->dataType, std::string("float"));
        QVERIFY(!ring->bytes());
        const auto sendRecv = ncclKernelInfo("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)", {});
        QCOMPARE(sendRecv->dataType, std::string("int8_t"));
        QCOMPARE(sendRecv->typeBytes, std::optional<uint32_t>(1));
        const auto launchArgs = model::argsFields(
            R"({"Collective name": "allgather", "In msg nelems": 1048576, "Out msg nelems": 8388608, "Group size": 8, "dtype": "BFloat16"})");
        const auto gathered = ncclKernelInfo("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                                             model::argsFields(R"({"device": 0})"), {launchArgs});
        QCOMPARE(gathered->collective, std::string("allgather"));
        QCOMPARE(gathered->elements, std::optional<uint64_t>(8388608));
        QCOMPARE(gathered->groupSize, std::optional<int64_t>(8));
        QCOMPARE(gathered->bytes(), std::optional<uint64_t>(16777216));
        QCOMPARE(*gathered->bandwidth(1'000'000), 16777216.0 / 1e-3); // 16 MiB in 1 ms
        // NCCL 2.19 and later: the reduction and type before the algorithm and protocol; the
        // generic kernel names no collective.
        const auto newer = ncclKernelInfo("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", {});
        QCOMPARE(newer->collective, std::string("AllReduce"));
        QCOMPARE(newer->algorithm, std::string("RING"));
        QCOMPARE(newer->protocol, std::string("LL"));
        QCOMPARE(newer->reduction, std::string("Sum"));
        QCOMPARE(newer->dataType, std::string("f32"));
        QCOMPARE(newer->typeBytes, std::optional<uint32_t>(4));
        QCOMPARE(ncclKernelInfo("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", {})->collective, std::string());
        // Hostile counts: no wrapped size.
        const auto huge = ncclKernelInfo("ncclKernel_AllReduce_RING_LL_Sum_double",
                                         model::argsFields("{\"In msg nelems\": 9223372036854775807}"));
        QVERIFY(!huge->bytes());
        QVERIFY(!ncclKernelInfo("gemm_kernel", {}));
        QCOMPARE(model::analysis::dataTypeBytes("__nv_bfloat16"), std::optional<uint32_t>(2));
        QCOMPARE(model::analysis::dataTypeBytes("torch.float64"), std::optional<uint32_t>(8));
        QVERIFY(!model::analysis::dataTypeBytes("complex"));
    }

    // A capture without GPU work has no analysis; a CPU-only trace's figures are empty.
    void noGpuWorkNoFigures()
    {
        KinetoTrace t;
        t.op("step", 0, 100'000);
        const GpuAnalysis a = analyze(t);
        QVERIFY(a.empty());
        QVERIFY(a.criticalPaths.empty());
    }
};

QTEST_GUILESS_MAIN(TestGpuAnalyses)
#include "tst_gpu_analyses.moc"

