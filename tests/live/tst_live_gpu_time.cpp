// The GPU time of CPU calls (model/gpu/launch_gpu_time.h) against a sum over every launch:
// for a live job, laid out afresh and from the last snapshot (counted again only where it
// changed, NvtxAssembler::addGpuTimes), with its rows' sums (Capture::rowGpuTimes) and the
// statistics read from them; and for rows not sorted by start.
#include "model/gpu/launch_gpu_time.h"
#include "model/live/nvtx_assembler.h"
#include "model/stats/capture_summary.h"
#include "model/track.h"
#include "support/capture_builder.h"
#include "support/gpu_time_checks.h"
#include "support/nvtx_feed.h"
#include "support/same_stats.h"

#include <QTest>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace spanscope::model;
using spanscope::model::live::NvtxAssembler;
using spanscope::model::live::NvtxAssemblerOptions;
using spanscope::testing::Feed;
using spanscope::testing::gpuTimeDifference;
using spanscope::testing::rowGpuTimesDifference;

class TestLiveGpuTime : public QObject
{
    Q_OBJECT

private slots:
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

    // A live job as the collector sends it: ranges on three threads, nested, launching
    // kernels (a runtime call with a driver call inside sharing its id); CUPTI's records come
    // a flush after the ranges (the collector flushes every 250 ms), some a flush later
    // still: runtime calls after their driver calls (the work's launch changes), kernels
    // after their launches (a closed range's GPU time grows), an id's second kernel. Each
    // snapshot, laid out from the last one, has every call's GPU time as the sum over its
    // launches, counted again only where it changed (not whole); a snapshot held meanwhile
    // keeps its own.
    void aLiveJobsGpuTimeGoesOnFromTheLastSnapshot()
    {
        using spanscope::protocol::CudaApiKind;
        std::mt19937 random(11);
        NvtxAssemblerOptions options;
        options.minimumCommittedCalls = 1; // every row's statistics from its durations
        NvtxAssembler a(options);
        Feed f(a);
        NvtxAssembler::LayoutMemo memo;
        std::vector<std::function<void()>> flush, later; // records for the next flush, and the one after
        uint32_t correlation = 0;
        int64_t now[3] = {1000, 1300, 1700}; // ticks (ns = ticks + 1000)
        std::shared_ptr<Capture> held;
        std::vector<int64_t> heldGpu;
        size_t rowsSummedLive = 0; // rows whose statistics came from their durations
        for (uint32_t t = 0; t < 3; ++t)
            f.push(100 + t, uint64_t(now[t]++), "outer"); // open for rounds
        constexpr int kRounds = 12;
        for (int round = 0; round < kRounds; ++round) {
            std::vector<std::function<void()>> next, afterNext;
            for (int step = 0; step < 30; ++step) {
                const uint32_t t = uint32_t(random() % 3), tid = 100 + t;
                f.push(tid, uint64_t(now[t]), "step");
                const bool inner = random() % 2 == 0;
                if (inner)
                    f.push(tid, uint64_t(now[t] += 2), "inner");
                for (int launch = int(random() % 3); launch > 0; --launch) {
                    const uint32_t id = ++correlation;
                    const int64_t ns = (now[t] += 10) + 1000;
                    next.push_back([&f, tid, ns, id] { f.cudaApi(tid, ns + 1, ns + 5, "cuLaunchKernel", CudaApiKind::Driver, id); });
                    (random() % 6 == 0 ? afterNext : next).push_back([&f, tid, ns, id] {
                        f.cudaApi(tid, ns, ns + 8, "cudaLaunchKernel", CudaApiKind::Runtime, id);
                    });
                    const int64_t gpu = 50'000'000 + int64_t(id) * 100;
                    const int64_t length = 20 + id % 7;
                    (random() % 5 == 0 ? afterNext : next).push_back([&f, gpu, length, t, id] {
                        f.kernel(gpu, gpu + length, 1 + t, id);
                    });
                    if (random() % 8 == 0)
                        afterNext.push_back([&f, gpu, t, id] { f.kernel(gpu + 50, gpu + 60, 1 + t, id); });
                }
                if (inner)
                    f.pop(tid, uint64_t(now[t] += 3));
                f.pop(tid, uint64_t(now[t] += 5));
                now[t] += 20 + int64_t(random() % 30);
            }
            if (round == kRounds / 2)
                for (uint32_t t = 0; t < 3; ++t) {
                    f.pop(100 + t, uint64_t(now[t]++)); // the outer ranges close
                    f.push(100 + t, uint64_t(now[t]++), "outer");
                }
            for (const auto& record : flush)
                record();
            flush = std::move(later);
            flush.insert(flush.end(), next.begin(), next.end());
            later = std::move(afterNext);

            const auto snapshot = a.snapshot(&memo);
            QVERIFY(!snapshot->nestingOrder.empty());
            const QString difference = gpuTimeDifference(*snapshot);
            QVERIFY2(difference.isEmpty(), qPrintable(QString("round %1: %2").arg(round).arg(difference)));
            // Each row's sum of it, kept as the column is, is its calls' sum; the statistics
            // read it instead of the column, to the same figures.
            const QString sums = rowGpuTimesDifference(*snapshot);
            QVERIFY2(sums.isEmpty(), qPrintable(QString("round %1: %2").arg(round).arg(sums)));
            Capture fromColumn = *snapshot;
            fromColumn.rowGpuTimes.clear();
            const QString statistics =
                spanscope::testing::summaryDifference(*summarizeCapture(*snapshot), *summarizeCapture(fromColumn));
            QVERIFY2(statistics.isEmpty(), qPrintable(QString("round %1: %2").arg(round).arg(statistics)));
            rowsSummedLive += size_t(std::count_if(snapshot->rowDurations.begin(), snapshot->rowDurations.end(),
                                                   [](const auto& durations) { return durations != nullptr; }));
            if (held)
                QVERIFY2(std::equal(heldGpu.begin(), heldGpu.end(), held->events.gpu.begin(), held->events.gpu.end()),
                         qPrintable(QString("round %1").arg(round)));
            if (round % 3 == 0) {
                held = snapshot;
                heldGpu.assign(snapshot->events.gpu.begin(), snapshot->events.gpu.end());
            } else if (round % 3 == 2) {
                held.reset();
            }
        }
        QVERIFY(correlation > 200);
        QVERIFY(rowsSummedLive > 20); // the statistics read the rows' sums
        // Counted whole where the layout or GPU tables were new (the first snapshots).
        QVERIFY2(memo.gpu.times.countedWhole <= 2, qPrintable(QString::number(memo.gpu.times.countedWhole)));
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
                c->flows.add(uint32_t(launches.firstEvent + random() % launches.count), uint32_t(kernels.firstEvent + k),
                             FlowKind::Launch);
        c->flows.finish();
        deriveLaunchGpuTime(*c);
        const QString difference = gpuTimeDifference(*c);
        QVERIFY2(difference.isEmpty(), qPrintable(difference));

        // Events that no row holds (a source's rows may leave some out) have no GPU time,
        // whatever the column held before.
        Capture partial = *c;
        partial.rows.pop_back(); // the kernels
        partial.events.gpu.assign(partial.events.size(), 1234);
        deriveLaunchGpuTime(partial);
        const QString partialDifference = gpuTimeDifference(partial);
        QVERIFY2(partialDifference.isEmpty(), qPrintable(partialDifference));
        for (uint64_t k = kernels.firstEvent; k < kernels.firstEvent + kernels.count; ++k)
            QCOMPARE(partial.events.gpu[k], int64_t(-1));
    }

