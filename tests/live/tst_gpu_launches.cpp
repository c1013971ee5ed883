// GPU work and the calls that launched it: a recording made on a real GPU; LaunchTable
// (model/live/launch_table.h), which API call launched each piece of GPU work by
// correlation id, against a plain map doing the same by the rule as written; a live job's
// activity and flow tables, and hostile CUDA calls. The GPU time of CPU calls over live
// updates: tst_live_gpu_time.
#include "model/capture_loader.h"
#include "model/gpu/launch_gpu_time.h"
#include "model/live/launch_table.h"
#include "model/live/nvtx_assembler.h"
#include "model/stats/nesting.h"
#include "model/track.h"
#include "support/capture_builder.h"
#include "support/counter_checks.h"
#include "support/gpu_time_checks.h"
#include "support/nvtx_feed.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace spanscope::model;
using spanscope::model::live::LaunchTable;
using spanscope::model::live::NvtxAssembler;
using spanscope::testing::checkLanesAsMadeWhole;
using spanscope::testing::checkSameCounters;
using spanscope::testing::Feed;
using spanscope::testing::gpuTimeDifference;
using spanscope::testing::rowGpuTimesDifference;

namespace {

// What a live job's GPU records said, by their start (each record here starts at a time of
// its own), and the start of the runtime call that launched each correlation id.
struct RecordedGpuWork
{
    struct Work
    {
        char kind; // 'k'ernel, 'c'opy, 'm'emset, 's'ync
        uint32_t correlation;
        int32_t grid, block; // kernels
        uint64_t bytes; // copies and memsets
        uint32_t stream = 0;
    };
    std::map<int64_t, Work> byStart;
    std::map<uint32_t, int64_t> launchStart; // correlation -> its runtime call's start
};

// Empty when the capture's activity table holds exactly the kernels, copies and memsets
// recorded (syncs not), in event order, each with its record's correlation, shape or bytes,
// on its stream's track, and a Launch flow from its runtime call (an event a row holds)
// where one was recorded; else the first difference.
QString activityDifference(const Capture& c, const RecordedGpuWork& recorded)
{
    const auto& table = c.gpuActivities;
    const auto& e = c.events;
    size_t activities = 0, launched = 0;
    for (const auto& [start, work] : recorded.byStart) {
        activities += work.kind != 's';
        launched += work.kind != 's' && recorded.launchStart.count(work.correlation);
    }
    if (table.size() != activities)
        return QString("%1 activities, %2 recorded").arg(table.size()).arg(activities);
    for (size_t row = 0; row < table.size(); ++row) {
        const uint32_t event = table.event(row);
        if (event >= e.size())
            return QString("row %1: event %2 of %3").arg(row).arg(event).arg(e.size());
        if (row > 0 && table.event(row - 1) >= event)
            return QString("row %1 out of event order").arg(row);
        if (table.rowOf(event) != int64_t(row))
            return QString("rowOf(%1) is not %2").arg(event).arg(row);
        const auto it = recorded.byStart.find(e.start[event]);
        if (it == recorded.byStart.end() || it->second.kind == 's')
            return QString("row %1 (event %2, start %3) was not recorded as work").arg(row).arg(event).arg(e.start[event]);
        const RecordedGpuWork::Work& work = it->second;
        if (table.correlation(row) != work.correlation)
            return QString("row %1: correlation %2, recorded %3").arg(row).arg(table.correlation(row)).arg(work.correlation);
        const auto shape = table.kernelShape(row);
        const auto bytes = table.copyBytes(row);
        const bool same = work.kind == 'k'   ? shape && !bytes && int32_t(shape->grid[0]) == work.grid && int32_t(shape->block[0]) == work.block
                          : work.kind == 'c' ? !shape && bytes && *bytes == work.bytes
                                                   && table.copyKind(row) == CopyKind::DeviceToHost
                                             : !shape && !bytes;
        if (!same)
            return QString("row %1 (%2 at %3): its shape or bytes are not the record's").arg(row).arg(work.kind).arg(it->first);
        const Track& track = c.tracks.at(e.track[event]);
        if (track.kind != TrackKind::GpuStream || track.stream != int64_t(work.stream) || track.sortKey != 0)
            return QString("row %1 (%2 at %3) is not on stream %4's track").arg(row).arg(work.kind).arg(it->first).arg(work.stream);
    }
    std::vector<bool> held(e.size(), false); // events some row holds
    for (const RegionRow& row : c.rows)
        for (const uint64_t event : c.rowEvents(row))
            held[event] = true;
    size_t flows = 0;
    for (size_t f = 0; f < c.flows.size(); ++f) {
        if (c.flows.kind(f) != FlowKind::Launch)
            continue;
        ++flows;
        if (c.flows.from(f) >= e.size() || !held[c.flows.from(f)] || table.rowOf(c.flows.to(f)) < 0)
            return QString("flow %1 goes from an event no row holds or to no activity").arg(f);
        const auto work = recorded.byStart.find(e.start[c.flows.to(f)]);
        const auto launch = work == recorded.byStart.end() ? recorded.launchStart.end()
                                                           : recorded.launchStart.find(work->second.correlation);
        if (launch == recorded.launchStart.end() || e.start[c.flows.from(f)] != launch->second)
            return QString("flow %1 does not come from the runtime call of its work's id").arg(f);
    }
    if (flows != launched)
        return QString("%1 launch flows, %2 launched work recorded").arg(flows).arg(launched);
    return {};
}

// Empty when `c`'s flow table, updated from snapshot to snapshot, holds its rows as one
// made afresh from them would (sorted, followed both ways), and its flows by the start of
// each end are those made afresh; else the first difference.
QString updatedFlowsDifference(const Capture& c)
{
    FlowTable afresh;
    for (size_t f = 0; f < c.flows.size(); ++f)
        afresh.add(c.flows.from(f), c.flows.to(f), c.flows.kind(f));
    afresh.finish();
    std::set<uint32_t> ends;
    for (size_t f = 0; f < c.flows.size(); ++f) {
        if (c.flows.from(f) != afresh.from(f) || c.flows.to(f) != afresh.to(f) || c.flows.kind(f) != afresh.kind(f))
            return QString("flow row %1 is not where sorting puts it").arg(f);
        ends.insert(c.flows.from(f));
        ends.insert(c.flows.to(f));
    }
    for (const uint32_t event : ends)
        if (c.flows.incoming(event) != afresh.incoming(event) || c.flows.outgoing(event) != afresh.outgoing(event))
            return QString("the flows of event %1 are not those of the sorted table").arg(event);
    const FlowTimes times = FlowTimes::make(c.flows, [&](uint32_t e) { return c.events.start[e]; });
    if (c.flowTimes.byFrom().values() != times.byFrom().values() || c.flowTimes.byTo().values() != times.byTo().values())
        return "the flows by the start of their ends are not those made afresh";
    return {};
}

} // namespace

