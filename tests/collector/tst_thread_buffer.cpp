// A thread's queue of blocks (collector/thread_buffer.h) on its own: records come out whole
// and in order across blocks, the cap drops and counts, the sender maps blocks ahead of a
// busy thread only (as many as it fills between drains), and lossless mode keeps the large
// blocks a burst made.
#include "collector/thread_buffer.h"

#include <QTest>
#include <cstdint>
#include <string>

using spanscope::collector::QueueBudget;
using spanscope::collector::ThreadBuffer;

namespace {

struct Record
{
    std::uint64_t sequence;
    std::uint64_t padding[2];
};

struct Collected
{
    std::string bytes;
    void append(const char* data, std::size_t n) { bytes.append(data, n); }
};

void noWake() {}

// Writes `count` records numbered from `first`; returns how many were written.
std::uint64_t write(ThreadBuffer& buffer, std::uint64_t first, std::uint64_t count)
{
    std::uint64_t written = 0;
    for (std::uint64_t i = 0; i < count; ++i)
        written += buffer.emplace<Record>(0, [&](Record& r) {
            r.sequence = first + i;
            r.padding[0] = r.padding[1] = 0;
        });
    return written;
}

// Checks that `bytes` holds records first, first+1, ... and returns how many.
std::uint64_t checkSequence(const std::string& bytes, std::uint64_t first)
{
    if (bytes.size() % sizeof(Record) != 0)
        return UINT64_MAX;
    const auto* records = reinterpret_cast<const Record*>(bytes.data());
    const std::uint64_t n = bytes.size() / sizeof(Record);
    for (std::uint64_t i = 0; i < n; ++i)
        if (records[i].sequence != first + i)
            return UINT64_MAX;
    return n;
}

constexpr std::uint64_t kPerSmallBlock = (ThreadBuffer::kSmallBlockBytes - 64) / sizeof(Record);

} // namespace

class TestThreadBuffer : public QObject
{
    Q_OBJECT

private slots:
    void recordsComeOutWholeAndInOrderAcrossBlocks()
    {
        QueueBudget budget;
        ThreadBuffer buffer(1, 0, &noWake, budget);
        Collected out;
        std::uint64_t next = 0;
        for (int round = 0; round < 20; ++round) { // 20 rounds of 2.5 blocks, drained between
            const std::uint64_t n = kPerSmallBlock * 5 / 2;
            QCOMPARE(write(buffer, next, n), n);
            next += n;
            buffer.drain(out);
        }
        QCOMPARE(checkSequence(out.bytes, 0), next);
        QCOMPARE(buffer.dropped(), std::uint64_t(0));
    }

    void theCapDropsAndCountsWholeRecords()
    {
        QueueBudget budget;
        budget.capBytes = 4 * ThreadBuffer::kSmallBlockBytes;
        ThreadBuffer buffer(1, 0, &noWake, budget);
        const std::uint64_t tried = kPerSmallBlock * 10;
        const std::uint64_t written = write(buffer, 0, tried);
        QVERIFY(written < tried);
        QCOMPARE(buffer.dropped(), tried - written);
        QVERIFY(budget.bytes.load() <= budget.capBytes);
        Collected out;
        buffer.drain(out);
        QCOMPARE(checkSequence(out.bytes, 0), written);
    }

    // The sender maps blocks ahead for a thread that records steadily, so that its thread
    // does not stop for a mapping; a thread with a few calls gets nothing beyond its first
    // block.
    void theSenderMapsBlocksAheadOfABusyThreadOnly()
    {
        QueueBudget budget;
        ThreadBuffer quiet(1, 0, &noWake, budget);
        QCOMPARE(write(quiet, 0, 10), std::uint64_t(10));
        const std::uint64_t oneBlock = budget.bytes.load();
        Collected out;
        quiet.drain(out);
        quiet.provision();
        QCOMPARE(budget.bytes.load(), oneBlock);

        ThreadBuffer busy(2, 1, &noWake, budget);
        const std::uint64_t n = kPerSmallBlock * 3 / 4;
        QCOMPARE(write(busy, 0, n), n);
        const std::uint64_t before = budget.bytes.load();
        busy.provision();
        QCOMPARE(budget.bytes.load(),
                 before + ThreadBuffer::kSpareBlocks * ThreadBuffer::kSmallBlockBytes);
        busy.provision(); // spares are there already: nothing more
        QCOMPARE(budget.bytes.load(),
                 before + ThreadBuffer::kSpareBlocks * ThreadBuffer::kSmallBlockBytes);
        // The spares are used before anything new is mapped.
        QCOMPARE(write(busy, n, kPerSmallBlock * 3), kPerSmallBlock * 3);
        QCOMPARE(budget.bytes.load(),
                 before + ThreadBuffer::kSpareBlocks * ThreadBuffer::kSmallBlockBytes);
        Collected busyOut;
        busy.drain(busyOut);
        QCOMPARE(checkSequence(busyOut.bytes, 0), n + kPerSmallBlock * 3);
        // Never past the small blocks a thread may have.
        for (int i = 0; i < 10; ++i) {
            busy.provision();
            write(busy, 0, kPerSmallBlock * 4);
            busy.drain(busyOut);
        }
        QVERIFY(budget.bytes.load() <= oneBlock + ThreadBuffer::kSmallBlocks * ThreadBuffer::kSmallBlockBytes
                                           + ThreadBuffer::kKeptLargeBlocks * ThreadBuffer::kLargeBlockBytes);
    }

