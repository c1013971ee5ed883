// A live stream's snapshots walk only the listed calls that arrived since the snapshot
// before (stats/nesting_carry.h): each snapshot's nesting and timeline index equal those of
// the same snapshot walked whole, round after round, whatever the job sends.
#include "model/capture_loader.h"
#include "model/live/nvtx_assembler.h"
#include "model/stats/nesting_carry.h"
#include "support/nvtx_feed.h"
#include "support/same_nesting.h"

#include <QTest>
#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <set>

using namespace spanscope::model;
using namespace spanscope::model::live;
using spanscope::testing::Feed;

namespace {

// Push/pop ranges on a few threads, each thread's clock running forward with some stamps
// repeated (children starting with their parent, zero-length ranges, ranges ending where
// the next starts), thread 0's outermost range open for the whole job and others open over
// rounds. Some rounds also bring start/end ranges, kernels and one thread's CUDA calls
// (tracks walked whole). With `hostile`, pops are sometimes stamped before the thread's
// clock: a range may end before what it encloses ends, as a broken stream might send.
class PushPopJob
{
public:
    PushPopJob(NvtxAssembler& a, unsigned seed, bool hostile)
        : m_feed(a), m_random(seed), m_hostile(hostile)
    {
        for (uint32_t t = 0; t < kThreads; ++t)
            m_now[t] = 10000 + 701 * t;
    }

    void round(int operations)
    {
        ++m_round;
        for (int i = 0; i < operations; ++i) {
            const uint32_t t = m_random() % kThreads;
            m_now[t] += m_random() % 3 == 0 ? 0 : 1 + m_random() % 20;
            const uint32_t what = m_random() % 16;
            // A push at the instant of the thread's last pop would take it off the lists for
            // good (NvtxAssembler::listCall), and its calls would be walked from the rows.
            if (what < 7 && m_popped[t] == m_now[t])
                ++m_now[t];
            if (what < 7) {
                m_feed.push(100 + t, m_now[t], "r" + std::to_string(m_random() % (3 + m_round)));
                ++m_depth[t];
            } else if (what < 14) {
                if (m_depth[t] > (t == 0 ? 1 : 0)) { // thread 0 keeps its outermost range open
                    // One round in three of a hostile job has pops stamped early.
                    const bool early = m_hostile && m_round % 3 == 0 && m_random() % 16 == 0;
                    m_feed.pop(100 + t, m_now[t] - std::min<uint64_t>(early ? m_random() % 60 : 0,
                                                                      m_now[t]));
                    m_popped[t] = m_now[t];
                    --m_depth[t];
                }
            } else if (what == 14 && m_round % 3 == 0) {
                m_feed.start(100 + t, ++m_ranges, m_now[t], "job");
                m_feed.end(100 + (t + 1) % kThreads, m_ranges, m_now[t] + 30);
            } else if (what == 15 && m_round % 4 == 1) {
                // Thread 3's CUDA calls (ns = ticks + 1000), inside its open ranges.
                const int64_t ns = int64_t(m_now[3]) + 1001;
                m_feed.cudaApi(103, ns, ns + 2, "cudaLaunchKernel");
                m_gpu = std::max(m_gpu, ns) + 10; // kernels one after the other
                m_feed.kernel(m_gpu, m_gpu + 5, 7, 0);
                m_now[3] += 4;
            }
        }
    }

private:
    static constexpr uint32_t kThreads = 4;
    Feed m_feed;
    std::mt19937 m_random;
    bool m_hostile;
    int m_round = 0;
    uint64_t m_now[kThreads] = {};
    int m_depth[kThreads] = {};
    uint64_t m_popped[kThreads] = {};
    uint64_t m_ranges = 0;
    int64_t m_gpu = 0;
};

// Threads whose ranges launch kernels: a runtime API call with the driver call inside it,
// then the kernel. CUPTI hands API calls and GPU work over in batches (the collector
// flushes every 250 ms), so a round's CUDA calls come at the end of the next round, or,
// where a flush is skipped, of the one after; a batch a little out of order (CUPTI
// reports a driver call before the runtime call around it, and neighbours swap now and
// then). With `hostile`, now and then a runtime call starts before the thread's clock:
// with the range the thread just closed (so it encloses a range an earlier snapshot
// walked), or, in one round, up to 300 ns back (overlapping ranges partially, mostly).
class CudaJob
{
public:
    // `kernels`: false, API calls alone (such as synchronizing calls): every track is a
    // thread's, so a walk that goes on writes only new calls' depths in the depth column.
    CudaJob(NvtxAssembler& a, unsigned seed, bool hostile, bool kernels)
        : m_feed(a), m_random(seed), m_hostile(hostile), m_kernels(kernels)
    {
        for (uint32_t t = 0; t < kThreads; ++t) {
            m_now[t] = 10000 + 307 * t;
            m_closedNow[t] = -1;
        }
    }

