// The sender's PairKeeper (collector/pair_keeper.h): when a frame must be dropped, only whole
// ranges and marks are lost, the closing records of ranges already sent are kept for the next
// frame, and no later frame carries the closing record of a range that was dropped.
#include "collector/pair_keeper.h"

#include <QTest>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

using namespace spanscope::protocol;
using spanscope::collector::PairKeeper;

namespace {

template <typename R> R record(RecordType type, std::uint32_t tid)
{
    R r{};
    r.header = {static_cast<std::uint16_t>(type), sizeof r};
    r.tid = tid;
    return r;
}
template <typename R> std::string bytes(const R& r)
{
    return std::string(reinterpret_cast<const char*>(&r), sizeof r);
}
// A push in its long form (Push) or its short one (PushShort, protocol version 5).
template <typename R = PushRecord> std::string push(std::uint32_t tid, std::uint32_t message)
{
    auto r =
        record<R>(std::is_same_v<R, PushRecord> ? RecordType::Push : RecordType::PushShort, tid);
    r.message = message;
    return bytes(r);
}
std::string pop(std::uint32_t tid)
{
    return bytes(record<PopRecord>(RecordType::Pop, tid));
}
std::string shortPush(std::uint32_t tid, std::uint32_t message)
{
    return push<PushShortRecord>(tid, message);
}
std::string shortPop(std::uint32_t tid)
{
    return bytes(record<PopShortRecord>(RecordType::PopShort, tid));
}
std::string start(std::uint32_t tid, std::uint64_t id)
{
    auto r = record<RangeStartRecord>(RecordType::RangeStart, tid);
    r.rangeId = id;
    return bytes(r);
}
std::string end(std::uint32_t tid, std::uint64_t id)
{
    auto r = record<RangeEndRecord>(RecordType::RangeEnd, tid);
    r.rangeId = id;
    return bytes(r);
}
std::string mark(std::uint32_t tid)
{
    return bytes(record<MarkRecord>(RecordType::Mark, tid));
}

// The records of `data` as "push:tid", "pop:tid", "start:id", "end:id", "mark:tid".
std::vector<std::string> describe(const std::string& data)
{
    std::vector<std::string> out;
    for (std::size_t pos = 0; pos < data.size();) {
        RecordHeader h;
        std::memcpy(&h, data.data() + pos, sizeof h);
        std::uint32_t tid;
        std::memcpy(&tid, data.data() + pos + sizeof h, sizeof tid);
        std::uint64_t id;
        std::memcpy(&id, data.data() + pos + offsetof(RangeStartRecord, rangeId), sizeof id);
        switch (RecordType(h.type)) {
        case RecordType::Push: out.push_back("push:" + std::to_string(tid)); break;
        case RecordType::Pop: out.push_back("pop:" + std::to_string(tid)); break;
        case RecordType::PushShort:
            out.push_back("short push:" + std::to_string(tid));
            break;
        case RecordType::PopShort:
            out.push_back("short pop:" + std::to_string(tid));
            break;
        case RecordType::RangeStart: out.push_back("start:" + std::to_string(id)); break;
        case RecordType::RangeEnd: out.push_back("end:" + std::to_string(id)); break;
        case RecordType::Mark: out.push_back("mark:" + std::to_string(tid)); break;
        default: out.push_back("?"); break;
        }
        pos += h.size;
    }
    return out;
}

using Texts = std::vector<std::string>;

// Runs one chunk through the keeper: sent or dropped. Returns what is sent (after
// prepare) and fills what the drop keeps and how many records were lost.
std::string handle(PairKeeper& keeper, std::string chunk, bool send, std::string& kept,
                   std::size_t& lost)
{
    std::size_t size = chunk.size();
    lost = keeper.prepare(chunk.data(), size);
    chunk.resize(size);
    if (send)
        keeper.sent();
    else
        lost += keeper.dropped(chunk.data(), chunk.size(), kept);
    return chunk;
}

} // namespace

