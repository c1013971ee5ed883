// NvtxAssembler's layout of a snapshot: every call once, each row whole and in nesting
// order (start ascending, the longer of two starting together first, then arrival), on
// the paths a large capture takes (both cores, threads' runs merged or sorted).
#include "model/event_layout.h"
#include "model/live/lane_merge.h"
#include "model/live/nvtx_assembler.h"
#include "model/stats/capture_summary.h"
#include "model/stats/nesting.h"
#include "model/timeline/timeline_index.h"
#include "support/same_stats.h"
#include "support/nvtx_feed.h"
#include "support/counter_checks.h"
#include "support/nvtx_layout_checks.h"

#include <QTest>
#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <tuple>

using namespace spanscope::model;
using namespace spanscope::model::live;
using spanscope::testing::Feed;
using namespace spanscope::testing;
using namespace spanscope::protocol;

namespace {

// What one call was fed: where it starts and ends (ns, as the capture shows them), its
// thread (dense, in order of first appearance) and when it was pushed.
struct Fed
{
    int64_t start, end;
    int64_t thread;
    uint64_t pushed;
};

// Feeds `threads` threads whose clocks run apart (each its own offset and pace), taking
// turns a step at a time, so that no row arrives in start order: each step is a "step"
// range holding a recursion of "rec" (some starting together with their parent) and
// "item" ranges, some stamped before the thread's clock. Returns what was fed per region.
std::map<std::string, std::vector<Fed>> feedInterleaved(NvtxAssembler& a, uint32_t threads, int steps)
{
    Feed f(a);
    std::map<std::string, std::vector<Fed>> fed;
    std::vector<uint64_t> now(threads);
    for (uint32_t t = 0; t < threads; ++t)
        now[t] = 5000 + 997 * uint64_t(t % 7); // ticks; ns = ticks + 1000
    std::mt19937 random(3);
    uint64_t pushed = 0;
    struct Open
    {
        std::string name;
        uint64_t start;
        uint64_t pushed;
    };
    std::vector<std::vector<Open>> stacks(threads);
    // `early`: the call's start is stamped before the thread's clock (as a clock that
    // stepped back would), so even one thread's calls arrive out of start order.
    auto push = [&](uint32_t t, const std::string& name, uint64_t early = 0) {
        const uint64_t start = now[t] - std::min(early, now[t]);
        f.push(100 + t, start, name);
        stacks[t].push_back({name, start, pushed++});
    };
    auto pop = [&](uint32_t t) {
        const Open open = stacks[t].back();
        stacks[t].pop_back();
        f.pop(100 + t, now[t]);
        fed[open.name].push_back({int64_t(open.start) + 1000, int64_t(now[t]) + 1000, int64_t(t), open.pushed});
    };
    for (int step = 0; step < steps; ++step) {
        for (uint32_t t = 0; t < threads; ++t) {
            push(t, "step");
            const int depth = 1 + int(random() % 3);
            for (int d = 0; d < depth; ++d) {
                push(t, "rec");
                now[t] += random() % 3; // sometimes a recursion starts with its parent
            }
            for (int d = 0; d < depth; ++d) {
                now[t] += 1 + random() % 5;
                pop(t);
            }
            for (int i = 0; i < 3; ++i) {
                push(t, "item", random() % 8 == 0 ? 30 : 0);
                now[t] += 2 + random() % 4;
                pop(t);
                now[t] += random() % 2;
            }
            now[t] += 3;
            pop(t);
            now[t] += 50 + random() % 40;
        }
    }
    return fed;
}

// Each row of `c` holds exactly its region's fed calls in nesting order.
void checkRows(const Capture& c, std::map<std::string, std::vector<Fed>> fed)
{
    uint64_t total = 0;
    for (auto& [name, calls] : fed) {
        std::sort(calls.begin(), calls.end(), [](const Fed& x, const Fed& y) {
            return std::tuple(x.start, -x.end, x.pushed) < std::tuple(y.start, -y.end, y.pushed);
        });
        total += calls.size();
    }
    QCOMPARE(uint64_t(c.events.size()), total);
    for (const RegionRow& row : c.rows) {
        const auto& calls = fed.at(c.regionName(row.region));
        QCOMPARE(row.count, uint64_t(calls.size()));
        for (uint64_t k = 0; k < row.count; ++k) {
            const uint64_t e = row.firstEvent + k;
            const Fed& want = calls[k];
            if (c.events.start[e] != want.start || c.events.end[e] != want.end || c.events.threadIds[e] != want.thread)
                QFAIL(qPrintable(QStringLiteral("%1 call %2: %3-%4 on thread %5, expected %6-%7 on %8")
                                     .arg(QString::fromStdString(c.regionName(row.region)))
                                     .arg(k)
                                     .arg(c.events.start[e])
                                     .arg(c.events.end[e])
                                     .arg(c.events.threadIds[e])
                                     .arg(want.start)
                                     .arg(want.end)
                                     .arg(want.thread)));
        }
    }
}

class RandomJob
{
public:
    // `pushesOnly`: push/pop ranges and marks, no start/end range and no GPU work.
    // `noStartEnd`: no start/end range either, but GPU work.
    RandomJob(NvtxAssembler& a, unsigned seed, bool pushesOnly = false, bool noStartEnd = false)
        : m_feed(a), m_a(a), m_random(seed), m_pushesOnly(pushesOnly), m_noStartEnd(noStartEnd)
    {
        for (uint32_t t = 0; t < kThreads; ++t)
            m_now[t] = 10000 + 3001 * t;
    }