    void round(int operations)
    {
        ++m_round;
        const size_t before = m_pending.size(), workBefore = m_work.size(); // what came before this round
        for (int i = 0; i < operations; ++i) {
            const uint32_t t = m_random() % kThreads;
            m_now[t] += m_random() % 4 == 0 ? 0 : 1 + m_random() % 20;
            const uint32_t what = m_random() % 10;
            if (what < 4 && m_popped[t] == m_now[t]) // see PushPopJob
                ++m_now[t];
            if (what < 4) {
                m_closedNow[t] = -1;
                m_feed.push(100 + t, m_now[t], "r" + std::to_string(m_random() % 6));
                m_starts[t].push_back(int64_t(m_now[t]));
            } else if (what < 8) {
                if (m_starts[t].size() > (t == 0 ? 1u : 0u)) { // thread 0 keeps its outermost range open
                    m_feed.pop(100 + t, m_now[t]);
                    m_popped[t] = m_now[t];
                    m_closedNow[t] = m_starts[t].back();
                    m_starts[t].pop_back();
                }
            } else {
                launch(t);
                m_closedNow[t] = -1;
            }
        }
        if (m_random() % 5 != 0) // a flush: what came before this round
            deliver(before, workBefore);
    }

private:
    static constexpr uint32_t kThreads = 3;
    struct Api
    {
        uint32_t tid;
        int64_t start, end;
        bool driver;
        uint32_t correlation;
    };

    void launch(uint32_t t)
    {
        const int64_t ns = int64_t(m_now[t]) + 1000; // Feed's clock: ns = ticks + 1000
        const uint32_t correlation = ++m_correlation;
        int64_t start = ns;
        if (m_hostile && m_closedNow[t] >= 0 && m_random() % 4 == 0)
            start = m_closedNow[t] + 1000; // with the range just closed, ending after it
        else if (m_hostile && m_round == 25 && m_random() % 8 == 0)
            start = ns - int64_t(m_random() % 300);
        m_pending.push_back({100 + t, ns + 1, ns + 5, true, correlation}); // completes first
        m_pending.push_back({100 + t, start, ns + 6, false, correlation});
        m_now[t] += 7;
        m_gpu[t] = std::max(m_gpu[t], ns) + 10; // a stream per thread, its kernels one after the other
        if (m_kernels)
            m_work.push_back({m_gpu[t], correlation, 1 + t});
    }

    // Hands over the first `calls` API calls waiting and the first `kernels` kernels.
    void deliver(size_t calls, size_t kernels)
    {
        for (size_t i = 1; i < calls; ++i) // neighbours swapped now and then
            if (m_random() % 8 == 0)
                std::swap(m_pending[i - 1], m_pending[i]);
        for (size_t i = 0; i < calls; ++i) {
            const Api& call = m_pending[i];
            m_feed.cudaApi(call.tid, call.start, call.end, call.driver ? "cuLaunchKernel" : "cudaLaunchKernel",
                           call.driver ? spanscope::protocol::CudaApiKind::Driver : spanscope::protocol::CudaApiKind::Runtime,
                           call.correlation);
        }
        // Kernels: neighbours swapped now and then too; stream 1's three flushes later than
        // the others' (they land among kernels shown already: those are taken along to new
        // events, more than NvtxAssembler::kMaxCudaReorder places back in their streams'
        // lists); in a hostile job, one of stream 3's five flushes later (too far out of
        // order: that stream is no longer listed).
        for (size_t i = 1; i < kernels; ++i)
            if (m_random() % 8 == 0)
                std::swap(m_work[i - 1], m_work[i]);
        std::vector<Work> lagging;
        for (size_t i = 0; i < kernels; ++i) {
            const Work& w = m_work[i];
            if (w.stream == 1)
                lagging.push_back(w);
            else if (m_hostile && m_round == 10 && w.stream == 3 && !m_heldBack)
                m_heldBack = w;
            else
                kernel(w);
        }
        m_lagging.push_back(std::move(lagging));
        if (m_lagging.size() > 3) {
            for (const Work& w : m_lagging.front())
                kernel(w);
            m_lagging.pop_front();
        }
        if (m_heldBack && m_round == 15) {
            kernel(*m_heldBack);
            m_heldBack.reset();
        }
        m_pending.erase(m_pending.begin(), m_pending.begin() + std::ptrdiff_t(calls));
        m_work.erase(m_work.begin(), m_work.begin() + std::ptrdiff_t(kernels));
    }
    struct Work
    {
        int64_t start;
        uint32_t correlation, stream;
    };
    void kernel(const Work& w) { m_feed.kernel(w.start, w.start + 5, w.stream, w.correlation); }

