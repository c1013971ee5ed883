// EventColumn (model/event_column.h): a per-call column that owns its values or reads them
// from a store that live snapshots share. Whatever is done to one column, no other column
// reading the same store sees a change.

#include "model/capture.h"
#include "model/event_layout.h"

#include <QtTest>
#include <algorithm>
#include <sys/mman.h>
#include <unistd.h>
#include <memory>
#include <numeric>
#include <vector>

using namespace spanscope::model;

namespace {

// A store holding 0, 1, ..., written - 1, reserved for `capacity` values.
std::shared_ptr<SharedColumnStore<int64_t>> storeOf(size_t written, size_t capacity)
{
    auto store = std::make_shared<SharedColumnStore<int64_t>>(capacity);
    std::iota(store->data(), store->data() + written, int64_t(0));
    return store;
}

std::vector<int64_t> valuesOf(const EventColumn<int64_t>& column)
{
    return {column.begin(), column.end()};
}

} // namespace

class TestEventColumn : public QObject
{
    Q_OBJECT

private slots:
    void anOwnedColumnBehavesAsAVector()
    {
        EventColumn<int64_t> column;
        QVERIFY(column.empty());
        column.resize(3, 7);
        column.push_back(9);
        column.insert(column.begin() + 1, size_t(2), int64_t(5));
        QCOMPARE(valuesOf(column), (std::vector<int64_t>{7, 5, 5, 7, 7, 9}));
        column.mutableData()[0] = 1;
        column.set(5, 2);
        QCOMPARE(column.front(), int64_t(1));
        QCOMPARE(column.back(), int64_t(2));
        const EventColumn<int64_t> copy = column;
        column.assign(2, -1);
        QCOMPARE(valuesOf(copy), (std::vector<int64_t>{1, 5, 5, 7, 7, 2}));
        QCOMPARE(valuesOf(column), (std::vector<int64_t>{-1, -1}));
        QVERIFY(!column.shared() && !copy.shared());
        EventColumn<int64_t> moved = std::move(column);
        QCOMPARE(moved.size(), size_t(2));
        QVERIFY(column.empty());
    }

    // Two snapshots' columns over one store: the later one sees what the writer appended,
    // the earlier one keeps its length, and changing either copies it first.
    void columnsSharingAStoreNeverChangeEachOther()
    {
        auto store = storeOf(4, 16);
        const auto first = EventColumn<int64_t>::sharing(store, 4);
        store->data()[4] = 40; // the next snapshot's writer appends past every column's end
        store->data()[5] = 50;
        auto second = EventColumn<int64_t>::sharing(store, 6);
        QVERIFY(first.shared() && second.shared());
        QCOMPARE(valuesOf(first), (std::vector<int64_t>{0, 1, 2, 3}));
        QCOMPARE(valuesOf(second), (std::vector<int64_t>{0, 1, 2, 3, 40, 50}));
        QCOMPARE(first.data(), second.data()); // read in place, not copied

        EventColumn<int64_t> copy = second; // a copy owns its values
        QVERIFY(!copy.shared());
        copy.set(0, 100);
        QCOMPARE(second[0], int64_t(0));

        second.mutableData()[1] = -1; // copied first: the store is left as it was
        QVERIFY(!second.shared());
        QCOMPARE(second[1], int64_t(-1));
        QCOMPARE(first[1], int64_t(1));
        QCOMPARE(store->data()[1], int64_t(1));

        auto third = EventColumn<int64_t>::sharing(store, 6);
        third.push_back(60);
        third.resize(8, 9);
        QCOMPARE(valuesOf(third), (std::vector<int64_t>{0, 1, 2, 3, 40, 50, 60, 9}));
        QCOMPARE(valuesOf(first), (std::vector<int64_t>{0, 1, 2, 3}));

        auto fourth = EventColumn<int64_t>::sharing(store, 6);
        fourth.insert(fourth.end(), first.begin(), first.end()); // from another column of the store
        QCOMPARE(valuesOf(fourth), (std::vector<int64_t>{0, 1, 2, 3, 40, 50, 0, 1, 2, 3}));
        fourth.assign(fourth.begin() + 4, fourth.begin() + 6); // from itself
        QCOMPARE(valuesOf(fourth), (std::vector<int64_t>{40, 50}));
        QCOMPARE(valuesOf(first), (std::vector<int64_t>{0, 1, 2, 3}));
    }

