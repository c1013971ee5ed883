// Flows: the flow table sorted and followed both ways, updated in place as a live stream's
// is, and the flows with an end in a time window (TimelineIndex::flowsIn, from the flows
// by the start of each end, FlowTimes).

#include "model/stats/nesting.h"
#include "model/tables/flow_table.h"
#include "model/tables/flow_times.h"
#include "model/timeline/timeline_index.h"
#include "support/capture_builder.h"

#include <QtTest>

#include <algorithm>
#include <numeric>
#include <random>
#include <tuple>

using namespace spanscope;
using namespace spanscope::testing;

class TestFlowTable : public QObject
{
    Q_OBJECT

private slots:
    // Flows added in any order (repeats, three kinds) come out sorted by (from, to), ties in
    // the order added, and are found from either end; also through a new event numbering.
    void flowTableIsSortedAndFollowedBothWays()
    {
        std::mt19937 random(17);
        for (const bool renumbered : {false, true}) {
            struct Added
            {
                uint32_t from, to;
                model::FlowKind kind;
            };
            std::vector<Added> added;
            std::vector<uint32_t> newIndexOf(300);
            std::iota(newIndexOf.begin(), newIndexOf.end(), 0u);
            if (renumbered)
                std::shuffle(newIndexOf.begin(), newIndexOf.end(), random);
            model::FlowTable table;
            for (int i = 0; i < 3000; ++i) {
                const Added a{uint32_t(random() % 300), uint32_t(random() % 300), model::FlowKind(random() % 3)};
                added.push_back(a);
                table.add(a.from, a.to, a.kind);
            }
            table.finish(renumbered ? &newIndexOf : nullptr);
            for (Added& a : added)
                a.from = newIndexOf[a.from], a.to = newIndexOf[a.to];
            std::stable_sort(added.begin(), added.end(), [](const Added& a, const Added& b) {
                return a.from != b.from ? a.from < b.from : a.to < b.to;
            });
            QCOMPARE(table.size(), added.size());
            for (size_t row = 0; row < added.size(); ++row) {
                QCOMPARE(table.from(row), added[row].from);
                QCOMPARE(table.to(row), added[row].to);
                QCOMPARE(int(table.kind(row)), int(added[row].kind));
            }
            for (uint32_t event = 0; event < 300; ++event) {
                std::vector<size_t> out, in;
                for (size_t row = 0; row < added.size(); ++row) {
                    if (added[row].from == event)
                        out.push_back(row);
                    if (added[row].to == event)
                        in.push_back(row);
                }
                QCOMPARE(table.outgoing(event), out);
                QCOMPARE(table.incoming(event), in);
            }
        }
    }