    void round(int operations)
    {
        ++m_round;
        for (int i = 0; i < operations; ++i) {
            // The last thread starts in the fourth round (its track comes after the others').
            const uint32_t t = m_random() % (m_round < 4 ? kThreads - 1 : kThreads);
            // A thread sometimes lags: its calls arrive after later-stamped ones of others.
            // (The fifth job's threads stamp every push after the one before, so that they
            // stay listed, but for one thread's push stamped early in the tenth round.)
            m_now[t] += m_random() % 3 == 0 && !m_pushesOnly ? 0 : 1 + m_random() % 40;
            int operation = int(m_random() % (m_pushesOnly ? 6 : 8));
            if (m_pushesOnly) // twice as many pops tried as pushes: few ranges stay open
                operation = operation < 2 ? 0 : 3;
            if (m_noStartEnd && (operation == 5 || operation == 6))
                operation = 7; // GPU work

            switch (operation) {
            case 0:
            case 1:
            case 2:
            {
                // Another domain from the third round on, categories from the fifth: the
                // NVTX per-call columns appear in a stream that had none.
                const uint32_t domain = m_random() % 5 == 0 && m_round >= 3 ? 7 : 0;
                const uint32_t category = m_round >= 5 ? m_random() % 3 : 0;
                if (m_pushesOnly) // one domain, no category: no NVTX per-call column to write
                    m_feed.push(100 + t, m_round == 10 && t == 3 ? 1 : m_now[t], name("r"));
                else
                    m_feed.push(100 + t, m_now[t], name("r"), domain, category);
            }
                ++m_depth[t];
                break;
            case 3:
            case 4:
                if (m_depth[t] > (t == 0 ? 1 : 0)) { // thread 0 keeps its outermost range open
                    m_feed.pop(100 + t, m_now[t]);
                    --m_depth[t];
                }
                break;
            case 5:
                m_feed.start(100 + t, ++m_lastRange, m_now[t], name("job"));
                m_openRanges.push_back(m_lastRange);
                break;
            case 6:
                if (!m_openRanges.empty()) {
                    const size_t k = m_random() % m_openRanges.size();
                    const uint64_t late = m_random() % 6 == 0 ? 500 : 0; // an end before its start
                    // Ended by another thread, sometimes one that records nothing else.
                    m_feed.end(100 + (t + 1) % (kThreads + 1), m_openRanges[k], m_now[t] - std::min(late, m_now[t]));
                    m_openRanges.erase(m_openRanges.begin() + int64_t(k));
                }
                break;
            default:
                kernel(t);
                break;
            }
            // Sometimes on a thread that records only marks, seen from the seventh round on
            // (a thread not listed, new to a snapshot whose lists go on from the last one's).
            if (m_random() % 16 == 0)
                m_feed.mark(100 + (m_random() % 4 == 0 && m_round >= 7 ? kThreads + 1 : t), m_now[t], "m");
        }
    }

private:
    static constexpr uint32_t kThreads = 5;
    // A name of the pool, which grows by one every round.
    std::string name(const char* prefix)
    {
        return std::string(prefix) + std::to_string(m_random() % (2 + uint32_t(m_round)));
    }
    void kernel(uint32_t t)
    {
        GpuKernelRecord r{};
        r.startNs = int64_t(m_now[t]) + 1000 - int64_t(m_random() % 2000); // GPU time, ns
        r.endNs = r.startNs + int64_t(m_random() % 50);
        // Two streams from the start, a third from the sixth round (its track comes after
        // the threads' seen by then).
        r.stream = 7 + m_random() % (m_round < 6 ? 2 : 3);
        r.correlation = ++m_correlation;
        r.nameId = m_feed.str(name("kernel"));
        m_a.onGpuKernel(r);
    }