    Feed m_feed;
    std::mt19937 m_random;
    bool m_hostile, m_kernels;
    int m_round = 0;
    uint64_t m_now[kThreads] = {};
    std::vector<int64_t> m_starts[kThreads]; // of the ranges open (ticks)
    int64_t m_closedNow[kThreads] = {};      // the start of the range the last operation closed, or -1
    uint64_t m_popped[kThreads] = {};
    uint32_t m_correlation = 1'000'000;
    int64_t m_gpu[kThreads] = {};
    std::vector<Api> m_pending;
    std::vector<Work> m_work;                  // kernels to hand over
    std::deque<std::vector<Work>> m_lagging;   // stream 1's of the last flushes
    std::optional<Work> m_heldBack;
};

// Analyses a snapshot as the live view does (its listed tracks going on from the last
// snapshot's walk) and a copy of it walked whole, and compares them; returns how many
// tracks went on from the carry. `shown`, if given, gets the snapshot as analysed.
uint64_t analyseBothWays(const std::shared_ptr<Capture>& snapshot, std::optional<LoadedCapture>* shown = nullptr)
{
    auto copy = std::make_shared<Capture>(*snapshot);
    copy->nestingOrder.carrySlot.reset(); // nothing carried into or out of it
    const auto whole = analyzeCapture(copy, ProgressRange(nullptr, 0, 1), LoadOptions{true});
    const auto carried = analyzeCapture(snapshot, ProgressRange(nullptr, 0, 1), LoadOptions{true});
    if (!whole || !carried) {
        QTest::qFail("not analysed", __FILE__, __LINE__);
        return 0;
    }
    const std::string difference = spanscope::testing::nestingDifference(*carried, *whole);
    if (!difference.empty()) {
        QTest::qFail(difference.c_str(), __FILE__, __LINE__);
        return 0;
    }
    if (shown)
        *shown = carried;
    const auto slot = snapshot->nestingOrder.carrySlot.lock();
    if (!slot)
        return 0;
    std::lock_guard lock(slot->mutex);
    return slot->carry ? slot->carry->resumedTracks : 0;
}

// Empty when a snapshot's lists hold exactly the calls its rows hold on the listed tracks,
// each at its event (not one it left behind) and with its row; else the first that is not.
QString listsDifference(const Capture& c)
{
    const NestingOrder& listing = c.nestingOrder;
    std::vector<uint32_t> rowOf(c.events.size(), UINT32_MAX);
    for (uint32_t r = 0; r < c.rows.size(); ++r)
        for (const uint64_t e : c.rowEvents(c.rows[r]))
            rowOf[e] = r;
    std::map<uint32_t, uint64_t> listed; // track -> calls listed
    for (const auto& list : listing.tracks)
        for (uint64_t p = list.begin; p < list.end; ++p) {
            const uint32_t e = listing.events[p];
            if (e >= c.events.size() || rowOf[e] == UINT32_MAX)
                return QString("place %1 of track %2: event %3, which no row holds").arg(p).arg(list.track.value).arg(e);
            if (c.events.track[e] != list.track.value || listing.rows[p] != rowOf[e])
                return QString("place %1: event %2 on another track or row").arg(p).arg(e);
            ++listed[list.track.value];
        }
    std::map<uint32_t, uint64_t> held;
    for (uint64_t e = 0; e < c.events.size(); ++e)
        if (rowOf[e] != UINT32_MAX && listed.count(c.events.track[e]))
            ++held[c.events.track[e]];
    return held == listed ? QString() : QString("the lists hold other calls than the rows");
}

// What a view reads of an analysed snapshot that the next ones could change if they
// wrote where it reads: every depth row's calls, and the depth column.
struct ShownState
{
    std::vector<std::vector<uint32_t>> rows;
    std::vector<uint16_t> depth;
    friend bool operator==(const ShownState&, const ShownState&) = default;
};
ShownState shownState(const LoadedCapture& shown)
{
    ShownState state;
    for (const TimelineLane& lane : shown.timeline->lanes())
        for (const DepthRow& row : lane.depths)
            state.rows.emplace_back(row.events.begin(), row.events.end());
    state.depth.assign(shown.capture->events.depth.begin(), shown.capture->events.depth.end());
    return state;
}
// A view holding an analysed snapshot every `every` rounds until `keep` rounds later (or
// until the next it holds): what it shows must not change meanwhile, though later
// snapshots share its stores.
class HeldSnapshot
{
public:
    HeldSnapshot(int every, int keep) : m_every(every), m_keep(keep) {}
    // Call once per round with the snapshot analysed in it.
    void round(int round, const LoadedCapture& shown)
    {
        if (m_held)
            QVERIFY2(shownState(*m_held) == m_state, qPrintable(QString("round %1").arg(round)));
        if (round % m_every == 0) {
            m_held = shown;
            m_state = shownState(shown);
        } else if (round % m_every == m_keep) {
            m_held.reset();
        }
    }

private:
    int m_every, m_keep;
    std::optional<LoadedCapture> m_held;
    ShownState m_state;
};

// Where each depth row's calls are stored.
std::set<const uint32_t*> rowStores(const LoadedCapture& shown)
{
    std::set<const uint32_t*> stores;
    for (const TimelineLane& lane : shown.timeline->lanes())
        for (const DepthRow& row : lane.depths)
            if (row.events.shared())
                stores.insert(row.events.data());
    return stores;
}

} // namespace

