// The metadata and per-thread item models under QAbstractItemModelTester.

#include "model/stats/nesting.h"
#include "support/capture_builder.h"
#include "support/test_helpers.h"
#include "model/stats/capture_summary.h"
#include "views/metadata_model.h"
#include "views/region_details_widget.h"
#include "views/thread_breakdown_model.h"

#include <QAbstractItemModelTester>

using namespace spanscope;
using namespace spanscope::testing;

class TestSmallModels : public QObject
{
    Q_OBJECT

private slots:
    void metadataFromRealFile()
    {
        SPANSCOPE_LOAD(loaded, dataFile("scope-profiler/solver-2rank.h5"));
        views::MetadataModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setCapture(loaded.capture);
        QCOMPARE(model.rowCount(), int(loaded.capture->metadata.size()));
        QCOMPARE(model.columnCount(), 2);
        bool found = false;
        for (int row = 0; row < model.rowCount(); ++row)
            if (model.index(row, views::MetadataModel::KeyColumn).data().toString() == "mpi_size") {
                QCOMPARE(model.index(row, views::MetadataModel::ValueColumn).data().toString(), QString("2"));
                found = true;
            }
        QVERIFY(found);
        model.setCapture(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void threadBreakdownRows()
    {
        auto capture = buildCapture(R"(
outer 0 0 100 thread=0
outer 0 0 50 thread=1
inner 0 10 20 thread=1
)");
        model::computeNesting(*capture);
        const uint32_t rows[] = {0};
        views::ThreadBreakdownModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setBreakdown(model::threadBreakdown(*capture, rows));
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(views::ThreadBreakdownModel::ColumnCount));
        QCOMPARE(model.index(1, views::ThreadBreakdownModel::CallsColumn).data().toString(), QString("1"));
        model.setBreakdown({});
        QCOMPARE(model.rowCount(), 0);
    }

    // Regions above the synchronous limit get their sorted durations (custom percentile)
    // on a worker; the field says so until they arrive, then shows the right value.
    void largeRegionDetailComputedOffThread()
    {
        auto capture = buildCapture("");
        capture->regionNames.push_back(capture->strings.intern("big"));
        const int n = 300'000;
        for (int i = 0; i < n; ++i) {
            capture->events.start.push_back(int64_t(i) * 10);
            capture->events.end.push_back(int64_t(i) * 10 + 1 + i % 5); // durations 1..5
        }
        model::RegionRow row;
        row.count = uint64_t(n);
        capture->rows.push_back(row);
        capture->rowExclusive.assign(1, -1);
        model::computeNesting(*capture);
        auto summary = model::summarizeCapture(*capture);

        views::RegionDetailsWidget details;
        details.setCapture(capture);
        details.setCustomPercentile(100.0);
        const uint32_t rows[] = {0};
        details.showRegion(0, rows, summary->perRow[0], std::nullopt);
        using Field = views::RegionDetailsWidget::Field;
        QVERIFY(details.fieldText(Field::CustomPercentile).contains("computing"));
        QTRY_COMPARE(details.fieldText(Field::CustomPercentile), QString("5 ns"));
    }

    // A file without calls says so; one with calls asks for a region.
    void detailsOfAFileWithoutCalls()
    {
        views::RegionDetailsWidget details;
        details.setCapture(buildCapture(""));
        QVERIFY2(details.noRegionText().startsWith("This file has no calls"),
                 qPrintable(details.noRegionText()));
        details.setCapture(buildCapture("solve 0 0 10\n"));
        QVERIFY(details.noRegionText().startsWith("Select a region"));
    }
};

QTEST_MAIN(TestSmallModels)
#include "tst_small_models.moc"
