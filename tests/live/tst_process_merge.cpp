// model::live::mergeProcesses on hand-built process captures: every process becomes a rank;
// regions, NVTX domains (whose ids differ per process) and categories are merged by name,
// event indices in marks and closed-at-end lists move with their events, metadata counts
// add up and every warning names its process.
#include "model/live/process_merge.h"
#include "model/stats/capture_summary.h"
#include "model/stats/row_durations.h"
#include "support/same_stats.h"
#include "support/capture_builder.h"

#include <QTest>

using namespace spanscope;
using namespace spanscope::model;

namespace {

MetadataValue integer(int64_t value)
{
    MetadataValue v;
    v.kind = MetadataValue::Kind::Integer;
    v.integer = value;
    return v;
}

// Process A: domains default(0), "a"(1), "shared"(2); calls: step (domain 2), io (domain 1).
std::shared_ptr<Capture> processA()
{
    auto c = testing::buildCapture(R"(
step 0 100 200 thread=0
io 0 120 150 thread=0
)");
    c->threads = {ThreadInfo{0, 0, 11, 11, false, c->strings.intern("main")}};
    c->nvtx.domains = {{0, c->strings.intern("default")},
                       {1, c->strings.intern("a")},
                       {2, c->strings.intern("shared")}};
    c->nvtx.categories = {{2, 5, c->strings.intern("compute")}};
    c->nvtx.callDomains = {2, 1};
    c->nvtx.callCategories = {5, 0};
    c->nvtx.marks = {{130, 0, 2, 0, c->strings.intern("mark-a"), 1, 0}};
    c->nvtx.closedAtEnd = {0};
    c->metadata = {{"pid", integer(11)}, {"dropped_records", integer(3)}};
    c->warnings = {{"1 ranges were still open", {}}};
    return c;
}

// Process B: domains default(0), "shared"(1), "b"(2); calls: io (domain 2), step (domain 1).
std::shared_ptr<Capture> processB()
{
    auto c = testing::buildCapture(R"(
io 0 300 310 thread=0
step 0 290 400 thread=0
)");
    c->threads = {ThreadInfo{0, 0, 22, 22, false, c->strings.intern("worker")}};
    c->nvtx.domains = {{0, c->strings.intern("default")},
                       {1, c->strings.intern("shared")},
                       {2, c->strings.intern("b")}};
    c->nvtx.categories = {{1, 5, c->strings.intern("compute")}, {2, 1, c->strings.intern("disk")}};
    c->nvtx.callDomains = {2, 1};
    c->nvtx.callCategories = {1, 5};
    c->nvtx.marks = {{305, 0, 1, 5, c->strings.intern("mark-b"), 0, 0}};
    c->nvtx.closedAtEnd = {1};
    c->metadata = {{"pid", integer(22)}, {"dropped_records", integer(4)}};
    return c;
}

// `c` with each row's durations, as a live snapshot has them (stats/row_durations.h).
std::shared_ptr<Capture> withDurations(std::shared_ptr<Capture> c)
{
    for (const RegionRow& row : c->rows) {
        std::vector<std::pair<int64_t, int64_t>> calls;
        for (uint64_t i = row.firstEvent; i < row.firstEvent + row.count; ++i)
            calls.emplace_back(c->events.start[i], c->events.end[i]);
        c->rowDurations.push_back(RowDurations::of(CommittedCalls().with(calls), {}));
    }
    return c;
}

uint32_t domainNamed(const Capture& c, const std::string& name)
{
    for (const auto& d : c.nvtx.domains)
        if (c.strings.text(d.name) == name)
            return d.id;
    return UINT32_MAX;
}

uint32_t regionNamed(const Capture& c, const std::string& name)
{
    for (uint32_t r = 0; r < c.regionNames.size(); ++r)
        if (c.regionName(r) == name)
            return r;
    return UINT32_MAX;
}

// What a live process with allocations has: its tracks, allocations counted in one region
// on its thread, a large allocation there, and the heap counter.
void addAllocations(Capture& c, const std::string& region, int64_t time, uint64_t count)
{
    assignTracks(c);
    CountedAllocations row;
    row.track = threadTrack(c, 0, 0);
    row.region = regionNamed(c, region);
    row.allocations = count;
    row.binAllocations[4] = count;
    c.countedAllocations.push_back(row);
    c.allocations.add(time, row.track, 0x10, 4096, AllocationTable::kHost);
    c.allocations.finish();
    CounterSeries heap;
    heap.track = counterTrack(c, 0, AllocationTable::kHost, "host allocated");
    heap.unit = c.strings.intern("bytes");
    heap.add(time, double(count));
    heap.finish();
    c.counters.push_back(std::move(heap));
}

} // namespace