class TestNestingCarry : public QObject
{
    Q_OBJECT

private slots:
    // Round after round of a job, each snapshot laid out by appending to the one before
    // (as JobAssembler's are): analysed going on from the last walk, it equals the same
    // snapshot walked whole; and most tracks do go on (the test would pass vacuously else).
    // The depth rows of lanes that go on share stores with the next snapshot's, two stores
    // taking turns: every third snapshot is held two rounds longer (as a view may hold
    // one), and what it shows must not change meanwhile.
    void eachSnapshotEqualsTheSameWalkedWhole()
    {
        for (const unsigned seed : {1u, 2u, 3u}) {
            for (const bool hostile : {false, true}) {
                NvtxAssembler a;
                PushPopJob job(a, seed, hostile);
                NvtxAssembler::LayoutMemo memo;
                uint64_t resumed = 0, storesWrittenAgain = 0;
                HeldSnapshot held(3, 2);
                std::set<const uint32_t*> storesBefore, storesLast;
                for (int round = 0; round < 40; ++round) {
                    job.round(seed == 3 ? 3000 : 200);
                    const NvtxAssembler frozen = a;
                    std::optional<LoadedCapture> shown;
                    resumed += analyseBothWays(frozen.snapshot(&memo), &shown);
                    if (QTest::currentTestFailed()) {
                        qWarning("seed %u%s, round %d", seed, hostile ? ", hostile" : "", round);
                        return;
                    }
                    held.round(round, *shown);
                    const auto stores = rowStores(*shown);
                    for (const uint32_t* store : stores)
                        storesWrittenAgain += storesBefore.count(store);
                    storesBefore = std::move(storesLast);
                    storesLast = stores;
                }
                if (!hostile) // the stores of the snapshot before the last were written again
                    QVERIFY(storesWrittenAgain > 0);
                qInfo("seed %u%s: %llu tracks went on", seed, hostile ? ", hostile" : "",
                      (unsigned long long)resumed);
                if (!hostile)
                    QVERIFY2(
                        resumed > 40,
                        qPrintable(QString("seed %1: %2 tracks went on").arg(seed).arg(resumed)));
            }
        }
    }

