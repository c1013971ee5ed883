// SharedChunks (model/live/shared_chunks.h), the storage that lets a live update freeze the
// assembled state without copying it: copies share chunks, and neither side ever sees the
// other's later writes. Then the same through NvtxAssembler, the way JobAssembler::freeze
// uses it: a frozen copy is laid out on another thread while the original goes on
// ingesting and closes ranges that the copy holds open, and SharedNames, the region names
// and strings such a copy shares: a copy keeps its names while the original adds many more
// (a name per range, as PyTorch's emit_nvtx writes them).
#include "model/column.h"
#include "model/live/nvtx_assembler.h"
#include "model/live/shared_chunks.h"
#include "model/live/shared_names.h"

#include <QTest>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

using namespace spanscope::model;
using namespace spanscope::model::live;
using namespace spanscope::protocol;

namespace {

// 8 elements per chunk, so a few dozen elements cross several chunks.
using Small = SharedChunks<int64_t, 64>;

std::vector<int64_t> contents(const Small& s)
{
    return std::vector<int64_t>(s.begin(), s.end());
}

std::vector<int64_t> counting(int64_t n, int64_t from = 0)
{
    std::vector<int64_t> v;
    for (int64_t i = 0; i < n; ++i)
        v.push_back(from + i);
    return v;
}

// A stream's start: hello and a 1 GHz clock (timestamps are ns).
void start(NvtxAssembler& live)
{
    live.onHello(HelloPayload{7, 0, 0});
    ClockCalibrationRecord cal{};
    cal.ticksPerSecond = 1e9;
    live.onClockCalibration(cal);
}

} // namespace

class TestSharedChunks : public QObject
{
    Q_OBJECT

private slots:
    void appendsAndReadsAcrossChunks()
    {
        static_assert(Small::kChunkSize == 8);
        Small s;
        QVERIFY(s.empty());
        for (int64_t i = 0; i < 30; ++i)
            s.push_back(i);
        QCOMPARE(s.size(), size_t(30));
        QCOMPARE(contents(s), counting(30));
        s.edit(17) = -17;
        QCOMPARE(s[17], int64_t(-17));
    }

    void aCopyNeverSeesTheOriginalsLaterWrites()
    {
        Small original;
        for (int64_t i = 0; i < 20; ++i) // the last chunk half full: shared and still growing
            original.push_back(i);
        const Small copy = original;
        for (int64_t i = 20; i < 40; ++i) // past the copy's end, partly in a chunk it holds
            original.push_back(i);
        original.edit(3) = -3;   // a full chunk the copy shares
        original.edit(18) = -18; // the chunk the copy shares only in part
        original.edit(35) = -35; // a chunk the copy never had
        QCOMPARE(contents(copy), counting(20));
        auto expected = counting(40);
        expected[3] = -3;
        expected[18] = -18;
        expected[35] = -35;
        QCOMPARE(contents(original), expected);
    }

    void theOriginalNeverSeesACopysWrites()
    {
        Small original;
        for (int64_t i = 0; i < 20; ++i)
            original.push_back(i);
        Small copy = original;
        copy.edit(5) = 500;
        copy.push_back(20);
        copy.edit(19) = 190;
        QCOMPARE(contents(original), counting(20));
        QCOMPARE(copy[5], int64_t(500));
        QCOMPARE(copy[19], int64_t(190));
        QCOMPARE(copy.size(), size_t(21));
    }

    // The storage of large chunks and columns: on a huge-page boundary whatever the kernel
    // does, writable to its end, for sizes that are and are not multiples of 2 MiB.
    void hugePageMappingsAreAlignedAndWholeData()
    {
        constexpr std::size_t kHuge = std::size_t(2) << 20;
        for (const std::size_t bytes : {kHuge, kHuge + 1, 3 * kHuge - 4096, std::size_t(5) << 20}) {
            auto* p = static_cast<unsigned char*>(spanscope::model::detail::mapHugePages(bytes));
            QCOMPARE(reinterpret_cast<std::uintptr_t>(p) % kHuge, std::uintptr_t(0));
            p[0] = 1;
            p[bytes - 1] = 2;
            QCOMPARE(int(p[0] + p[bytes - 1]), 3);
            spanscope::model::detail::unmapHugePages(p, bytes);
        }
        const std::size_t column = std::size_t(6) << 20; // past the column allocator's threshold
        void* q = spanscope::model::detail::allocateColumn(column);
        QCOMPARE(reinterpret_cast<std::uintptr_t>(q) % kHuge, std::uintptr_t(0));
        spanscope::model::detail::releaseColumn(q, column);
    }