class TestProcessMerge : public QObject
{
    Q_OBJECT

private slots:
    void processesBecomeRanks()
    {
        const auto a = processA(), b = processB();
        const auto merged = live::mergeProcesses({{11, a}, {22, b}});
        const Capture& c = *merged;
        QCOMPARE(c.ranks, std::vector<int32_t>({0, 1}));
        QCOMPARE(c.numRanks, 2);
        QCOMPARE(c.events.size(), size_t(4));
        QCOMPARE(c.regionNames.size(), size_t(2)); // step and io, once each
        // Rows keep their calls; B's rows point past A's events.
        for (const auto& row : c.rows) {
            const std::string name = c.regionName(row.region);
            const int64_t start = c.events.start[row.firstEvent];
            if (row.rank == 0)
                QCOMPARE(start, name == "step" ? int64_t(100) : int64_t(120));
            else
                QCOMPARE(start, name == "step" ? int64_t(290) : int64_t(300));
        }
        QCOMPARE(c.threads.size(), size_t(2));
        QCOMPARE(c.threads[1].rank, 1);
        QCOMPARE(c.strings.text(c.threads[1].name), std::string("worker"));
    }

    void domainsAndCategoriesMergeByName()
    {
        const auto merged = live::mergeProcesses({{11, processA()}, {22, processB()}});
        const Capture& c = *merged;
        const uint32_t shared = domainNamed(c, "shared");
        const uint32_t onlyA = domainNamed(c, "a");
        const uint32_t onlyB = domainNamed(c, "b");
        QCOMPARE(domainNamed(c, "default"), 0u);
        QCOMPARE(c.nvtx.domains.size(), size_t(4));
        QVERIFY(shared != onlyA && shared != onlyB && onlyA != onlyB);
        // Events 0-1 are A's (step, io), 2-3 B's (io, step), whatever ids each process used.
        QCOMPARE(c.nvtx.callDomains, model::EventColumn<uint32_t>({shared, onlyA, onlyB, shared}));
        QCOMPARE(c.nvtx.callCategories, model::EventColumn<uint32_t>({5, 0, 1, 5}));
        // "compute" is category 5 of "shared" in both: listed once.
        int compute = 0;
        for (const auto& cat : c.nvtx.categories)
            compute += cat.domain == shared && cat.category == 5 ? 1 : 0;
        QCOMPARE(compute, 1);
        QCOMPARE(c.nvtx.categories.size(), size_t(2));
    }

    void eventIndicesMoveWithTheirEvents()
    {
        const auto merged = live::mergeProcesses({{11, processA()}, {22, processB()}});
        const Capture& c = *merged;
        QCOMPARE(c.nvtx.closedAtEnd, std::vector<uint64_t>({0, 3}));
        QCOMPARE(c.nvtx.marks.size(), size_t(2));
        const NvtxMark& b = c.nvtx.marks[1]; // sorted by time: A's at 130, B's at 305
        QCOMPARE(c.strings.text(b.message), std::string("mark-b"));
        QCOMPARE(b.rank, 1);
        QCOMPARE(b.enclosingEvent, int64_t(2)); // B's event 0
        QCOMPARE(b.domain, domainNamed(c, "shared"));
        QCOMPARE(c.nvtx.marks[0].enclosingEvent, int64_t(1));
    }

    void metadataAndWarnings()
    {
        const auto merged = live::mergeProcesses({{11, processA()}, {22, processB()}});
        const Capture& c = *merged;
        const MetadataValue* pids = findMetadata(c.metadata, "pids");
        QVERIFY(pids);
        QCOMPARE(pids->list, std::vector<std::string>({"11", "22"}));
        QCOMPARE(findMetadata(c.metadata, "processes")->integer, int64_t(2));
        QCOMPARE(findMetadata(c.metadata, "dropped_records")->integer, int64_t(7));
        QVERIFY(!findMetadata(c.metadata, "pid"));
        QCOMPARE(c.warnings.size(), size_t(1));
        QCOMPARE(c.warnings[0].message,
                 std::string("process 11 (rank 0): 1 ranges were still open"));
    }

    void aProcessThatRecordedNothingIsNamed()
    {
        auto empty = std::make_shared<Capture>();
        empty->schema = 3;
        const auto merged = live::mergeProcesses({{11, processA()}, {33, empty}});
        QCOMPARE(merged->ranks, std::vector<int32_t>({0, 1}));
        QCOMPARE(merged->warnings.size(), size_t(2));
        QCOMPARE(merged->warnings[1].message,
                 std::string("process 33 (rank 1): recorded no range and no mark"));
    }

