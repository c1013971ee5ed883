// A CUDA job's nesting lists (a listed thread's pushes and its CUDA calls, two lists with
// places of their own) going on from the last snapshot's, as a live stream's updates lay
// them out (nvtx_assembler_nesting_order.cpp).
#include "model/live/nvtx_assembler.h"
#include "support/nvtx_feed.h"
#include "support/nvtx_layout_checks.h"

#include <QTest>
#include <memory>
#include <optional>
#include <random>
#include <vector>

using namespace spanscope::model;
using namespace spanscope::model::live;
using spanscope::testing::Feed;
using namespace spanscope::testing;
using namespace spanscope::protocol;

class TestCudaNestingLists : public QObject
{
    Q_OBJECT

private slots:
    // A CUDA job's snapshots from the memo: each thread's lists (pushes, CUDA calls) go on
    // from the last snapshot's, writing only the places that changed: the calls appended,
    // the end of each CUDA list (a call reported late is put in place up to
    // kMaxCudaReorder places back, some across a snapshot), and the calls the layout took
    // along (the threads' clocks drift apart, so their API calls land before others
    // already shown). Every snapshot's lists equal those of one laid out afresh and nest as
    // its rows do, and no snapshot changes what an earlier one holds.
    void aCudaJobsListsGoOnFromTheLastSnapshot()
    {
        NvtxAssemblerOptions options;
        options.nestingListSlack = 256; // outgrown now and then: laid out afresh
        NvtxAssembler a(options);
        Feed f(a);
        std::mt19937 random(7);
        constexpr uint32_t kThreads = 3;
        // The last thread's clock ~50 steps behind: its API calls land among the others'
        // calls of the last ~50 steps, which the layout takes along to new events (in their
        // threads' CUDA lists, far more than kMaxCudaReorder places back).
        uint64_t now[kThreads] = {9000, 9400, 4000};
        std::vector<std::pair<int64_t, int64_t>> held[kThreads]; // runtime calls reported late
        NvtxAssembler::LayoutMemo memo;
        std::shared_ptr<Capture> previous;
        std::optional<Capture> previousCopy;
        std::vector<const uint32_t*> listStores;
        uint64_t reused = 0;
        for (int round = 0; round < 12; ++round) {
            for (int step = 0; step < 30; ++step) {
                for (uint32_t t = 0; t < kThreads; ++t) {
                    const uint32_t tid = 100 + t;
                    f.push(tid, now[t], "step");
                    for (int i = 0; i < 3; ++i) {
                        now[t] += 1 + random() % 3;
                        const uint64_t itemStart = now[t];
                        f.push(tid, itemStart, "item");
                        now[t] += 10 + random() % 4;
                        const auto s = int64_t(itemStart) + 1002, e = int64_t(now[t]) + 998; // ns (Feed)
                        f.cudaApi(tid, s + 1, e - 1, "cuLaunchKernel", CudaApiKind::Driver);
                        if (random() % 4 == 0)
                            held[t].emplace_back(s, e);
                        else
                            f.cudaApi(tid, s, e, "cudaLaunchKernel");
                        f.pop(tid, now[t]);
                    }
                    // Late ones, in reverse, at most four steps late (within
                    // kMaxCudaReorder places), those of the last steps in the next round.
                    if (step % 4 == 3 || (random() % 3 == 0 && step < 28)) {
                        for (auto call = held[t].rbegin(); call != held[t].rend(); ++call)
                            f.cudaApi(tid, call->first, call->second, "cudaLaunchKernel");
                        held[t].clear();
                    }
                    now[t] += 3;
                    f.pop(tid, now[t]);
                    now[t] += 20 + random() % 60; // the threads' clocks drift apart
                }
            }
            const NvtxAssembler frozen = a;
            const auto kept = frozen.snapshot(&memo);
            const auto fresh = frozen.snapshot();
            QCOMPARE(kept->nestingOrder.tracks.size(), size_t(2 * kThreads)); // every thread listed
            checkSameLayout(*kept, *fresh);
            checkSameLists(*kept, *fresh);
            compareListsWithRows(*kept);
            if (QTest::currentTestFailed())
                return;
            if (previous) {
                QVERIFY(previous->nestingOrder.events == previousCopy->nestingOrder.events);
                QVERIFY(previous->nestingOrder.rows == previousCopy->nestingOrder.rows);
            }
            listStores.push_back(kept->nestingOrder.events.data());
            reused += round >= 2 && listStores[size_t(round)] == listStores[size_t(round) - 2];
            previous = kept;
            previousCopy.emplace(*kept);
        }
        QVERIFY(reused > 0); // the lists went on from the last snapshot's, in the stores before
    }
};

QTEST_GUILESS_MAIN(TestCudaNestingLists)
#include "tst_cuda_nesting_lists.moc"