class TestPairKeeper : public QObject
{
    Q_OBJECT

private slots:
    void droppedFrameLosesWholeRangesOnly()
    {
        PairKeeper keeper;
        std::string kept;
        std::size_t lost = 0;
        // Sent: thread 1 opens A, start/end range 100 begins.
        handle(keeper, push(1, 1) + start(1, 100), true, kept, lost);
        QCOMPARE(lost, std::size_t(0));
        // Dropped: B opens and closes, A closes, a mark, range 200 begins and ends, range 100
        // ends (on thread 3), C opens, range 300 begins.
        handle(keeper,
               push(1, 2) + pop(1) + pop(1) + mark(1) + start(2, 200) + end(2, 200) + end(3, 100) +
                   push(1, 3) + start(1, 300),
               false, kept, lost);
        QCOMPARE(describe(kept), (Texts{"pop:1", "end:100"})); // A and 100 went out: they close
        QCOMPARE(lost, std::size_t(7));
        // Sent: C closes and 300 ends (both lost with their openers), D opens and closes.
        kept.clear();
        const std::string sent = handle(keeper, pop(1) + end(2, 300) + push(1, 4) + pop(1), true, kept, lost);
        QCOMPARE(lost, std::size_t(2));
        QCOMPARE(describe(sent), (Texts{"push:1", "pop:1"}));
        // Nothing is open now: a further pop is a stray pop and stays (the viewer counts it).
        QCOMPARE(describe(handle(keeper, pop(1), true, kept, lost)), (Texts{"pop:1"}));
        QCOMPARE(lost, std::size_t(0));
    }

    // Short and long records open and close the same stack: a short pop may close a long
    // push and the other way round.
    void shortRecordsKeepRangesWholeToo()
    {
        PairKeeper keeper;
        std::string kept;
        std::size_t lost = 0;
        // Sent: A (short) and B (long) open.
        handle(keeper, shortPush(1, 1) + push(1, 2), true, kept, lost);
        // Dropped: C (long) opens and closes short, B closes short, A closes long, D opens short.
        handle(keeper, push(1, 3) + shortPop(1) + shortPop(1) + pop(1) + shortPush(1, 4), false,
               kept, lost);
        QCOMPARE(describe(kept), (Texts{"short pop:1", "pop:1"})); // B and A went out
        QCOMPARE(lost, std::size_t(3));
        // Sent: D closes (lost with its push), E opens and closes.
        kept.clear();
        const std::string sent =
            handle(keeper, shortPop(1) + shortPush(1, 5) + pop(1), true, kept, lost);
        QCOMPARE(lost, std::size_t(1));
        QCOMPARE(describe(sent), (Texts{"short push:1", "pop:1"}));
    }

    void threadsAreApartAndDroppedLevelsNest()
    {
        PairKeeper keeper;
        std::string kept;
        std::size_t lost = 0;
        // Thread 1: A sent; thread 2: X sent.
        handle(keeper, push(1, 1) + push(2, 9), true, kept, lost);
        // Dropped: thread 1 opens B and C; thread 2 closes X.
        handle(keeper, push(1, 2) + push(1, 3) + pop(2), false, kept, lost);
        QCOMPARE(describe(kept), (Texts{"pop:2"}));
        QCOMPARE(lost, std::size_t(2));
        // Sent: C, B close (lost with their pushes), then A closes (it went out: it stays).
        kept.clear();
        const std::string sent = handle(keeper, pop(1) + pop(1) + pop(1), true, kept, lost);
        QCOMPARE(lost, std::size_t(2));
        QCOMPARE(describe(sent), (Texts{"pop:1"}));
    }

    void prepareSettlesEarlierRangesWhateverTheOutcome()
    {
        // A pop of a sent push in a frame that is then dropped is kept once, not twice.
        PairKeeper keeper;
        std::string kept;
        std::size_t lost = 0;
        handle(keeper, push(1, 1) + push(1, 2), true, kept, lost);
        handle(keeper, pop(1), false, kept, lost);
        handle(keeper, pop(1), false, kept, lost);
        QCOMPARE(describe(kept), (Texts{"pop:1", "pop:1"}));
        QCOMPARE(lost, std::size_t(0));
        // Both levels are closed now: the next pop is stray.
        kept.clear();
        handle(keeper, pop(1), false, kept, lost);
        QCOMPARE(describe(kept), (Texts{"pop:1"}));
    }
};

QTEST_APPLESS_MAIN(TestPairKeeper)
#include "tst_pair_keeper.moc"
