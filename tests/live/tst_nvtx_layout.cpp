// NvtxAssembler's layout of a snapshot: every call once, each row whole and in nesting
// order (start ascending, the longer of two starting together first, then arrival), on
// the paths a large capture takes (both cores, threads' runs merged or sorted).
#include "model/live/nvtx_assembler.h"
#include "support/nvtx_feed.h"

#include <QTest>
#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <tuple>

using namespace spanscope::model;
using namespace spanscope::model::live;
using spanscope::testing::Feed;

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
            const uint64_t e = row.offset + k;
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
            QCOMPARE(row.offset, offset);
            const std::string name = c->strings.text(c->regionNames[row.region]);
            QVERIFY2(seen.insert(name).second, name.c_str()); // one row per region
            QCOMPARE(row.count, fed[name]);
            for (uint64_t k = row.offset + 1; k < row.offset + row.count; ++k) {
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
    // threads' runs (few threads) or by sorting (more than kMaxMergedThreads), small and
    // large enough for both cores; the result is the same exact order either way.
    void interleavedThreadsAreLaidOutInNestingOrder()
    {
        for (const auto& [threads, steps] : {std::pair{1u, 300}, std::pair{4u, 300}, std::pair{5u, 3000},
                                              std::pair{uint32_t(NvtxAssembler::kMaxMergedThreads) + 6, 200}}) {
            NvtxAssembler a;
            const auto fed = feedInterleaved(a, threads, steps);
            const auto c = a.snapshot();
            checkRows(*c, fed);
            if (QTest::currentTestFailed())
                return;
        }
    }
};

QTEST_GUILESS_MAIN(TestNvtxLayout)
#include "tst_nvtx_layout.moc"