    // A CUDA job's threads have two lists, their pushes and their CUDA calls, which come
    // late and a little out of order: each thread's walk goes on from a checkpoint before
    // its last unsettled CUDA call, and every snapshot equals the same walked whole. Each
    // snapshot is held until the next (as a view holds the one it shows): what it shows
    // must not change, though the next walk visits its calls after the checkpoint again
    // (and, in a hostile job, finds some nesting otherwise).
    void aCudaJobsThreadsGoOnFromACheckpoint()
    {
        for (const unsigned seed : {1u, 2u}) {
            for (const bool hostile : {false, true}) {
                NvtxAssembler a;
                CudaJob job(a, seed, hostile, seed == 1);
                NvtxAssembler::LayoutMemo memo;
                uint64_t resumed = 0;
                HeldSnapshot held(1, 1); // the last one, as a view shows it until the next
                for (int round = 0; round < 30; ++round) {
                    job.round(400);
                    const NvtxAssembler frozen = a;
                    std::optional<LoadedCapture> shown;
                    const auto snapshot = frozen.snapshot(&memo);
                    const QString lists = listsDifference(*snapshot);
                    QVERIFY2(lists.isEmpty(), qPrintable(QString("round %1: %2").arg(round).arg(lists)));
                    resumed += analyseBothWays(snapshot, &shown);
                    if (QTest::currentTestFailed()) {
                        qWarning("seed %u%s, round %d", seed, hostile ? ", hostile" : "", round);
                        return;
                    }
                    held.round(round, *shown);
                }
                qInfo("seed %u%s: %llu tracks went on", seed, hostile ? ", hostile" : "",
                      (unsigned long long)resumed);
                if (!hostile) // 3 threads (and 3 streams), 30 rounds: most go on
                    QVERIFY2(resumed > 45, qPrintable(QString("seed %1: %2 tracks went on").arg(seed).arg(resumed)));
            }
        }
    }

    // A row long enough that what the timeline index derives from it spans many chunks:
    // busy-time sums (PrefixSums: the chunks after its first from a pool of chunks no row
    // holds any more), sampled starts and summaries (ChunkedArray: the next snapshot's row
    // shares their chunks, a coarser summary chunk kept where the finer ones it is made
    // from are the same). Round after round they equal the whole walk's, chunks are shared
    // with the snapshot before, and a snapshot held over rounds keeps its own.
    void aLongRowGoesOnSharingItsChunks()
    {
        NvtxAssembler a;
        Feed feed(a);
        NvtxAssembler::LayoutMemo memo;
        uint64_t now = 1000;
        feed.push(1, now, "outer"); // open throughout: the row inside it goes on each round
        std::optional<LoadedCapture> held, last;
        std::vector<int64_t> heldSums, heldSamples;
        uint64_t resumed = 0, coarseChunksKept = 0, samplesShared = 0;
        constexpr int kPerRound = 50'000;
        for (int round = 0; round < 8; ++round) {
            for (int i = 0; i < kPerRound; ++i) {
                feed.push(1, ++now, "inner");
                now += 1 + uint64_t(i % 7);
                feed.pop(1, now);
            }
            const NvtxAssembler frozen = a;
            std::optional<LoadedCapture> shown;
            resumed += analyseBothWays(frozen.snapshot(&memo), &shown);
            if (QTest::currentTestFailed())
                return;
            const auto& rows = shown->timeline->lanes().at(0).depths;
            QCOMPARE(rows.size(), size_t(2));
            const DepthRow& row = rows[1];
            QCOMPARE(row.busyPrefix.size(), size_t(kPerRound * (round + 1) + 1));
            if (last) {
                const DepthRow& before = last->timeline->lanes().at(0).depths[1];
                samplesShared += row.sampledStart.sameWholeChunk(before.sampledStart, 0);
                if (row.lod.levels.size() > 1 && before.lod.levels.size() > 1)
                    coarseChunksKept += row.lod.levels[1].longest.sameWholeChunk(before.lod.levels[1].longest, 0);
            }
            if (held) { // the chunks it holds were not handed out again nor written
                const DepthRow& kept = held->timeline->lanes().at(0).depths[1];
                QVERIFY(kept.busyPrefix.values() == heldSums);
                QVERIFY(kept.sampledStart.values() == heldSamples);
            }
            if (round % 2 == 0) {
                held = shown;
                heldSums = row.busyPrefix.values();
                heldSamples = row.sampledStart.values();
            }
            last = shown;
        }
        QVERIFY(resumed >= 6);
        QVERIFY(samplesShared >= 4);
        QVERIFY(coarseChunksKept >= 1);
    }