class TestGpuLaunches : public QObject
{
    Q_OBJECT

private slots:
    // scripts/gpu-check.sh's workload recorded under the collector on an H200 (CUDA 13,
    // driver 580; tests/data/gpu-check/): each NVTX range gets the GPU time the workload
    // measured with cudaEvents around its work, within 5 % (the GPU's gaps between
    // operations), the CUDA calls sit on the ranges' thread, and each of 200 ranges around
    // one launch gets its kernel.
    void aRecordingFromARealGpuGivesEachRangeItsWork()
    {
        const QString dir = SPANSCOPE_TEST_DATA "/gpu-check/h200-cuda13/";
        QFile json(dir + "gpu-workload.json");
        QVERIFY(json.open(QIODevice::ReadOnly));
        const QJsonObject expected = QJsonDocument::fromJson(json.readAll()).object();
        auto loaded = loadCapture((dir + "gpu-workload.sps").toStdString());
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        const Capture& c = *loaded.value().capture;
        QVERIFY(c.warnings.empty());
        QVERIFY(c.events.hasGpu());
        auto eventsOf = [&c](const QString& region) {
            std::vector<std::pair<uint32_t, uint64_t>> out; // (row, event)
            for (uint32_t row = 0; row < c.rows.size(); ++row)
                if (QString::fromStdString(c.regionName(c.rows[row].region)) == region)
                    for (const uint64_t e : c.rowEvents(row))
                        out.push_back({row, e});
            return out;
        };
        std::set<int64_t> rangeThreads;
        int checked = 0;
        for (const QJsonValue& value : expected["ranges"].toArray()) {
            const QJsonObject range = value.toObject();
            const QString name = range["name"].toString();
            const auto events = eventsOf(name);
            QCOMPARE(int64_t(events.size()), range["calls"].toInteger());
            int64_t gpu = 0;
            for (const auto& [row, e] : events) {
                rangeThreads.insert(c.threadOfEvent(row, e));
                if (range["gpu_work"].toBool())
                    QVERIFY2(c.events.gpu[e] > 0, qPrintable(name + ": a call without GPU time"));
                gpu += std::max<int64_t>(c.events.gpu[e], 0);
            }
            const double measured = range["gpu_ns"].toDouble();
            if (!range["gpu_work"].toBool()) {
                QCOMPARE(gpu, int64_t(0));
                continue;
            }
            QVERIFY2(std::abs(double(gpu) - measured) <= 0.05 * measured,
                     qPrintable(QString("%1: %2 ns, the workload measured %3").arg(name).arg(gpu).arg(measured)));
            ++checked;
        }
        QVERIFY(checked >= 8);
        QCOMPARE(rangeThreads.size(), size_t(1));
        const auto launches = eventsOf("cudaLaunchKernel");
        QVERIFY(!launches.empty());
        for (const auto& [row, e] : launches)
            QCOMPARE(c.threadOfEvent(row, e), *rangeThreads.begin());
    }