    Feed m_feed;
    NvtxAssembler& m_a;
    std::mt19937 m_random;
    bool m_pushesOnly, m_noStartEnd;
    int m_round = 0;
    uint64_t m_now[kThreads] = {};
    int m_depth[kThreads] = {};
    uint64_t m_lastRange = 0;
    uint32_t m_correlation = 0;
    std::vector<uint64_t> m_openRanges;
};

// Feeds `threads` threads taking turns a step at a time, each step a "step" range holding
// a recursion of "rec" ranges (some starting together with their parent) and "item"
// ranges; every thread's clock runs strictly forward, but the last of several stamps some
// items before the item before them. One start/end range of "rec" too.
// With `cuda`, each item range holds a runtime API call with a driver call inside it,
// reported as CUPTI reports them (the driver call first: it completed first), and the
// second thread's calls come 90 at a time in reverse, too far out of order to be put in
// place (NvtxAssembler::kMaxCudaReorder): that thread is not listed.
void feedListable(NvtxAssembler& a, uint32_t threads, int steps, bool cuda = false)
{
    Feed f(a);
    std::vector<uint64_t> now(threads);
    for (uint32_t t = 0; t < threads; ++t)
        now[t] = 5000 + 997 * uint64_t(t % 7);
    std::mt19937 random(threads);
    std::vector<std::pair<int64_t, int64_t>> heldBack; // the second thread's CUDA calls, (start, end) ns
    for (int step = 0; step < steps; ++step) {
        for (uint32_t t = 0; t < threads; ++t) {
            f.push(100 + t, now[t], "step");
            const int depth = 1 + int(random() % 3);
            for (int d = 0; d < depth; ++d) {
                f.push(100 + t, now[t], "rec");
                now[t] += random() % 3;
            }
            for (int d = 0; d < depth; ++d) {
                now[t] += 1 + random() % 5;
                f.pop(100 + t, now[t]);
            }
            uint64_t itemStart = 0;
            bool early = false;
            for (int i = 0; i < 3; ++i) {
                now[t] += 1;
                // Stamped before the item before it, which it then encloses: in nesting
                // order no more, though nothing overlaps partially (two in a row would
                // start before the last "rec" ended).
                early = threads > 1 && t == threads - 1 && i > 0 && !early && random() % 4 == 0;
                itemStart = early ? itemStart - 1 : now[t];
                f.push(100 + t, itemStart, "item " + std::to_string(i));
                now[t] += cuda ? 10 + random() % 4 : 2 + random() % 4;
                if (cuda && !early) { // ticks are ns here, 1000 ns after the clock's zero (Feed)
                    const auto s = int64_t(itemStart) + 1002, e = int64_t(now[t]) + 998;
                    if (t == 1)
                        heldBack.emplace_back(s, e);
                    else {
                        f.cudaApi(100 + t, s + 1 + int64_t(random() % 2), e - 1, "cuLaunchKernel", CudaApiKind::Driver);
                        f.cudaApi(100 + t, s, e, "cudaLaunchKernel");
                    }
                }
                f.pop(100 + t, now[t]);
            }
            if (heldBack.size() >= 90 || (step + 1 == steps && t == 1)) {
                for (auto call = heldBack.rbegin(); call != heldBack.rend(); ++call)
                    f.cudaApi(100 + t, call->first, call->second, "cudaLaunchKernel");
                heldBack.clear();
            }
            now[t] += 3;
            f.pop(100 + t, now[t]);
            now[t] += 50 + random() % 40;
        }
    }
    f.start(100, 1, 5, "rec");
    f.end(100, 1, 9);
}

} // namespace