    // A thread that fills blocks at a steady rate gets as many mapped ahead as it filled
    // between two drains (plus the usual spares), so that the next interval, which will
    // likely take as many, finds them ready; never past the small blocks a thread may have.
    void theSenderMapsAheadWhatTheThreadFilledSinceTheLastDrain()
    {
        constexpr std::size_t kBlock = ThreadBuffer::kSmallBlockBytes;
        QueueBudget budget;
        ThreadBuffer busy(1, 0, &noWake, budget);
        std::uint64_t next = 0;
        const std::uint64_t six = kPerSmallBlock * 6 + 1; // six blocks sealed, a seventh begun
        QCOMPARE(write(busy, next, six), six);
        next += six;
        Collected out;
        busy.drain(out); // six blocks finished and handed back
        QCOMPARE(budget.bytes.load(), std::uint64_t(7 * kBlock));
        busy.provision();
        QCOMPARE(budget.bytes.load(), std::uint64_t((7 + ThreadBuffer::kSpareBlocks) * kBlock));
        // The next ten blocks' worth finds its blocks mapped already.
        const std::uint64_t ten = kPerSmallBlock * 10;
        QCOMPARE(write(busy, next, ten), ten);
        next += ten;
        QCOMPARE(budget.bytes.load(), std::uint64_t((7 + ThreadBuffer::kSpareBlocks) * kBlock));
        busy.drain(out); // ten handed back: ten free, four more mapped
        busy.provision();
        QCOMPARE(budget.bytes.load(), std::uint64_t((11 + ThreadBuffer::kSpareBlocks) * kBlock));
        const std::uint64_t fourteen = kPerSmallBlock * 14;
        QCOMPARE(write(busy, next, fourteen), fourteen);
        next += fourteen;
        busy.drain(out);
        busy.provision(); // would want 18 free: stops at the small blocks a thread may have
        QCOMPARE(budget.bytes.load(), std::uint64_t(ThreadBuffer::kSmallBlocks * kBlock));
        QCOMPARE(checkSequence(out.bytes, 0), next);
        QCOMPARE(busy.dropped(), std::uint64_t(0));
    }

    // A burst larger than the small blocks: by default the sender unmaps the large blocks
    // past kKeptLargeBlocks once it has read them; lossless mode keeps more for the next
    // burst.
    void losslessModeKeepsTheLargeBlocksOfABurst_data()
    {
        QTest::addColumn<bool>("lossless");
        QTest::newRow("default") << false;
        QTest::newRow("lossless") << true;
    }
    void losslessModeKeepsTheLargeBlocksOfABurst()
    {
        QFETCH(bool, lossless);
        QueueBudget budget;
        budget.lossless = lossless;
        budget.capBytes = 1ull << 30;
        ThreadBuffer buffer(1, 0, &noWake, budget);
        const std::uint64_t burst = 40 * ThreadBuffer::kLargeBlockBytes / sizeof(Record);
        QCOMPARE(write(buffer, 0, burst), burst);
        Collected out;
        buffer.drain(out);
        QCOMPARE(checkSequence(out.bytes, 0), burst);
        const std::uint64_t small = ThreadBuffer::kSmallBlocks * ThreadBuffer::kSmallBlockBytes;
        const std::uint64_t large = (budget.bytes.load() - small) / ThreadBuffer::kLargeBlockBytes;
        if (lossless) // every block of the burst stays mapped, for the next one
            QCOMPARE(budget.bytes.load(), budget.peak.load());
        else // the kept ones and the one being written
            QCOMPARE(large, std::uint64_t(ThreadBuffer::kKeptLargeBlocks + 1));
        // The next burst of the same size maps nothing new in lossless mode.
        const std::uint64_t peak = budget.peak.load();
        QCOMPARE(write(buffer, burst, burst / 2), burst / 2);
        if (lossless)
            QCOMPARE(budget.peak.load(), peak);
    }
};

QTEST_APPLESS_MAIN(TestThreadBuffer)
#include "tst_thread_buffer.moc"
