// EventColumn (model/event_column.h): a per-call column that owns its values or reads them
// from a store that live snapshots share. Whatever is done to one column, no other column
// reading the same store sees a change.

#include "model/capture.h"
#include "model/event_layout.h"

#include <QtTest>
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
};

QTEST_GUILESS_MAIN(TestEventColumn)
#include "tst_event_column.moc"
