// The metadata and per-thread item models under QAbstractItemModelTester.

#include "model/stats/nesting.h"
#include "support/capture_builder.h"
#include "support/test_helpers.h"
#include "views/metadata_model.h"
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
};

QTEST_MAIN(TestSmallModels)
#include "tst_small_models.moc"