class TestNvtxLayout : public QObject
{
    Q_OBJECT

private slots:
    // Big enough to be laid out on both cores (in blocks, rows sorted in parallel): every
    // call exactly once, rows whole and sorted, the open ranges and the ends on another
    // thread listed once each, counts per region as fed.
    void aLargeCaptureIsLaidOutExactly()
    {
        NvtxAssembler a;
        Feed f(a);
        constexpr int kPerThread = 40000, kAsync = 500, kOpenAsync = 10;
        std::map<std::string, uint64_t> fed;
        for (uint32_t tid = 1; tid <= 3; ++tid) {
            f.push(tid, 10 + tid, "outer"); // left open
            ++fed["outer"];
        }
        uint64_t t = 100;
        for (int i = 0; i < kPerThread; ++i) {
            for (uint32_t tid = 1; tid <= 3; ++tid) {
                const std::string name = "region " + std::to_string((i * 7 + int(tid)) % 9);
                f.push(tid, t, name);
                if (i % 10 == 0) { // a child starting with its parent: ordered by end
                    f.push(tid, t, "child");
                    f.pop(tid, t + 20);
                    ++fed["child"];
                }
                f.pop(tid, t + 50 + uint64_t(i % 13));
                ++fed[name];
                t += 3;
            }
            t += 80;
        }
        for (int i = 0; i < kAsync; ++i) {
            f.start(1, uint64_t(i + 1), t, "job");
            if (i >= kOpenAsync)
                f.end(2, uint64_t(i + 1), t + 1000);
            ++fed["job"];
            t += 10;
        }
        const auto c = a.snapshot();
        const size_t n = c->events.start.size();
        uint64_t total = 0;
        for (const auto& [name, count] : fed)
            total += count;
        QCOMPARE(uint64_t(n), total);
        QVERIFY(n > 100000);
        uint64_t offset = 0;
        std::set<std::string> seen;
        for (const RegionRow& row : c->rows) {
            QCOMPARE(row.firstEvent, offset);
            const std::string name = c->strings.text(c->regionNames[row.region]);
            QVERIFY2(seen.insert(name).second, name.c_str()); // one row per region
            QCOMPARE(row.count, fed[name]);
            for (uint64_t k = row.firstEvent + 1; k < row.firstEvent + row.count; ++k) {
                const auto& e = c->events;
                QVERIFY(e.start[k - 1] < e.start[k] || (e.start[k - 1] == e.start[k] && e.end[k - 1] >= e.end[k]));
            }
            offset += row.count;
        }
        QCOMPARE(offset, uint64_t(n));
        QCOMPARE(c->nvtx.closedAtEnd.size(), size_t(3 + kOpenAsync));
        QCOMPARE(std::set<uint64_t>(c->nvtx.closedAtEnd.begin(), c->nvtx.closedAtEnd.end()).size(),
                 size_t(3 + kOpenAsync));
        QCOMPARE(c->nvtx.crossThreadEnds.size(), size_t(kAsync - kOpenAsync));
        for (const auto& end : c->nvtx.crossThreadEnds)
            QCOMPARE(c->events.end[end.event] - c->events.start[end.event], int64_t(1000));
    }