    // Rows' GPU time sums at the ends of int64, kept from one update to the next: kernels of
    // half int64's range (two overflow it), launched from ranges whose runtime calls come a
    // flush after their driver calls (the launch changes, and the ranges' GPU time is
    // counted again: a huge value taken out of a saturated sum). Each snapshot's sums are
    // its calls' (saturating), and the sums went on from the last snapshot's.
    void rowGpuTimesStayExactAtTheEndsOfInt64()
    {
        using spanscope::protocol::CudaApiKind;
        NvtxAssembler a;
        Feed f(a);
        NvtxAssembler::LayoutMemo memo;
        constexpr int64_t kHuge = INT64_MAX / 2;
        std::vector<std::function<void()>> late; // the runtime calls, a round late
        int64_t now = 1000; // ticks (ns = ticks + 1000)
        uint32_t id = 0;
        bool saturated = false;
        for (int round = 0; round < 8; ++round) {
            std::vector<std::function<void()>> next;
            for (int step = 0; step < 4; ++step) {
                f.push(100, uint64_t(now), "step");
                const int64_t ns = (now += 10) + 1000;
                const uint32_t launch = ++id;
                f.cudaApi(100, ns + 1, ns + 5, "cuLaunchKernel", CudaApiKind::Driver, launch);
                next.push_back([&f, ns, launch] {
                    f.cudaApi(100, ns, ns + 8, "cudaLaunchKernel", CudaApiKind::Runtime, launch);
                });
                // Huge kernels on a stream of their own (they overlap each other there).
                const int64_t gpu = 50'000'000 + int64_t(launch) * 100;
                f.kernel(gpu, gpu + (step == 0 ? kHuge : 20), step == 0 ? 2 : 1, launch);
                f.pop(100, uint64_t(now += 20));
            }
            for (const auto& record : late)
                record();
            late = std::move(next);
            const auto snapshot = a.snapshot(&memo);
            const QString sums = rowGpuTimesDifference(*snapshot);
            QVERIFY2(sums.isEmpty(), qPrintable(QString("round %1: %2").arg(round).arg(sums)));
            for (size_t r = 0; r < snapshot->rows.size(); ++r)
                saturated = saturated || snapshot->rowGpuTimes[r].total == INT64_MAX;
        }
        QVERIFY(saturated); // a sum reached int64's end
        QVERIFY2(memo.gpu.times.countedWhole <= 2, qPrintable(QString::number(memo.gpu.times.countedWhole)));
    }
};

QTEST_GUILESS_MAIN(TestLiveGpuTime)
#include "tst_live_gpu_time.moc"
