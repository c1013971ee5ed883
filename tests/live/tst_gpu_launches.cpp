// GPU work and the calls that launched it: LaunchTable (model/live/launch_table.h), which
// API call launched each piece of GPU work by correlation id, against a plain map doing the
// same by the rule as written; and the GPU time of CPU calls (model/gpu/launch_gpu_time.h)
// against a sum over every launch, for a live job and for rows not sorted by start.
#include "model/gpu/launch_gpu_time.h"
#include "model/live/launch_table.h"
#include "model/live/nvtx_assembler.h"
#include "model/stats/nesting.h"
#include "model/track.h"
#include "support/capture_builder.h"
#include "support/nvtx_feed.h"

#include <QTest>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace spanscope::model;
using spanscope::model::live::LaunchTable;
using spanscope::model::live::NvtxAssembler;
using spanscope::testing::Feed;

namespace {

// Every CPU call's GPU time as deriveLaunchGpuTime defines it, from every Launch flow: the
// summed duration of the work launched by calls on its track starting within it; -1 when
// no launch does. A GPU call's own duration. Empty when they all agree with the capture's,
// else the first that does not.
QString gpuTimeDifference(const Capture& c)
{
    const auto& e = c.events;
    std::map<uint32_t, int64_t> launched; // launch event -> its work's summed duration
    for (size_t f = 0; f < c.flows.size(); ++f)
        if (c.flows.kind(f) == FlowKind::Launch) {
            const uint32_t to = c.flows.to(f);
            launched[c.flows.from(f)] += e.end[to] >= e.start[to] ? e.end[to] - e.start[to] : 0;
        }
    for (const RegionRow& row : c.rows)
        for (uint64_t i = row.offset; i < row.offset + row.count; ++i) {
            int64_t expected = -1;
            if (c.regionKind(row.region) != RegionKind::Cpu)
                expected = e.end[i] >= e.start[i] ? e.end[i] - e.start[i] : -1;
            else if (e.end[i] >= e.start[i])
                for (const auto& [launch, ns] : launched)
                    if (e.track[launch] == e.track[i] && e.start[launch] >= e.start[i] && e.start[launch] <= e.end[i])
                        expected = std::max<int64_t>(expected, 0) + ns;
            if (e.gpu[i] != expected)
                return QString("event %1 of '%2': GPU time %3, expected %4")
                    .arg(i)
                    .arg(QString::fromStdString(c.regionName(row.region)))
                    .arg(e.gpu[i])
                    .arg(expected);
        }
    return {};
}

} // namespace

class TestGpuLaunches : public QObject
{
    Q_OBJECT

private slots:
    void aRuntimeCallWinsOverADriverCallSharingItsId()
    {
        LaunchTable table(4);
        table.want(7);
        table.offer(7, 40, false); // driver calls: the first in event order
        table.offer(7, 30, false);
        table.offer(7, 35, false);
        QCOMPARE(table.find(7), 30u);
        table.offer(7, 50, true); // a runtime call: any, the last in event order
        table.offer(7, 45, true);
        table.offer(7, 10, false);
        QCOMPARE(table.find(7), 50u);
    }

    void onlyWantedIdsAreKept()
    {
        LaunchTable table(2);
        QVERIFY(table.empty());
        table.want(0); // CUPTI's "no correlation"
        QVERIFY(table.empty());
        table.offer(3, 1, true);
        QCOMPARE(table.find(3), LaunchTable::kNone);
        table.want(3);
        QCOMPARE(table.find(3), LaunchTable::kNone); // wanted, not offered yet
        table.offer(3, 9, false);
        table.offer(4, 2, true);
        QCOMPARE(table.find(3), 9u);
        QCOMPARE(table.find(4), LaunchTable::kNone);
        QCOMPARE(table.find(0), LaunchTable::kNone);
    }