    // An edit after the copy was released writes in place (nothing to copy): the chunk's
    // address stays.
    void anEditCopiesOnlyWhileAnotherCopyHoldsTheChunk()
    {
        Small s;
        for (int64_t i = 0; i < 8; ++i)
            s.push_back(i);
        const int64_t* before = &s[0];
        s.edit(0) = 10;
        QCOMPARE(&s[0], before);
        {
            const Small copy = s;
            s.edit(0) = 20;
            QVERIFY(&s[0] != before);
            QCOMPARE(copy[0], int64_t(10));
        }
        const int64_t* after = &s[0];
        s.edit(1) = 21;
        QCOMPARE(&s[0], after);
    }

    // Copies read on other threads and released at any moment while the original edits and
    // grows: every copy reads exactly what it was given (an edit copies a chunk while a copy
    // holds it, and writes in place once none does).
    void copiesReadOnOtherThreadsSeeWhatTheyWereGiven()
    {
        Small live;
        for (int round = 0; round < 50; ++round) {
            for (int64_t i = 0; i < 200; ++i)
                live.push_back(i);
            std::vector<int64_t> expected(live.begin(), live.end());
            auto* frozen = new Small(live);
            bool same = false;
            std::thread reader([&] {
                same = std::vector<int64_t>(frozen->begin(), frozen->end()) == expected;
                delete frozen;
            });
            for (int pass = 0; pass < 3; ++pass) {
                for (size_t i = 0; i < live.size(); i += 7)
                    live.edit(i) = -int64_t(i) - pass;
                live.push_back(pass);
            }
            reader.join();
            QVERIFY(same);
        }
    }