    void aRuntimeCallWinsOverADriverCallSharingItsId()
    {
        LaunchTable table;
        QVERIFY(table.empty());
        table.offer(7, 40, false); // driver calls: the first offered
        table.offer(7, 30, false);
        QCOMPARE(table.find(7), 40u);
        table.offer(7, 50, true); // a runtime call: the first offered
        table.offer(7, 45, true);
        table.offer(7, 10, false);
        QCOMPARE(table.find(7), 50u);
        table.offer(0, 3, true); // CUPTI's "no correlation"
        QCOMPARE(table.find(0), LaunchTable::kNone);
        QCOMPARE(table.find(8), LaunchTable::kNone);
        QCOMPARE(table.size(), size_t(1));
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
        // Thread 100's two lists, and the work of streams 1 and 2 (a list each).
        QCOMPARE(c->nestingOrder.tracks.size(), size_t(4));
        Capture fromRows = *c, listed = *c;
        fromRows.nestingOrder = {};
        QVERIFY(computeNesting(fromRows));
        QVERIFY(computeNesting(listed));
        QVERIFY(listed.events.depth == fromRows.events.depth);
        QVERIFY(listed.rowExclusive == fromRows.rowExclusive);
        // GPU times are durations or -1, never wrapped; the listed step launched kernels.
        int64_t stepGpu = -1;
        for (const RegionRow& row : c->rows)
            for (uint64_t i = row.firstEvent; i < row.firstEvent + row.count; ++i) {
                QVERIFY(c->events.gpu[i] >= -1);
                if (c->regionName(row.region) == "step")
                    stepGpu = std::max(stepGpu, c->events.gpu[i]);
            }
        QVERIFY(stepGpu > 0);
        const QString sums = rowGpuTimesDifference(*c); // each row's sum saturates
        QVERIFY2(sums.isEmpty(), qPrintable(sums));
        // The lanes hold times at the ends of int64 as the whole walk does: a utilization and
        // two streams' queues (stream 2's work is launched by the call carrying its id).
        QCOMPARE(checkLanesAsMadeWhole(*c), size_t(3));
    }