    // Threads whose calls arrive out of start order: rows are put in order by merging the
    // threads' runs (few threads) or by sorting (more than kMaxMergedLanes), small and
    // large enough for both cores; the result is the same exact order either way.
    void interleavedThreadsAreLaidOutInNestingOrder()
    {
        for (const auto& [threads, steps] : {std::pair{1u, 300}, std::pair{4u, 300}, std::pair{5u, 3000},
                                              std::pair{uint32_t(kMaxMergedLanes) + 6, 200}}) {
            NvtxAssembler a;
            const auto fed = feedInterleaved(a, threads, steps);
            const auto c = a.snapshot();
            checkRows(*c, fed);
            if (QTest::currentTestFailed())
                return;
        }
    }

    // A snapshot lists each thread's push/pop ranges in push order (Capture::nestingOrder)
    // while that is nesting order, and the nesting walk reads those threads from the lists:
    // it gives exactly what walking the rows gives (depths, exclusive times per row and
    // lane, the order a visitor sees), serially and on both cores. A thread with a push
    // stamped before the one before it is not listed, nor a region with start/end ranges;
    // lists that disagree with the rows (a call missing, two swapped) are not used, and
    // the walk still gives the rows' result.
    void nestingFromTheThreadsListsEqualsTheWalkOverTheRows()
    {
        for (const auto& [threads, steps] : {std::pair{1u, 50}, std::pair{5u, 400}, std::pair{5u, 4000}}) {
            NvtxAssembler a;
            feedListable(a, threads, steps);
            const auto snapshot = a.snapshot();
            const NestingOrder& listing = snapshot->nestingOrder;
            QVERIFY(!listing.empty());
            QCOMPARE(listing.tracks.size(), size_t(threads == 1 ? 1 : threads - 1)); // the last one is not
            uint64_t listedRows = 0;
            for (size_t r = 0; r < snapshot->rows.size(); ++r) {
                const bool rec = snapshot->regionName(snapshot->rows[r].region) == "rec";
                QVERIFY(!(rec && listing.rowListed[r]));
                listedRows += listing.rowListed[r];
            }
            QCOMPARE(listedRows > 0, threads == 1);
            compareListsWithRows(*snapshot);
            if (QTest::currentTestFailed())
                return;
        }
    }

    // A thread's CUDA calls are its second list, in nesting order though CUPTI reports
    // each when it completes (a driver call inside a runtime call first); the walk merges
    // the two. A thread whose CUDA calls come too far out of order is not listed.
    void aThreadsCudaCallsAreListedApart()
    {
        for (const auto& [threads, steps] : {std::pair{1u, 50}, std::pair{5u, 400}}) {
            NvtxAssembler a;
            feedListable(a, threads, steps, true);
            const auto snapshot = a.snapshot();
            const NestingOrder& listing = snapshot->nestingOrder;
            // Two lists per listed thread: all but the second (CUDA calls too far out of
            // order) and the last (pushes out of order).
            QCOMPARE(listing.tracks.size(), size_t(threads == 1 ? 2 : 2 * (threads - 2)));
            for (size_t i = 0; i + 1 < listing.tracks.size(); i += 2)
                QCOMPARE(listing.tracks[i].track, listing.tracks[i + 1].track);
            uint64_t cudaRowsListed = 0;
            for (size_t r = 0; r < snapshot->rows.size(); ++r)
                cudaRowsListed += listing.rowListed[r] && snapshot->regionName(snapshot->rows[r].region).starts_with("cu");
            QCOMPARE(cudaRowsListed, uint64_t(threads == 1 ? 2 : 0));
            compareListsWithRows(*snapshot);
            if (QTest::currentTestFailed())
                return;
        }
    }

