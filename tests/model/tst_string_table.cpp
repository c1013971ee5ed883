// The interned string table: one id per distinct string, whatever order and however many.

#include "model/string_table.h"

#include <QTest>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace spanscope;

class TestStringTable : public QObject
{
    Q_OBJECT

private slots:
    void emptyStringIsIdZero()
    {
        model::StringTable table;
        QCOMPARE(table.size(), size_t(1));
        QCOMPARE(table.intern("").value, 0u);
        QCOMPARE(table.text(model::NameId{0}), std::string());
    }

    // Enough strings to grow the index many times, with prefixes in common, bytes of every
    // value (embedded NULs included) and lookups interleaved with inserts.
    void everyDistinctStringGetsOneDenseId()
    {
        std::mt19937 random(11);
        std::vector<std::string> texts;
        for (int i = 0; i < 200000; ++i) {
            std::string text = "aten::add, seq = " + std::to_string(i);
            if (i % 7 == 0) { // a byte of any value after a separator: still distinct
                text.push_back('|');
                text.push_back(char(random() % 256));
            }
            texts.push_back(std::move(text));
        }
        texts.push_back(std::string("with\0nul", 8));
        texts.push_back(std::string("with\0NUL", 8));
        model::StringTable table;
        table.reserve(1000); // less than needed: the index still grows
        std::vector<uint32_t> ids;
        for (size_t i = 0; i < texts.size(); ++i) {
            ids.push_back(table.intern(texts[i]).value);
            if (i % 3 == 0) { // an earlier one again: same id, nothing added
                const size_t earlier = random() % (i + 1);
                QCOMPARE(table.intern(texts[earlier]).value, ids[earlier]);
            }
        }
        for (size_t i = 0; i < texts.size(); ++i) {
            QCOMPARE(table.text(model::NameId{ids[i]}), texts[i]);
            QCOMPARE(table.intern(texts[i]).value, ids[i]);
        }
        QCOMPARE(table.size(), size_t(texts.size() + 1)); // every text distinct here
        QCOMPARE(ids.front(), 1u);
        QCOMPARE(ids.back(), uint32_t(texts.size()));
    }

    // A copy looks strings up in its own storage: it stays whole when the original goes.
    void aCopyOutlivesItsOriginal()
    {
        std::optional<model::StringTable> original(std::in_place);
        const auto id = original->intern("region").value;
        model::StringTable copy = *original;
        original.reset();
        QCOMPARE(copy.intern("region").value, id);
        QCOMPARE(copy.intern("another").value, id + 1);
        QCOMPARE(copy.text(model::NameId{id}), std::string("region"));
    }
};

QTEST_GUILESS_MAIN(TestStringTable)
#include "tst_string_table.moc"
