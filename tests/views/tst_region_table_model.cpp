// The region table model and its sort/filter proxy, under QAbstractItemModelTester, fed
// from real fixture files and from small captures built in memory (GPU times, aggregate
// files, threads). Also checks what the details panel shows for summary-only rows.

#include "model/capture_loader.h"
#include "model/stats/capture_summary.h"
#include "support/capture_builder.h"
#include "support/test_helpers.h"
#include "views/display_text.h"
#include "views/region_details_widget.h"
#include "views/region_filter_proxy.h"
#include "views/region_table_model.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QTableView>
#include <QtTest>

using namespace spanscope;
using views::RankSelection;
using views::RegionTableModel;
using Column = views::RegionTableModel::Column;

namespace {

struct Snapshot
{
    std::shared_ptr<const model::Capture> capture;
    std::shared_ptr<const model::CaptureSummary> summary;
};

Snapshot summarize(std::shared_ptr<model::Capture> capture)
{
    auto summary = model::summarizeCapture(*capture);
    return {std::move(capture), std::move(summary)};
}

QStringList columnTexts(const QAbstractItemModel& model, int column, int role = Qt::DisplayRole)
{
    QStringList texts;
    for (int row = 0; row < model.rowCount(); ++row)
        texts << model.index(row, column).data(role).toString();
    return texts;
}

} // namespace

class TestRegionTableModel : public QObject
{
    Q_OBJECT

private slots:
    void pooledAndPerRankRows();
    void sortsOnRawNanoseconds();
    void filtersByRegexOrSubstring();
    void schema3SingleRegion();
    void gpuColumnOnlyWithGpuData();
    void summaryOnlyShowsDashes();
    void threadsAndCustomPercentile();
    void allocationColumnsOnlyWithAllocations();
};

void TestRegionTableModel::allocationColumnsOnlyWithAllocations()
{
    auto capture = testing::buildCapture("parse 0 0 100\nparse 0 200 300\nidle 0 400 500\n");
    RegionTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCapture(capture, model::summarizeCapture(*capture));
    QCOMPARE(model.columnOf(Column::AllocsPerCall), -1);
    QCOMPARE(model.columnOf(Column::BytesPerCall), -1);

    // As a live capture recorded with --alloc has them: exclusive per call.
    auto withAllocs = testing::buildCapture("parse 0 0 100\nparse 0 200 300\nidle 0 400 500\n");
    auto& e = withAllocs->events;
    e.allocCounts.assign(e.size(), 0);
    e.allocBytes.assign(e.size(), 0);
    for (const auto& row : withAllocs->rows)
        if (withAllocs->regionName(row.region) == "parse")
            for (uint64_t i = row.firstEvent; i < row.firstEvent + row.count; ++i) {
                e.allocCounts.mutableData()[i] = i == row.firstEvent ? 3 : 2; // 5 over 2 calls
                e.allocBytes.mutableData()[i] = 1024 * 1024;             // 1 MiB each
            }
    const Snapshot snapshot = summarize(withAllocs);
    model.setCapture(snapshot.capture, snapshot.summary);
    const int allocs = model.columnOf(Column::AllocsPerCall), bytes = model.columnOf(Column::BytesPerCall);
    QVERIFY(allocs > 0 && bytes == allocs + 1);
    QCOMPARE(model.headerData(allocs, Qt::Horizontal).toString(), QStringLiteral("Allocs/call"));
    const int parse = columnTexts(model, 0).indexOf(QStringLiteral("parse"));
    const int idle = columnTexts(model, 0).indexOf(QStringLiteral("idle"));
    QCOMPARE(model.index(parse, allocs).data().toString(), QStringLiteral("2.50"));
    QCOMPARE(model.index(parse, bytes).data().toString(), views::bytesText(1024.0 * 1024.0));
    QCOMPARE(model.index(parse, allocs).data(Qt::ToolTipRole).toString(),
             QStringLiteral("5 allocations, 2,097,152 bytes over 2 calls"));
    QCOMPARE(model.index(idle, allocs).data().toString(), QStringLiteral("0.00"));
    QCOMPARE(model.index(parse, allocs).data(RegionTableModel::SortRole).toDouble(), 2.5);
}