    // A live job's kernels (five names, a few shapes and some of their own), copies,
    // memsets and syncs on three streams, reported out of order in blocks as CUPTI flushes
    // them, some work and some API calls a round late: every snapshot's activity table
    // holds each piece of work shown with what its record said, in event order, and its
    // launch flow from the runtime call of its id (the driver call's until the runtime call
    // comes, none until either does), laid out afresh or from the last snapshot's layout
    // (whose tables it updates: work taken along to new events, launches that changed).
    void gpuActivitiesAreWhatWasRecorded()
    {
        using spanscope::protocol::CudaApiKind;
        std::mt19937 random(5);
        NvtxAssembler a;
        Feed f(a);
        RecordedGpuWork recorded;
        NvtxAssembler::LayoutMemo memo;
        uint32_t correlation = 0;
        int64_t t = 1000;
        std::vector<std::function<void()>> late; // records held back a round
        std::shared_ptr<Capture> held;
        std::vector<int64_t> heldGpu;
        for (int round = 0; round < 5; ++round) {
            for (const auto& record : late)
                record();
            late.clear();
            std::vector<std::function<void()>> gpu; // the round's GPU records, fed at its end
            for (int step = 0; step < 40; ++step) {
                const uint32_t tid = 100 + uint32_t(step % 3);
                f.push(tid, t, "step");
                for (int call = 0; call < 4; ++call) {
                    const int64_t start = t + 10 + 100 * call;
                    const uint32_t id = ++correlation;
                    if (round % 2 == 0 && round < 4 && random() % 12 == 0) {
                        // Both calls come in the next round, after the work: until then it
                        // has no launch.
                        late.push_back([&f, &recorded, tid, start, id] {
                            f.cudaApi(tid, start + 1, start + 5, "cuLaunchKernel", CudaApiKind::Driver, id);
                            f.cudaApi(tid, start, start + 8, "cudaLaunchKernel", CudaApiKind::Runtime, id);
                            recorded.launchStart[id] = start;
                        });
                    } else if (f.cudaApi(tid, start + 1, start + 5, "cuLaunchKernel", CudaApiKind::Driver, id);
                               round % 2 == 0 && round < 4 && random() % 8 == 0) {
                        // Its runtime call comes in the next round: until then the work is
                        // the driver call's.
                        recorded.launchStart[id] = start + 1;
                        late.push_back([&f, &recorded, tid, start, id] {
                            f.cudaApi(tid, start, start + 8, "cudaLaunchKernel", CudaApiKind::Runtime, id);
                            recorded.launchStart[id] = start;
                        });
                    } else {
                        f.cudaApi(tid, start, start + 8, "cudaLaunchKernel", CudaApiKind::Runtime, id);
                        recorded.launchStart[id] = start;
                    }
                    const int64_t at = 10'000'000 + int64_t(id) * 1000; // a start of its own
                    const auto stream = uint32_t(1 + random() % 3);
                    switch (random() % 5) {
                    case 0: case 1: {
                        // A few shapes alike in all but one field, and some of their own.
                        const int32_t grid = random() % 4 == 0 ? int32_t(1000 + id) : int32_t(1 + random() % 3);
                        const auto block = int32_t(32 << (random() % 3));
                        const std::string name = "k" + std::to_string(random() % 5);
                        gpu.push_back([&f, &recorded, at, stream, id, name, grid, block] {
                            recorded.byStart[at] = {'k', id, grid, block, 0, stream};
                            f.kernel(at, at + 500, stream, id, name, grid, block);
                        });
                        break;
                    }
                    case 2: {
                        const uint64_t bytes = 1 + random() % 100000;
                        gpu.push_back([&f, &recorded, at, stream, id, bytes] {
                            recorded.byStart[at] = {'c', id, 0, 0, bytes, stream};
                            f.copy(at, at + 300, stream, id, bytes);
                        });
                        break;
                    }
                    case 3: {
                        const uint64_t bytes = 1 + random() % 100000;
                        gpu.push_back([&f, &recorded, at, stream, id, bytes] {
                            recorded.byStart[at] = {'m', id, 0, 0, bytes, stream};
                            f.memset(at, at + 200, stream, id, bytes);
                        });
                        break;
                    }
                    default:
                        gpu.push_back([&f, &recorded, at, stream, id] {
                            recorded.byStart[at] = {'s', id, 0, 0, 0};
                            f.sync(at, at + 100, stream, id);
                        });
                        break;
                    }
                }
                f.pop(tid, t + 500);
                t += 1000;
            }
            // Work launched by nothing the job recorded.
            const int64_t orphan = 10'000'000 + int64_t(correlation + 1'000'000) * 1000 + round;
            gpu.push_back([&f, &recorded, orphan] {
                recorded.byStart[orphan] = {'k', 0, 2, 1, 0, 2};
                f.kernel(orphan, orphan + 10, 2, 0, "k0", 2);
            });
            for (size_t block = 0; block < gpu.size(); block += 16) // each block in reverse
                std::reverse(gpu.begin() + std::ptrdiff_t(block), gpu.begin() + std::ptrdiff_t(std::min(gpu.size(), block + 16)));
            // Some work comes a round late, starting before work already shown in its row:
            // that work is taken along, to new events (API calls come late only in even
            // rounds: in the odd rounds' snapshots work moves while its launches stay).
            std::vector<std::function<void()>> now;
            for (auto& record : gpu)
                (round < 4 && random() % 6 == 0 ? late : now).push_back(std::move(record));
            for (const auto& record : now)
                record();
            const auto snapshot = a.snapshot(&memo);
            const QString kept = activityDifference(*snapshot, recorded);
            QVERIFY2(kept.isEmpty(), qPrintable(QString("round %1, from the last layout: %2").arg(round).arg(kept)));
            const QString gpuTime = gpuTimeDifference(*snapshot);
            QVERIFY2(gpuTime.isEmpty(), qPrintable(QString("round %1, from the last snapshot: %2").arg(round).arg(gpuTime)));
            // The GPU column of a snapshot a view still holds stays as it was.
            if (held)
                QVERIFY2(std::equal(heldGpu.begin(), heldGpu.end(), held->events.gpu.begin(), held->events.gpu.end()),
                         qPrintable(QString("round %1").arg(round)));
            if (round % 2 == 0) {
                held = snapshot;
                heldGpu.assign(snapshot->events.gpu.begin(), snapshot->events.gpu.end());
            }
            const QString flows = updatedFlowsDifference(*snapshot);
            QVERIFY2(flows.isEmpty(), qPrintable(QString("round %1: %2").arg(round).arg(flows)));
            const auto fresh = a.snapshot();
            const QString afresh = activityDifference(*fresh, recorded);
            QVERIFY2(afresh.isEmpty(), qPrintable(QString("round %1, afresh: %2").arg(round).arg(afresh)));
            // The derived lanes (utilization, three streams' queues), made as the work came,
            // late launches and relaunches included, are those made whole.
            QCOMPARE(checkLanesAsMadeWhole(*snapshot), size_t(4));
            checkSameCounters(*snapshot, *fresh);
            if (QTest::currentTestFailed())
                return;
        }
    }