    // Names of every length (empty, one byte, one longer than a text block) come back as
    // they went in; a copy keeps what it saw, with the same bytes at the same addresses,
    // while the original adds names across many blocks.
    void sharedNamesKeepEveryCopysNames()
    {
        SharedNames live;
        std::vector<std::string> expected;
        auto add = [&](std::string name) {
            QCOMPARE(live.push_back(name), expected.size());
            expected.push_back(std::move(name));
        };
        add("");
        add("x");
        add(std::string(100'000, 'L')); // longer than a block of text
        add("after the long one");
        for (int i = 0; i < 5000; ++i)
            add("aten::add, seq = " + std::to_string(i));
        const SharedNames frozen = live;
        const std::vector<std::string> seen = expected;
        std::vector<const char*> addresses;
        for (size_t i = 0; i < frozen.size(); ++i)
            addresses.push_back(frozen[i].data());
        bool same = false;
        std::thread reader([&] {
            same = frozen.size() == seen.size();
            for (size_t i = 0; same && i < seen.size(); ++i)
                same = frozen[i] == seen[i] && frozen[i].data() == addresses[i];
        });
        for (int i = 0; i < 20000; ++i)
            add(std::string(size_t(i % 300), char('a' + i % 26)) + std::to_string(i));
        reader.join();
        QVERIFY(same);
        QCOMPARE(live.size(), expected.size());
        for (size_t i = 0; i < expected.size(); ++i)
            QCOMPARE(std::string(live[i]), expected[i]);
    }

    // A name per range: a copy frozen mid-stream shows the regions and mark messages it saw,
    // while the original defines thousands more strings, regions and marks meanwhile.
    void aFrozenAssemblerKeepsItsNamesWhileTheOriginalAddsMore()
    {
        NvtxAssembler live;
        start(live);
        uint64_t t = 100;
        uint32_t nextId = 1;
        auto range = [&](const std::string& name) {
            const uint32_t id = nextId++;
            live.onString(id, name);
            PushRecord push{};
            push.tid = 1;
            push.timestamp = ++t;
            push.message = id;
            live.onPush(push);
            MarkRecord mark{};
            mark.tid = 1;
            mark.timestamp = ++t;
            mark.message = id;
            live.onMark(mark);
            PopRecord pop{};
            pop.tid = 1;
            pop.timestamp = ++t;
            live.onPop(pop);
        };
        constexpr int kBefore = 3000, kAfter = 20000;
        for (int i = 0; i < kBefore; ++i)
            range("aten::add, seq = " + std::to_string(i));
        const NvtxAssembler frozen = live;
        std::shared_ptr<Capture> frozenCapture;
        std::thread layout([&] { frozenCapture = frozen.snapshot(); });
        for (int i = kBefore; i < kBefore + kAfter; ++i)
            range("aten::mul, seq = " + std::to_string(i));
        layout.join();
        const auto now = live.snapshot();

        auto check = [](const Capture& c, int ranges) {
            QCOMPARE(c.regionNames.size(), size_t(ranges));
            QCOMPARE(c.nvtx.marks.size(), size_t(ranges));
            for (int i = 0; i < ranges; ++i) {
                const std::string name = (i < kBefore ? "aten::add, seq = " : "aten::mul, seq = ") + std::to_string(i);
                QCOMPARE(std::string(c.strings.text(c.regionNames[size_t(i)])), name);
                QCOMPARE(std::string(c.strings.text(c.nvtx.marks[size_t(i)].message)), name);
            }
        };
        check(*frozenCapture, kBefore);
        check(*now, kBefore + kAfter);
    }

    // The freeze of a live update: the copy is laid out on another thread while the
    // original ingests, closes the ranges the copy saw open and grows by many chunks.
    void aFrozenAssemblerIsLaidOutWhileTheOriginalGoesOn()
    {
        NvtxAssembler live;
        start(live);
        live.onString(1, "outer");
        live.onString(2, "inner");
        auto push = [&](uint32_t tid, uint64_t t, uint32_t message) {
            PushRecord r{};
            r.tid = tid;
            r.timestamp = t;
            r.message = message;
            live.onPush(r);
        };
        auto pop = [&](uint32_t tid, uint64_t t) {
            PopRecord r{};
            r.tid = tid;
            r.timestamp = t;
            live.onPop(r);
        };
        uint64_t t = 100;
        push(1, t, 1); // open across the freeze, in the first chunk
        constexpr int kBefore = 100'000, kAfter = 200'000;
        for (int i = 0; i < kBefore; ++i) {
            push(1, ++t, 2);
            pop(1, ++t);
        }
        const NvtxAssembler frozen = live;
        std::shared_ptr<Capture> frozenCapture;
        std::thread layout([&] { frozenCapture = frozen.snapshot(); });
        for (int i = 0; i < kAfter; ++i) {
            push(1, ++t, 2);
            pop(1, ++t);
        }
        pop(1, ++t); // closes "outer", which the frozen copy holds open
        layout.join();
        const auto now = live.snapshot();

        QCOMPARE(frozenCapture->events.start.size(), size_t(kBefore + 1));
        QCOMPARE(frozenCapture->nvtx.closedAtEnd.size(), size_t(1));
        QCOMPARE(now->events.start.size(), size_t(kBefore + kAfter + 1));
        QVERIFY(now->nvtx.closedAtEnd.empty());
        // "outer" is region 0, its only call is event 0: open (to the copy's last
        // timestamp) in the copy, closed at the last pop now.
        QCOMPARE(frozenCapture->events.start[0], int64_t(100));
        QCOMPARE(frozenCapture->events.end[0], int64_t(100 + 2 * kBefore));
        QCOMPARE(now->events.end[0], int64_t(t));
    }
};

QTEST_APPLESS_MAIN(TestSharedChunks)
#include "tst_shared_chunks.moc"