void TestRegionTableModel::pooledAndPerRankRows()
{
    SPANSCOPE_LOAD(loaded, testing::dataFile("scope-profiler/solver-2rank.h5"));
    RegionTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCapture(loaded.capture, loaded.summary);

    QCOMPARE(model.rowCount(), 6);
    QCOMPARE(model.columnCount(), 6); // Region Calls Total Mean p95 Exclusive
    QCOMPARE(model.columnOf(Column::Rank), -1);
    QCOMPARE(model.columnOf(Column::GpuTotal), -1);
    QCOMPARE(model.headerData(0, Qt::Horizontal).toString(), QStringLiteral("Region"));
    // Pooled lines come in first-start order, with every rank's calls.
    QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("solver.run"));
    const int step = columnTexts(model, 0).indexOf(QStringLiteral("solver.step"));
    QVERIFY(step >= 0);
    QCOMPARE(model.index(step, model.columnOf(Column::Calls)).data().toString(),
             QStringLiteral("30"));
    QCOMPARE(model.captureRows(step).size(), size_t(2));

    model.setRankSelection(RankSelection::perRank());
    QCOMPARE(model.rowCount(), 12);
    QCOMPARE(model.columnCount(), 7);
    QCOMPARE(model.columnOf(Column::Rank), 1);
    QCOMPARE(model.headerData(1, Qt::Horizontal).toString(), QStringLiteral("Rank"));

    model.setRankSelection(RankSelection::single(1));
    QCOMPARE(model.rowCount(), 6);
    QCOMPARE(columnTexts(model, 1), QStringList(6, QStringLiteral("1")));
    const int rankStep = columnTexts(model, 0).indexOf(QStringLiteral("solver.step"));
    QCOMPARE(model.index(rankStep, model.columnOf(Column::Calls)).data().toString(),
             QStringLiteral("15"));
    QCOMPARE(model.stats(rankStep).calls, uint64_t(15));

    model.setRankSelection(RankSelection::single(7)); // no such rank
    QCOMPARE(model.rowCount(), 0);
    model.setRankSelection(RankSelection::pooled());
    QCOMPARE(model.rowCount(), 6);
    model.setCapture(nullptr, nullptr);
    QCOMPARE(model.rowCount(), 0);
}

void TestRegionTableModel::sortsOnRawNanoseconds()
{
    SPANSCOPE_LOAD(loaded, testing::dataFile("scope-profiler/solver-2rank.h5"));
    RegionTableModel model;
    views::RegionFilterProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCapture(loaded.capture, loaded.summary);
    const int total = model.columnOf(Column::Total);

    proxy.sort(total, Qt::AscendingOrder);
    // As text "19.16 ms" < "3.086 ms"; as ns it is the other way round.
    QCOMPARE(columnTexts(proxy, 0),
             (QStringList{"solver.setup", "solver.assemble", "solver.linear_solve", "io.write",
                          "solver.step", "solver.run"}));
    qlonglong previous = -1;
    for (int row = 0; row < proxy.rowCount(); ++row) {
        const QVariant raw = proxy.index(row, total).data(RegionTableModel::SortRole);
        QCOMPARE(raw.typeId(), QMetaType::LongLong);
        QVERIFY(raw.toLongLong() >= previous);
        previous = raw.toLongLong();
        // The tooltip gives the exact figure behind the rounded text.
        QVERIFY(proxy.index(row, total).data(Qt::ToolTipRole).toString().endsWith(" ns"));
    }

    proxy.sort(total, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("solver.run"));
    QCOMPARE(proxy.index(0, total).data().toString(), QStringLiteral("21.05 ms"));

    // Means mix units (ms and µs): still numeric.
    const int mean = model.columnOf(Column::Mean);
    proxy.sort(mean, Qt::DescendingOrder);
    QCOMPARE(columnTexts(proxy, 0).mid(0, 3),
             (QStringList{"solver.run", "solver.setup", "solver.step"}));

    // The Rank column of per-rank mode sorts numerically too, and the proxy survives the
    // model reset.
    model.setRankSelection(RankSelection::perRank());
    proxy.sort(model.columnOf(Column::Rank), Qt::DescendingOrder);
    QCOMPARE(proxy.rowCount(), 12);
    QCOMPARE(proxy.index(0, 1).data().toString(), QStringLiteral("1"));
    QCOMPARE(proxy.index(11, 1).data().toString(), QStringLiteral("0"));
}