    // A live job's snapshots are laid out from the previous one's (LayoutMemo): each equals
    // the snapshot laid out afresh from the same calls, statistics included, round after
    // round, whether the memo is passed between frozen copies (as JobAssembler does) or
    // older copies come after it (the memo is left alone and not used); every call closed
    // in one keeps its event in the next, whose start, end and thread columns share their
    // storage with it, and no snapshot changes what an earlier one holds. The largest job
    // keeps so many ranges open (each placed anew every round) that it is laid out afresh
    // now and then.
    void aSnapshotLaidOutFromTheLastOneEqualsOneLaidOutAfresh()
    {
        for (const unsigned seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
            // Four jobs keep every row's durations; the others only those of large rows,
            // which grow past the threshold on the way (kept from then on).
            NvtxAssemblerOptions options;
            if (seed <= 2 || seed >= 5)
                options.minimumCommittedCalls = 1;
            // Small windows: calls landing further back are placed one by one, cutting rows.
            if (seed % 2 == 1)
                options.takeAlongWindow = 0;
            // Little room beyond each nesting list: the fifth job's outgrow theirs.
            options.nestingListSlack = 64;
            NvtxAssembler a(options);
            // The fifth job has no start/end range and no GPU work, the sixth no start/end
            // range: their track columns are shared from one snapshot to the next too (GPU
            // tracks are numbered as they come, among the threads').
            const bool pushesOnly = seed == 5, noStartEnd = seed == 6;
            RandomJob job(a, seed, pushesOnly, noStartEnd);
            NvtxAssembler::LayoutMemo memo;
            uint64_t rowsWithDurations = 0, relayouts = 0, afresh = 0;
            std::shared_ptr<Capture> previous;
            std::optional<Capture> previousCopy; // its columns as they were when it was made
            // Every third snapshot is held two rounds longer (as a view might hold it): the
            // nesting lists' stores it shares are then not written again (the lists are
            // copied into fresh ones); else every other snapshot writes the same stores.
            std::shared_ptr<Capture> heldLonger;
            std::optional<Capture> heldLongerCopy;
            std::vector<const uint32_t*> listStores; // per round: where its lists are
            uint64_t listStoresReused = 0;
            for (uint64_t round = 0; round < 30; ++round) {
                const NvtxAssembler older = a;
                job.round(seed == 4 ? 4000 : pushesOnly ? 1000 : 150);
                const NvtxAssembler frozen = a; // as JobAssembler::freeze copies it
                const auto kept = frozen.snapshot(&memo);
                const auto fresh = frozen.snapshot();
                checkSameLayout(*kept, *fresh);
                checkTracksAsAssigned(*kept);
                checkSameLists(*kept, *fresh);
                checkSameCounters(*kept, *fresh);
                checkLanesAsMadeWhole(*kept);
                if (QTest::currentTestFailed())
                    return;
                const bool fromMemo = memo.relayouts > 0;
                for (const auto& [earlier, copy] : {std::pair(previous.get(), &previousCopy),
                                                    std::pair(heldLonger.get(), &heldLongerCopy)}) {
                    if (!earlier)
                        continue;
                    QVERIFY(earlier->events.start == (*copy)->events.start);
                    QVERIFY(earlier->events.end == (*copy)->events.end);
                    QVERIFY(earlier->events.threadIds == (*copy)->events.threadIds);
                    QVERIFY(earlier->events.track == (*copy)->events.track);
                    QVERIFY(earlier->nestingOrder.events == (*copy)->nestingOrder.events);
                    QVERIFY(earlier->nestingOrder.rows == (*copy)->nestingOrder.rows);
                }
                listStores.push_back(kept->nestingOrder.events.data());
                listStoresReused += round >= 2 && listStores[round] && listStores[round] == listStores[round - 2];
                QCOMPARE(kept->events.track.shared(), pushesOnly || noStartEnd); // a store from the first snapshot on
                checkGpuTracks(*kept);
                if (fromMemo) {
                    QVERIFY(kept->events.start.shared() && kept->events.end.shared() && kept->events.threadIds.shared());
                    QVERIFY2(checkClosedCallsStay(*previous, *kept) > 0, qPrintable(QString("seed %1 round %2 prev events %3 closedAtEnd %4").arg(seed).arg(round).arg(previous->events.size()).arg(previous->nvtx.closedAtEnd.size())));
                    // A list place is written for an appended event: the writes kept for the
                    // next snapshot to catch up with are this one's alone.
                    QVERIFY(memo.lists.writes.size() <= kept->events.size() - previous->events.size());
                } else if (round > 0) { // only where too much would be left behind
                    QVERIFY2(seed == 4 || pushesOnly, qPrintable(QString("round %1 laid out afresh").arg(round)));
                    ++afresh;
                }
                previous = kept;
                previousCopy.emplace(*kept); // a copy owns its values
                if (round % 3 == 0) {
                    heldLonger = kept;
                    heldLongerCopy.emplace(*kept);
                } else if (round % 3 == 2) {
                    heldLonger.reset();
                }
                // Its statistics from the durations kept since the memo's (every row of at
                // least minimumCommittedCalls calls has them once a snapshot was laid out
                // from a memo) equal those of its calls.
                QVERIFY(fresh->rowDurations.empty());
                for (size_t r = 0; r < kept->rows.size(); ++r) {
                    const bool has = r < kept->rowDurations.size() && kept->rowDurations[r];
                    QCOMPARE(has, fromMemo && kept->rows[r].count >= options.minimumCommittedCalls);
                    rowsWithDurations += has;
                }
                const QString difference =
                    spanscope::testing::summaryDifference(*summarizeCapture(*kept), *summarizeCapture(*fresh));
                QVERIFY2(difference.isEmpty(), qPrintable(QString("round %1: %2").arg(round).arg(difference)));
                QCOMPARE(memo.relayouts, fromMemo ? relayouts + 1 : 0); // in a row from the memo
                relayouts = memo.relayouts;
                QCOMPARE(memo.calls, fresh->events.size());
                if (round % 7 == 3) { // a copy older than the memo: laid out afresh
                    const size_t calls = memo.calls;
                    checkSameLayout(*older.snapshot(&memo), *older.snapshot());
                    QCOMPARE(memo.calls, calls);
                    QCOMPARE(memo.relayouts, relayouts);
                }
            }
            if (seed != 3) // its rows stay smaller than the threshold
                QVERIFY(rowsWithDurations > 0);
            if (!pushesOnly) // (the fifth job's rows are cut into many spans, and laid out afresh too)
                QCOMPARE(afresh > 0, seed == 4); // and every snapshot but the first from the memo otherwise
            if (pushesOnly) // the lists went on from the last snapshot's, in the stores before
                QVERIFY(listStoresReused > 0);
        }
    }