    // Each process's tracks, and what sits on them, stay that process's: its counted
    // allocations keep their region (by name) and thread, its allocations and counter their
    // rank; every call keeps a track of its own rank.
    void tracksAndAllocationsMoveWithTheirProcess()
    {
        auto a = processA(), b = processB();
        addAllocations(*a, "io", 150, 2);
        addAllocations(*b, "step", 305, 5);
        const auto merged = live::mergeProcesses({{11, a}, {22, b}});
        QCOMPARE(merged->tracks.size(), a->tracks.size() + b->tracks.size());
        QCOMPARE(merged->events.track.size(), merged->events.size());
        for (const RegionRow& row : merged->rows)
            for (uint64_t e = row.firstEvent; e < row.firstEvent + row.count; ++e)
                QCOMPARE(merged->track(merged->trackOfEvent(0, e)).rank, row.rank);
        QCOMPARE(merged->countedAllocations.size(), size_t(2));
        for (const CountedAllocations& row : merged->countedAllocations) {
            const Track& track = merged->track(row.track);
            QCOMPARE(track.kind, TrackKind::Thread);
            QCOMPARE(merged->regionName(uint32_t(row.region)), std::string(track.rank == 0 ? "io" : "step"));
            QCOMPARE(row.allocations, uint64_t(track.rank == 0 ? 2 : 5));
        }
        QCOMPARE(merged->allocations.size(), size_t(2));
        QCOMPARE(merged->track(merged->allocations.track(1)).rank, 1);
        QCOMPARE(merged->allocations.time(1), int64_t(305));
        QCOMPARE(merged->counters.size(), size_t(2));
        QCOMPARE(merged->track(merged->counters[1].track).rank, 1);
        QCOMPARE(merged->strings.text(merged->counters[1].unit), std::string("bytes"));
        // A process assembled without tracks next to one with them gets its own.
        const auto mixed = live::mergeProcesses({{11, a}, {22, processB()}});
        QCOMPARE(mixed->events.track.size(), mixed->events.size());
        QCOMPARE(mixed->track(TrackId{mixed->events.track.back()}).rank, 1);
    }

    // A live process's rows come with their durations (stats/row_durations.h): each moves
    // with its row, and the merged capture's statistics are those of its calls. Where one
    // process has none, the merge has none.
    void rowDurationsMoveWithTheirRows()
    {
        const auto a = withDurations(processA()), b = withDurations(processB());
        const auto merged = live::mergeProcesses({{11, a}, {22, b}});
        QCOMPARE(merged->rowDurations.size(), merged->rows.size());
        for (size_t r = 0; r < merged->rows.size(); ++r) {
            const Capture& from = merged->rows[r].rank == 0 ? *a : *b;
            const uint64_t offset = merged->rows[r].firstEvent - (merged->rows[r].rank == 0 ? 0 : a->events.size());
            const auto it = std::find_if(from.rows.begin(), from.rows.end(),
                                         [&](const RegionRow& row) { return row.firstEvent == offset; });
            QVERIFY(it != from.rows.end());
            QCOMPARE(merged->rowDurations[r], from.rowDurations[size_t(it - from.rows.begin())]);
        }
        Capture plain = *merged;
        plain.rowDurations.clear();
        const QString difference = testing::summaryDifference(*summarizeCapture(*merged), *summarizeCapture(plain));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));

        QVERIFY(live::mergeProcesses({{11, a}, {22, processB()}})->rowDurations.empty());
    }

    // So do their GPU times' sums (Capture::rowGpuTimes): a process without GPU times adds
    // rows with none; where a process with GPU times has no sums, the merge has none.
    void rowGpuTimesMoveWithTheirRows()
    {
        auto withGpuTimes = [](std::shared_ptr<Capture> c, bool summed) {
            c->events.gpu.resize(c->events.size());
            for (size_t i = 0; i < c->events.size(); ++i)
                c->events.gpu.set(i, i % 3 == 0 ? -1 : int64_t(10 * i + 7));
            for (const RegionRow& row : c->rows) {
                RowGpuTime sum;
                for (uint64_t i = row.firstEvent; i < row.firstEvent + row.count; ++i)
                    if (c->events.end[i] >= c->events.start[i] && c->events.gpu[i] >= 0)
                        ++sum.calls, sum.total += c->events.gpu[i];
                if (summed)
                    c->rowGpuTimes.push_back(sum);
            }
            return c;
        };
        const auto a = withGpuTimes(withDurations(processA()), true), b = withDurations(processB());
        const auto merged = live::mergeProcesses({{11, a}, {22, b}});
        QCOMPARE(merged->rowGpuTimes.size(), merged->rows.size());
        uint64_t gpuCalls = 0;
        for (size_t r = 0; r < merged->rows.size(); ++r)
            if (merged->rows[r].rank == 1)
                QCOMPARE(merged->rowGpuTimes[r].calls, uint64_t(0));
            else
                gpuCalls += merged->rowGpuTimes[r].calls;
        QVERIFY(gpuCalls > 0);
        Capture plain = *merged;
        plain.rowGpuTimes.clear();
        const QString difference = testing::summaryDifference(*summarizeCapture(*merged), *summarizeCapture(plain));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));

        const auto unsummed = withGpuTimes(withDurations(processB()), false);
        QVERIFY(live::mergeProcesses({{11, a}, {22, unsummed}})->rowGpuTimes.empty());
        QVERIFY(live::mergeProcesses({{11, withDurations(processA())}, {22, b}})->rowGpuTimes.empty());
    }

    void oneProcessIsUnchanged()
    {
        const auto a = processA();
        const auto merged = live::mergeProcesses({{11, a}});
        QCOMPARE(merged->events.size(), a->events.size());
        QCOMPARE(merged->nvtx.callDomains, a->nvtx.callDomains);
        QCOMPARE(findMetadata(merged->metadata, "pid")->integer, int64_t(11));
        QCOMPARE(merged->warnings.size(), a->warnings.size());
    }
};

QTEST_GUILESS_MAIN(TestProcessMerge)
#include "tst_process_merge.moc"