void TestRegionTableModel::filtersByRegexOrSubstring()
{
    SPANSCOPE_LOAD(loaded, testing::dataFile("scope-profiler/solver-2rank.h5"));
    RegionTableModel model;
    views::RegionFilterProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCapture(loaded.capture, loaded.summary);

    proxy.setFilterText(QStringLiteral("solver"));
    QCOMPARE(proxy.rowCount(), 5);
    proxy.setFilterText(QStringLiteral("STEP")); // case-insensitive
    QCOMPARE(columnTexts(proxy, 0), QStringList{"solver.step"});
    proxy.setFilterText(QStringLiteral("^io\\."));
    QVERIFY(proxy.filterIsRegularExpression());
    QCOMPARE(columnTexts(proxy, 0), QStringList{"io.write"});
    proxy.setFilterText(QStringLiteral("run|setup"));
    QCOMPARE(proxy.rowCount(), 2);
    // Not a valid regular expression: matched as plain text, which nothing contains.
    proxy.setFilterText(QStringLiteral("solver.step("));
    QVERIFY(!proxy.filterIsRegularExpression());
    QCOMPARE(proxy.rowCount(), 0);
    proxy.setFilterText(QString());
    QCOMPARE(proxy.rowCount(), 6);

    // The filter holds across rank changes.
    proxy.setFilterText(QStringLiteral("linear"));
    model.setRankSelection(RankSelection::perRank());
    QCOMPARE(proxy.rowCount(), 2);
}

void TestRegionTableModel::schema3SingleRegion()
{
    SPANSCOPE_LOAD(loaded, testing::dataFile("scope-profiler/compat/schema-3.h5"));
    RegionTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCapture(loaded.capture, loaded.summary);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("solve"));
    const QModelIndex total = model.index(0, model.columnOf(Column::Total));
    QCOMPARE(total.data().toString(), QStringLiteral("33 ns"));
    QCOMPARE(total.data(Qt::ToolTipRole).toString(), QStringLiteral("33 ns"));
    QCOMPARE(total.data(RegionTableModel::SortRole).toLongLong(), 33);
    QCOMPARE(model.index(0, model.columnOf(Column::P95)).data().toString(),
             QStringLiteral("14.8 ns"));
    QCOMPARE(int(total.data(Qt::TextAlignmentRole).toInt() & Qt::AlignRight), int(Qt::AlignRight));

    model.setRankSelection(RankSelection::single(0));
    QCOMPARE(model.rowCount(), 1);
}

void TestRegionTableModel::gpuColumnOnlyWithGpuData()
{
    const Snapshot snapshot = summarize(
        testing::buildCapture("kernel 0 0 100 gpu=40\nkernel 0 200 260 gpu=50\nhost 0 300 400\n"));
    RegionTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCapture(snapshot.capture, snapshot.summary);
    const int gpu = model.columnOf(Column::GpuTotal);
    QCOMPARE(gpu, model.columnCount() - 1);
    QCOMPARE(model.headerData(gpu, Qt::Horizontal).toString(), QStringLiteral("GPU total"));
    const int kernel = columnTexts(model, 0).indexOf(QStringLiteral("kernel"));
    const int host = columnTexts(model, 0).indexOf(QStringLiteral("host"));
    QCOMPARE(model.index(kernel, gpu).data().toString(), QStringLiteral("90 ns"));
    QCOMPARE(model.index(host, gpu).data().toString(), views::kMissingText);
    QCOMPARE(model.index(host, gpu).data(RegionTableModel::SortRole).toLongLong(), -1);
}