    // A column keeps its store alive: a snapshot outlives the memo that wrote it.
    void aColumnKeepsItsStore()
    {
        EventColumn<int64_t> column;
        {
            auto store = storeOf(3, 3);
            column = EventColumn<int64_t>::sharing(store, 3);
        }
        QCOMPARE(valuesOf(column), (std::vector<int64_t>{0, 1, 2}));
    }

    // Laying out a capture whose columns share a store moves copies: the store, which
    // other snapshots read, keeps its values.
    void movingEventsLeavesTheStoreAlone()
    {
        auto store = storeOf(4, 8);
        Capture c;
        c.events.start = EventColumn<int64_t>::sharing(store, 4);
        c.events.end = EventColumn<int64_t>::sharing(store, 4);
        moveEvents(c, {3, 2, 1, 0}, 4);
        QCOMPARE(valuesOf(c.events.start), (std::vector<int64_t>{3, 2, 1, 0}));
        QVERIFY(!c.events.start.shared());
        QCOMPARE(std::vector<int64_t>(store->data(), store->data() + 4),
                 (std::vector<int64_t>{0, 1, 2, 3}));
    }

    // After an update appended to a store, the pages of the next updates' values are
    // faulted in on the background thread, which holds the store until done: the next
    // stretch past its end (twice what was appended, and 64 Ki values more) is resident,
    // what lies far past it and the store's start are not, and nothing it holds changes.
    void theNextValuesOfAStoreAreFaultedInAhead()
    {
        const size_t page = size_t(sysconf(_SC_PAGESIZE));
        void* probe = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        QVERIFY(probe != MAP_FAILED);
        const bool populates = madvise(probe, page, MADV_POPULATE_WRITE) == 0;
        munmap(probe, page);
        if (!populates)
            QSKIP("this kernel cannot fault pages in ahead (MADV_POPULATE_WRITE, Linux 5.14)");

        // 64 MiB of uint32_t, mapped; the last 100,000 of 4 Mi values written, ending at
        // 16 MiB (huge-page aligned: a transparent huge page faulted in covers only its 2 MiB).
        constexpr size_t kCapacity = size_t(16) << 20, kSize = size_t(4) << 20, kAppended = 100'000;
        auto store = std::make_shared<SharedColumnStore<uint32_t>>(kCapacity);
        std::fill(store->data() + kSize - kAppended, store->data() + kSize, 7u);
        auto resident = [&](size_t from, size_t values) {
            const auto begin = reinterpret_cast<uintptr_t>(store->data() + from) / page * page;
            const auto end = reinterpret_cast<uintptr_t>(store->data() + from + values);
            std::vector<unsigned char> pages((end - begin + page - 1) / page);
            if (mincore(reinterpret_cast<void*>(begin), end - begin, pages.data()) != 0)
                return false;
            return std::all_of(pages.begin(), pages.end(), [](unsigned char p) { return (p & 1) != 0; });
        };
        QVERIFY(!resident(kSize, 1));
        prefaultStoreAhead(store, kSize, kAppended);
        const size_t ahead = 2 * kAppended + (size_t(1) << 16);
        QTRY_VERIFY(resident(kSize, ahead)); // waits on the background thread
        QTRY_COMPARE(store.use_count(), 1L); // let go of once done
        QVERIFY(!resident(kSize + ahead + (size_t(2) << 20), 1));
        QVERIFY(!resident(0, 1));
        QVERIFY(std::all_of(store->data() + kSize - kAppended, store->data() + kSize, [](uint32_t v) { return v == 7; }));
    }
};

QTEST_GUILESS_MAIN(TestEventColumn)
#include "tst_event_column.moc"