    // Calls recorded before the first clock calibration hold raw ticks until it comes and
    // rewrites them: a memo from before it is not used.
    void aMemoFromBeforeTheClockCalibrationIsNotUsed()
    {
        NvtxAssembler a;
        a.onHello(HelloPayload{77, 0, 0});
        auto push = [&](uint64_t t) {
            PushRecord r{};
            r.tid = 5;
            r.timestamp = t;
            a.onPush(r);
        };
        auto pop = [&](uint64_t t) {
            PopRecord r{};
            r.tid = 5;
            r.timestamp = t;
            a.onPop(r);
        };
        push(100);
        pop(200);
        push(300);
        NvtxAssembler::LayoutMemo memo;
        a.snapshot(&memo);
        ClockCalibrationRecord calibration{};
        calibration.ticks = 0;
        calibration.monotonicNs = 1000000;
        calibration.ticksPerSecond = 5e8; // a tick is 2 ns
        a.onClockCalibration(calibration);
        push(400);
        pop(500);
        const auto kept = a.snapshot(&memo);
        checkSameLayout(*kept, *a.snapshot());
        QCOMPARE(memo.relayouts, uint64_t(0));
        QCOMPARE(kept->events.start[0], int64_t(1000200));
    }
};

QTEST_GUILESS_MAIN(TestNvtxLayout)
#include "tst_nvtx_layout.moc"