    // Snapshots where a call open at the last one closes so that walking on from there
    // would nest differently from the whole walk: each is walked whole, to the same result.
    void whatTheWholeWalkNestsDifferentlyIsWalkedWhole_data()
    {
        QTest::addColumn<int>("scenario");
        QTest::newRow("a range ends before what it encloses ended") << 0;
        QTest::newRow("a range ends where a call inside it starts") << 1;
        QTest::newRow("a call starts at the snapshot's last timestamp") << 2;
        QTest::newRow("a range ends before it starts") << 3; // nothing inside it
        QTest::newRow("two ranges open, the outer ends before the inner") << 4;
        QTest::newRow("two ranges open from one instant, the outer ends first") << 5;
        QTest::newRow("a range ends at a zero-length call inside it, a call open after") << 6;
        QTest::newRow("a range of another domain open inside one that closed") << 7;
    }
    void whatTheWholeWalkNestsDifferentlyIsWalkedWhole()
    {
        QFETCH(int, scenario);
        NvtxAssembler a;
        Feed f(a);
        NvtxAssembler::LayoutMemo memo;
        f.push(101, 10, "steady"); // a second thread, walked on from the carry throughout
        f.pop(101, 20);
        f.push(100, 100, "parent");
        switch (scenario) {
        case 0:
            f.push(100, 110, "child");
            f.pop(100, 200);
            break;
        case 1:
            f.push(100, 120, "child");
            f.pop(100, 120);
            break;
        case 2:
            f.push(100, 200,
                   "child"); // 200 is the last timestamp: the parent is shown ending there
            break;
        case 4:
        case 5:
            f.push(100, scenario == 4 ? 110 : 100, "child"); // both open at the snapshot
            break;
        case 6:
            f.push(100, 200, "instant");
            f.pop(100, 200);
            f.push(100, 210, "open"); // open at the snapshot, after the instant
            break;
        case 7:
            f.push(100, 150, "other", 1); // domain 1, inside the parent (domain 0)
            f.pop(100, 200);              // the parent closes; domain 1's range is open
            break;
        }
        f.push(101, 150, "steady");
        f.pop(101,
              scenario == 6 ? 240 : 160); // (6: the snapshot's end after the open call's start)
        analyseBothWays(NvtxAssembler(a).snapshot(&memo));
        switch (scenario) {
        case 0:
            f.pop(100, 150); // before its child's end (200)
            break;
        case 1:
            f.pop(100, 120); // where its zero-length child starts
            break;
        case 2:
            f.pop(100, 210);
            f.pop(100, 220);
            break;
        case 3:
            f.pop(100, 90);
            break;
        case 4:
        case 5:
            f.pop(100, 260); // the child
            f.pop(100, 250); // the parent, stamped before it
            break;
        case 6:
            f.pop(100, 220); // the open one
            f.pop(100, 200); // the parent, stamped at the instant's time
            break;
        case 7:
            f.pop(100, 200, 1);
            break;
        }
        f.push(100, 300, "later");
        f.pop(100, 310);
        f.push(101, 300, "steady");
        f.pop(101, 310);
        const uint64_t resumed = analyseBothWays(NvtxAssembler(a).snapshot(&memo));
        QVERIFY(!QTest::currentTestFailed());
        // Thread 101 may go on; thread 100 is walked whole (a range ending before its start
        // is shown ending there, at its start: that one may go on).
        if (scenario < 3)
            QVERIFY(resumed <= 1);
    }

    // A snapshot laid out afresh, or by appending to a layout that was not analysed, has
    // no carry to go on from: every track is walked whole, to the same result.
    void aSnapshotNotAppendedToTheLastAnalysedIsWalkedWhole()
    {
        NvtxAssembler a;
        PushPopJob job(a, 5, false);
        NvtxAssembler::LayoutMemo memo;
        job.round(300);
        analyseBothWays(NvtxAssembler(a).snapshot(&memo));
        job.round(300);
        NvtxAssembler(a).snapshot(&memo); // laid out, never analysed
        job.round(300);
        QCOMPARE(analyseBothWays(NvtxAssembler(a).snapshot(&memo)), uint64_t(0));
        job.round(300);
        QVERIFY(analyseBothWays(NvtxAssembler(a).snapshot(&memo)) > 0);
        job.round(300);
        QCOMPARE(analyseBothWays(NvtxAssembler(a).snapshot()), uint64_t(0)); // no memo
    }
};

QTEST_GUILESS_MAIN(TestNestingCarry)
#include "tst_nesting_carry.moc"