    // More distinct kernel shapes than the assembler keeps once each: every kernel still
    // has its own, those kept once and those past the limit alike.
    void kernelsPastTheSharedShapesKeepTheirOwn()
    {
        NvtxAssembler a;
        Feed f(a);
        RecordedGpuWork recorded;
        const auto distinct = int32_t(NvtxAssembler::kMaxInternedShapes + 500);
        for (int32_t i = 0; i < distinct + 1000; ++i) {
            const int32_t grid = i < distinct ? i + 1 : 1 + (i * 7919) % distinct; // then repeats
            const int64_t at = 1000 + int64_t(i) * 10;
            recorded.byStart[at] = {'k', 0, grid, 1, 0, 1};
            f.kernel(at, at + 5, 1, 0, "k", grid);
        }
        a.finish();
        const QString difference = activityDifference(*a.snapshot(), recorded);
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
    }

    // Many ids (consecutive and random, colliding in the table), offered over and over as the
    // table grows, some far apart by a multiple of its size: every one found by the rule.
    void manyIdsAgreeWithAMap()
    {
        std::mt19937 random(11);
        std::vector<uint32_t> ids;
        for (uint32_t i = 1; i <= 30000; ++i)
            ids.push_back(i);
        for (int i = 0; i < 3000; ++i)
            ids.push_back(uint32_t(random()) | 1u);
        for (uint32_t i = 1; i <= 100; ++i)
            ids.push_back(i << 20); // the same slot in tables of up to 2^20 slots
        LaunchTable table;
        std::map<uint32_t, std::pair<uint32_t, bool>> expected; // id -> (call, runtime), by the rule
        for (uint32_t call = 0; call < 100000; ++call) {
            const uint32_t id = ids[random() % ids.size()];
            const bool runtime = random() % 2 == 0;
            table.offer(id, call, runtime);
            auto [it, added] = expected.emplace(id, std::pair(call, runtime));
            if (!added && runtime && !it->second.second)
                it->second = {call, true};
            if (call % 9973 == 0 || call + 1 == 100000) { // the table as it grows
                QCOMPARE(table.size(), expected.size());
                for (const uint32_t probe : ids) {
                    const auto found = expected.find(probe);
                    QCOMPARE(table.find(probe), found == expected.end() ? LaunchTable::kNone : found->second.first);
                }
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestGpuLaunches)
#include "tst_gpu_launches.moc"