void TestRegionTableModel::summaryOnlyShowsDashes()
{
    auto capture = testing::buildCapture("solve 0 0 10\nsolve 1 0 10\n");
    capture->layout = model::StorageLayout::Aggregate;
    capture->eventDataAvailable = false;
    capture->events = {};
    int64_t total = 1000;
    for (auto& row : capture->rows) {
        row.firstEvent = row.count = 0;
        row.aggregate = model::AggregateStats{4, total, 100, 400, total / 2};
        total += 1000;
    }
    const Snapshot snapshot = summarize(capture);
    QVERIFY(snapshot.summary->pooled(0).summaryOnly);

    RegionTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCapture(snapshot.capture, snapshot.summary);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.index(0, model.columnOf(Column::Calls)).data().toString(), QStringLiteral("8"));
    QCOMPARE(model.index(0, model.columnOf(Column::Total)).data().toString(),
             QStringLiteral("3.000 µs"));
    QCOMPARE(model.index(0, model.columnOf(Column::P95)).data().toString(), views::kMissingText);
    QCOMPARE(
        model.index(0, model.columnOf(Column::P95)).data(RegionTableModel::SortRole).toDouble(),
        -1.0);
    QVERIFY(model.index(0, 0)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("per-call data unavailable (aggregate file)")));

    views::RegionDetailsWidget details;
    details.setCapture(snapshot.capture);
    details.showRegion(0, model.captureRows(0), model.stats(0), std::nullopt);
    using Field = views::RegionDetailsWidget::Field;
    QCOMPARE(details.regionTitle(), QStringLiteral("solve"));
    QCOMPARE(details.fieldText(Field::Calls), QStringLiteral("8"));
    QCOMPARE(details.fieldText(Field::Minimum), QStringLiteral("100 ns"));
    QCOMPARE(details.fieldText(Field::Exclusive), QStringLiteral("1.500 µs"));
    for (Field missing :
         {Field::P50, Field::P95, Field::P99, Field::CustomPercentile, Field::StdDev, Field::First,
          Field::Last, Field::StartMin, Field::EndMax, Field::Unclosed})
        QCOMPARE(details.fieldText(missing), views::kMissingText);
    auto* banner = details.findChild<QLabel*>(QStringLiteral("summaryOnlyBanner"));
    QVERIFY(banner);
    QVERIFY(!banner->isHidden());
    QVERIFY(banner->text().contains(QStringLiteral("per-call data unavailable (aggregate file)")));
}

void TestRegionTableModel::threadsAndCustomPercentile()
{
    // Threads: the details panel's per-thread table and the arbitrary percentile.
    const Snapshot snapshot =
        summarize(testing::buildCapture("work 0 0 10 thread=0\nwork 0 20 40 thread=1\nwork 0 50 80 "
                                        "thread=1\nwork 1 0 40 thread=0\n"));
    RegionTableModel model;
    model.setCapture(snapshot.capture, snapshot.summary);
    QCOMPARE(model.rowCount(), 1);
    views::RegionDetailsWidget details;
    details.setCapture(snapshot.capture);
    details.showRegion(0, model.captureRows(0), model.stats(0), std::nullopt);
    using Field = views::RegionDetailsWidget::Field;
    QCOMPARE(details.fieldText(Field::Calls), QStringLiteral("4"));
    details.setCustomPercentile(0.0);
    QCOMPARE(details.fieldText(Field::CustomPercentile), QStringLiteral("10 ns"));
    details.setCustomPercentile(100.0);
    QCOMPARE(details.fieldText(Field::CustomPercentile), QStringLiteral("40 ns"));
    details.setCustomPercentile(50.0);
    QCOMPARE(details.fieldText(Field::CustomPercentile), details.fieldText(Field::P50));
    auto* threads = details.findChild<QTableView*>(QStringLiteral("threadBreakdown"));
    QVERIFY(threads);
    QCOMPARE(threads->model()->rowCount(), 3); // rank 0 threads 0 and 1, rank 1 thread 0

    model.setRankSelection(RankSelection::single(1));
    details.showRegion(0, model.captureRows(0), model.stats(0), 1);
    QCOMPARE(details.fieldText(Field::Calls), QStringLiteral("1"));
    QCOMPARE(details.fieldText(Field::Imbalance), views::kMissingText);
    QCOMPARE(threads->model()->rowCount(), 1);
}

QTEST_MAIN(TestRegionTableModel)
#include "tst_region_table_model.moc"