    // A live job's threads launch kernels from nested ranges (a runtime call with a driver
    // call inside sharing its id, kernels on a stream per thread, some launches without
    // work, some work without a launch): every call's GPU time is the sum over its launches.
    void aLiveJobsGpuTimeIsTheSumOverItsLaunches()
    {
        NvtxAssembler a;
        Feed f(a);
        std::mt19937 random(3);
        uint32_t correlation = 0;
        for (uint32_t t = 0; t < 3; ++t) {
            int64_t now = 10000 + 333 * t;
            for (int step = 0; step < 300; ++step) {
                f.push(100 + t, uint64_t(now), "step");
                for (int op = 0; op < 4; ++op) {
                    now += 5;
                    f.push(100 + t, uint64_t(now), "op " + std::to_string(random() % 5));
                    const int64_t begin = now + 1000 + 2; // ns: 1000 ns after the clock's zero (Feed)
                    now += 40 + int64_t(random() % 60);
                    const int64_t end = now + 1000 - 2;
                    ++correlation;
                    if (random() % 8)
                        f.cudaApi(100 + t, begin + 1, end - 1, "cuLaunchKernel", spanscope::protocol::CudaApiKind::Driver,
                                  correlation);
                    f.cudaApi(100 + t, begin, end, "cudaLaunchKernel", spanscope::protocol::CudaApiKind::Runtime,
                              correlation);
                    for (int k = 0; k < int(random() % 3); ++k) // 0 to 2 kernels per launch
                        f.kernel(end + 300 + 40 * k, end + 320 + 40 * k + int64_t(random() % 15), 7 + t, correlation);
                    if (random() % 16 == 0)
                        f.kernel(end + 500, end + 510, 7 + t, 900000 + correlation); // launched by nothing seen
                    f.pop(100 + t, uint64_t(now));
                }
                now += 20;
                f.pop(100 + t, uint64_t(now));
                now += 100 + int64_t(random() % 50);
            }
        }
        const auto c = a.snapshot();
        QVERIFY(c->flows.size() > 1000);
        QVERIFY(!c->events.gpu.empty());
        QVERIFY(!c->nestingOrder.empty()); // read list by list
        QString difference = gpuTimeDifference(*c);
        QVERIFY2(difference.isEmpty(), qPrintable(difference));

        // Lists that miss a call (the first thread's first "step"): it is still done.
        Capture missing = *c;
        missing.nestingOrder.tracks.front().begin += 1;
        deriveLaunchGpuTime(missing);
        difference = gpuTimeDifference(missing);
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
    }

    // Rows whose calls do not come in start order (a file may hold them so): a call that
    // starts before the one before it on its track searches every launch again.
    void rowsOutOfStartOrderGetTheSameGpuTime()
    {
        std::mt19937 random(5);
        std::string text;
        auto line = [&](const char* region, int64_t start, int64_t end, int64_t thread) {
            text += std::string(region) + " 0 " + std::to_string(start) + " " + std::to_string(end) + " thread="
                    + std::to_string(thread) + "\n";
        };
        for (int i = 0; i < 400; ++i) {
            const int64_t start = int64_t(random() % 10000);
            line("outer", start, start + int64_t(random() % 300), int64_t(random() % 2));
        }
        for (int i = 0; i < 600; ++i) {
            const int64_t start = int64_t(random() % 10000);
            line("launch", start, start + 5, int64_t(random() % 2));
        }
        for (int i = 0; i < 600; ++i) {
            const int64_t start = int64_t(random() % 10000);
            line("kernel", start, start + int64_t(random() % 40), 5);
        }
        auto c = spanscope::testing::buildCapture(text);
        c->regionKinds = {RegionKind::Cpu, RegionKind::Cpu, RegionKind::Kernel};
        assignTracks(*c);
        QVERIFY(!c->events.track.empty());
        const RegionRow launches = c->rows[1];
        const RegionRow kernels = c->rows[2];
        for (uint64_t k = 0; k < kernels.count; ++k)
            if (random() % 4)
                c->flows.add(uint32_t(launches.offset + random() % launches.count), uint32_t(kernels.offset + k),
                             FlowKind::Launch);
        c->flows.finish();
        deriveLaunchGpuTime(*c);
        const QString difference = gpuTimeDifference(*c);
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
    }