    // A finished table updated in place (as a live stream's is, from snapshot to snapshot):
    // rows removed (one of several alike; some not in the table) and added (alike ones
    // among them), round after round, hold what a table sorted afresh from the same flows
    // holds, row for row, followed both ways; the copy it was updated from is unchanged;
    // and its flows by the start of each end, updated alike, are those made afresh.
    void aFlowTableUpdatedInPlaceEqualsOneSortedAfresh()
    {
        using Flow = model::FlowTable::Flow;
        std::mt19937 random(29);
        std::vector<int64_t> startOf(400);
        for (auto& start : startOf)
            start = int64_t(random() % 1000); // starts alike too
        auto start = [&](uint32_t event) { return startOf[event]; };
        auto randomFlow = [&] {
            return Flow{uint32_t(random() % 60), uint32_t(random() % 60), model::FlowKind(random() % 3)};
        };
        model::FlowTable table;
        std::vector<Flow> rows; // the table's rows, as a table sorted afresh has them
        for (int i = 0; i < 500; ++i) {
            const Flow f = randomFlow();
            table.add(f.from, f.to, f.kind);
            rows.push_back(f);
        }
        table.finish();
        model::FlowTimes times = model::FlowTimes::make(table, start);
        auto byEnds = [](const Flow& a, const Flow& b) { return std::tie(a.from, a.to) < std::tie(b.from, b.to); };
        std::stable_sort(rows.begin(), rows.end(), byEnds);
        for (int round = 0; round < 30; ++round) {
            std::vector<Flow> removed, added;
            for (int i = 0; i < 20; ++i)
                removed.push_back(random() % 4 == 0 || rows.empty() ? randomFlow() : rows[random() % rows.size()]);
            for (int i = 0; i < 25; ++i)
                added.push_back(i > 0 && random() % 5 == 0 ? added.back() : randomFlow());
            // Afresh: the rows left (the first alike one of each removed), then the added.
            std::vector<Flow> expected = rows;
            for (const Flow& gone : removed)
                if (const auto it = std::find(expected.begin(), expected.end(), gone); it != expected.end())
                    expected.erase(it);
            expected.insert(expected.end(), added.begin(), added.end());
            std::stable_sort(expected.begin(), expected.end(), byEnds);
            const model::FlowTable before = table;
            times.update(table.update(removed, added), added, start);
            QCOMPARE(before.size(), rows.size());
            for (size_t row = 0; row < rows.size(); ++row)
                QVERIFY(before.from(row) == rows[row].from && before.to(row) == rows[row].to
                        && before.kind(row) == rows[row].kind);
            rows = expected;
            QCOMPARE(table.size(), rows.size());
            model::FlowTable afresh;
            for (const Flow& f : rows)
                afresh.add(f.from, f.to, f.kind);
            afresh.finish();
            for (size_t row = 0; row < rows.size(); ++row)
                QVERIFY2(table.from(row) == rows[row].from && table.to(row) == rows[row].to
                             && table.kind(row) == rows[row].kind,
                         qPrintable(QString("round %1 row %2").arg(round).arg(row)));
            for (uint32_t event = 0; event < 60; ++event) {
                QCOMPARE(table.incoming(event), afresh.incoming(event));
                QCOMPARE(table.outgoing(event), afresh.outgoing(event));
            }
            const model::FlowTimes made = model::FlowTimes::make(afresh, start);
            QVERIFY(times.byFrom().values() == made.byFrom().values());
            QVERIFY(times.byTo().values() == made.byTo().values());
        }
    }

    // The flows in a time window: each flow whose start end lies in it, then each whose
    // other end does (and not its start), each part by the time of that end.
    void flowsInAWindowAreThoseWithAnEndInIt()
    {
        std::mt19937 random(23);
        std::string text;
        for (int i = 0; i < 400; ++i) {
            const int start = int(random() % 100000);
            text += "r" + std::to_string(i % 7) + " 0 " + std::to_string(start) + " " + std::to_string(start + 50)
                    + " thread=" + std::to_string(i % 3) + "\n";
        }
        auto capture = buildCapture(text);
        model::computeNesting(*capture);
        for (int i = 0; i < 1500; ++i)
            capture->flows.add(uint32_t(random() % 400), uint32_t(random() % 400), model::FlowKind::Launch);
        capture->flows.finish();
        const auto index = model::TimelineIndex::build(*capture);
        const auto& start = capture->events.start;
        const auto& flows = capture->flows;
        for (int window = 0; window < 50; ++window) {
            const int64_t t0 = int64_t(random() % 100000), t1 = t0 + int64_t(random() % 30000);
            bool truncated = true;
            const auto found = index->flowsIn(*capture, t0, t1, SIZE_MAX, truncated);
            QVERIFY(!truncated);
            auto in = [&](uint32_t event) { return start[event] >= t0 && start[event] < t1; };
            std::vector<uint32_t> byFrom, byTo;
            for (uint32_t f = 0; f < flows.size(); ++f) {
                if (in(flows.from(f)))
                    byFrom.push_back(f);
                else if (in(flows.to(f)))
                    byTo.push_back(f);
            }
            QCOMPARE(found.size(), byFrom.size() + byTo.size());
            std::vector<uint32_t> firstPart(found.begin(), found.begin() + std::ptrdiff_t(byFrom.size()));
            std::vector<uint32_t> secondPart(found.begin() + std::ptrdiff_t(byFrom.size()), found.end());
            for (size_t k = 1; k < firstPart.size(); ++k)
                QVERIFY(start[flows.from(firstPart[k - 1])] <= start[flows.from(firstPart[k])]);
            for (size_t k = 1; k < secondPart.size(); ++k)
                QVERIFY(start[flows.to(secondPart[k - 1])] <= start[flows.to(secondPart[k])]);
            std::sort(firstPart.begin(), firstPart.end());
            std::sort(secondPart.begin(), secondPart.end());
            QCOMPARE(firstPart, byFrom);
            QCOMPARE(secondPart, byTo);
        }
    }
};

QTEST_GUILESS_MAIN(TestFlowTable)
#include "tst_flow_table.moc"