    // What a damaged or hostile stream can say of CUDA calls: ends before starts, times at
    // the ends of int64, no correlation id, one id shared by many calls, kernels launched by
    // nothing, a thread's calls far out of order. The snapshot keeps every call, counts the
    // clamped ends, and its lists, where it keeps any, nest as the rows do.
    void hostileCudaCallsAreKeptAndTheListsStayTrue()
    {
        using spanscope::protocol::CudaApiKind;
        NvtxAssembler a;
        Feed f(a);
        f.push(100, 10, "step");
        f.cudaApi(100, 3000, 2000, "cudaLaunchKernel", CudaApiKind::Runtime, 5); // ends before it starts
        f.cudaApi(100, INT64_MIN, INT64_MAX, "cudaMalloc", CudaApiKind::Runtime, 6);
        f.cudaApi(100, 4000, 4100, "cudaLaunchKernel", CudaApiKind::Runtime, 0xFFFFFFFF);
        for (int i = 0; i < 5; ++i)
            f.cudaApi(100, 5000 + 10 * i, 5005 + 10 * i, "cudaLaunchKernel", CudaApiKind::Runtime, 7);
        f.cudaApi(100, 6000, 6010, "cudaLaunchKernel", CudaApiKind::Runtime, 0);
        f.kernel(7000, 7100, 1, 7);
        f.kernel(7200, 7100, 1, 5);           // ends before it starts
        f.kernel(INT64_MIN, INT64_MAX, 2, 0xFFFFFFFF);
        f.kernel(7300, 7400, 1, 0);           // launched by nothing
        f.kernel(7500, 7600, 1, 123456);      // by a call never seen
        f.pop(100, 9000);
        f.push(101, 10, "step");
        for (int i = 200; i > 0; --i) // far out of order: thread 101 is not listed
            f.cudaApi(101, 1000 + 20 * i, 1010 + 20 * i, "cudaMemcpy", CudaApiKind::Runtime);
        f.pop(101, 9000);
        a.finish();
        const auto c = a.snapshot();
        QCOMPARE(c->events.size(), size_t(2 + 9 + 200 + 5));
        QCOMPARE(a.counts().endsBeforeStart, uint64_t(2));
        QCOMPARE(c->nestingOrder.tracks.size(), size_t(2)); // thread 100's two lists
        Capture fromRows = *c, listed = *c;
        fromRows.nestingOrder = {};
        QVERIFY(computeNesting(fromRows));
        QVERIFY(computeNesting(listed));
        QVERIFY(listed.events.depth == fromRows.events.depth);
        QVERIFY(listed.rowExclusive == fromRows.rowExclusive);
        // GPU times are durations or -1, never wrapped; the listed step launched kernels.
        int64_t stepGpu = -1;
        for (const RegionRow& row : c->rows)
            for (uint64_t i = row.offset; i < row.offset + row.count; ++i) {
                QVERIFY(c->events.gpu[i] >= -1);
                if (c->regionName(row.region) == "step")
                    stepGpu = std::max(stepGpu, c->events.gpu[i]);
            }
        QVERIFY(stepGpu > 0);
    }

    // Many ids (consecutive and random, colliding in the table), offered in random order.
    void manyIdsAgreeWithAMap()
    {
        std::mt19937 random(11);
        struct Offer
        {
            uint32_t correlation, event;
            bool runtime;
        };
        std::vector<uint32_t> wanted;
        for (uint32_t i = 1; i <= 3000; ++i)
            wanted.push_back(i);
        for (int i = 0; i < 3000; ++i)
            wanted.push_back(uint32_t(random()) | 1u);
        LaunchTable table(wanted.size());
        for (const uint32_t id : wanted)
            table.want(id);
        std::vector<Offer> offers;
        for (uint32_t event = 0; event < 20000; ++event)
            offers.push_back({random() % 4 == 0 ? uint32_t(random()) : wanted[random() % wanted.size()], event,
                              random() % 2 == 0});
        std::map<uint32_t, Offer> expected; // by the rule, in event order
        for (const Offer& o : offers) {
            auto [it, added] = expected.emplace(o.correlation, o);
            if (!added && o.runtime)
                it->second = o;
        }
        std::shuffle(offers.begin(), offers.end(), random);
        for (const Offer& o : offers)
            table.offer(o.correlation, o.event, o.runtime);
        for (const uint32_t id : wanted) {
            const auto it = expected.find(id);
            QCOMPARE(table.find(id), it == expected.end() ? LaunchTable::kNone : it->second.event);
        }
    }
};

QTEST_GUILESS_MAIN(TestGpuLaunches)
#include "tst_gpu_launches.moc"
