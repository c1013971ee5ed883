// Every layout the reader accepts: real files from scope-profiler and files written here
// with each optional column, filter, chunking and string storage.

#include "support/h5_builder.h"
#include "support/test_helpers.h"

using namespace spanscope;
using namespace spanscope::testing;

class TestRegionFileReader : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string path(const char* name) const { return (m_dir.path() + "/" + name).toStdString(); }

    // Three calls of "solve" as in scope-profiler's compat fixtures.
    static std::vector<ColumnarRow> solveRows()
    {
        ColumnarRow row;
        row.region = "solve";
        row.starts = {10, 20, 40};
        row.ends = {15, 33, 55};
        row.sourceFile = "solver.py";
        row.sourceLine = 7;
        row.tagsJson = R"(["golden"])";
        return {row};
    }

    void checkSolve(const model::Capture& capture)
    {
        QCOMPARE(capture.rows.size(), size_t(1));
        QCOMPARE(capture.regionName(0), std::string("solve"));
        QCOMPARE(toVector(capture.events.start), (std::vector<int64_t>{10, 20, 40}));
        QCOMPARE(toVector(capture.events.end), (std::vector<int64_t>{15, 33, 55}));
    }

private slots:
    void compatFixtures_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("schema");
        QTest::newRow("schema-1") << "scope-profiler/compat/schema-1.h5" << 1;
        QTest::newRow("schema-2") << "scope-profiler/compat/schema-2.h5" << 2;
        QTest::newRow("schema-3") << "scope-profiler/compat/schema-3.h5" << 3;
    }
    void compatFixtures()
    {
        QFETCH(QString, file);
        QFETCH(int, schema);
        SPANSCOPE_LOAD(loaded, dataFile(file.toUtf8().constData()));
        const auto& capture = *loaded.capture;
        QCOMPARE(capture.schema, schema);
        checkSolve(capture);
        const auto& row = capture.rows[0];
        QCOMPARE(row.rank, 0);
        QCOMPARE(capture.strings.text(row.sourceFile), std::string("solver.py"));
        QCOMPARE(row.sourceLine, int64_t(7));
        QCOMPARE(row.tags.size(), size_t(1));
        QCOMPARE(capture.strings.text(row.tags[0]), std::string("golden"));
        QVERIFY(capture.warnings.empty());
        QCOMPARE(capture.numRanks, 1);
    }

    void realSolverTwoRanks()
    {
        SPANSCOPE_LOAD(loaded, dataFile("scope-profiler/solver-2rank.h5"));
        const auto& capture = *loaded.capture;
        QCOMPARE(capture.schema, 1);
        QCOMPARE(capture.layout, model::StorageLayout::PerRankGroups);
        QCOMPARE(capture.ranks, (std::vector<int32_t>{0, 1}));
        QCOMPARE(capture.regionNames.size(), size_t(6));
        QCOMPARE(capture.rows.size(), size_t(12));
        const int step = findRow(capture, "solver.step", 1);
        QVERIFY(step >= 0);
        QCOMPARE(capture.rows[step].count, uint64_t(15));
        QVERIFY(model::findMetadata(capture.metadata, "scope_profiler_version"));
        // Nesting: solver.run is the root, solver.step its child, solve calls deeper.
        const auto& run = capture.rows[findRow(capture, "solver.run", 0)];
        QCOMPARE(capture.events.depth[run.firstEvent], uint16_t(0));
        const auto& assemble = capture.rows[findRow(capture, "solver.assemble", 0)];
        QCOMPARE(capture.events.depth[assemble.firstEvent], uint16_t(2));
    }

    void ranksSortNumerically()
    {
        const auto file = path("ranks.h5");
        {
            H5Builder b(file);
            for (int rank : {10, 2, 0}) {
                const std::string base = "/rank" + std::to_string(rank) + "/regions/work";
                b.ints(base + "/start_times", {rank * 100});
                b.ints(base + "/end_times", {rank * 100 + 5});
            }
            b.group("/not_a_rank/regions");
            QVERIFY(b.ok());
        }
        SPANSCOPE_LOAD(loaded, file);
        QCOMPARE(loaded.capture->ranks, (std::vector<int32_t>{0, 2, 10}));
        QCOMPARE(loaded.capture->rows[2].rank, 10);
        QCOMPARE(loaded.capture->numRanks, 3);
    }

    void schema1NestedNamesAndDatasetsUnderRegions()
    {
        const auto file = path("nested.h5");
        {
            H5Builder b(file);
            // "io/write" is stored as nested groups; "io" is a region too.
            b.ints("/rank0/regions/io/start_times", {0});
            b.ints("/rank0/regions/io/end_times", {100});
            b.ints("/rank0/regions/io/write/start_times", {10, 30});
            b.ints("/rank0/regions/io/write/end_times", {20, 40});
            b.ints("/rank0/regions/io/write/gpu_durations", {4, -1});
            b.attrStrings("/rank0/regions/io/write", "tags", {"disk", "slow"});
            b.attrString("/rank0/regions/io/write", "source_text", "with profile('io/write'):");
            // A region whose datasets sit directly under regions/.
            b.ints("/rank0/regions/start_times", {200});
            b.ints("/rank0/regions/end_times", {260});
            QVERIFY(b.ok());
        }
        SPANSCOPE_LOAD(loaded, file);
        const auto& capture = *loaded.capture;
        QVERIFY(findRegion(capture, "io") >= 0);
        QVERIFY(findRegion(capture, "io/write") >= 0);
        QVERIFY(findRegion(capture, "") >= 0);
        const auto& write = capture.rows[findRow(capture, "io/write", 0)];
        QCOMPARE(write.tags.size(), size_t(2));
        QCOMPARE(capture.strings.text(write.sourceText), std::string("with profile('io/write'):"));
        QVERIFY(capture.events.hasGpu());
        QCOMPARE(capture.events.gpu[write.firstEvent], int64_t(4));
        QCOMPARE(capture.events.gpu[write.firstEvent + 1], int64_t(-1));
        // Rows without the column are back-filled with "no value".
        const auto& io = capture.rows[findRow(capture, "io", 0)];
        QCOMPARE(capture.events.gpu[io.firstEvent], int64_t(-1));
        QCOMPARE(capture.events.depth[write.firstEvent], uint16_t(1));
    }

    void badRegionAttributesWarnNotFail()
    {
        const auto file = path("badattrs.h5");
        {
            H5Builder b(file);
            b.ints("/rank0/regions/work/start_times", {0, 10});
            b.ints("/rank0/regions/work/end_times", {5, 20});
            b.attrString("/rank0/regions/work", "source_lineno", "seven");
            b.attrInt("/rank0/regions/work", "source_file", 3);
            b.attrDouble("/rank0/regions/work", "tags", 1.5);
            QVERIFY(b.ok());
        }
        SPANSCOPE_LOAD(loaded, file);
        const auto& capture = *loaded.capture;
        QCOMPARE(capture.events.size(), size_t(2));
        QCOMPARE(capture.rows[0].sourceLine, int64_t(-1));
        QVERIFY(hasWarningContaining(capture, "attribute 'source_lineno' is not an integer"));
        QVERIFY(hasWarningContaining(capture, "attribute 'source_file' is not a string"));
        QVERIFY(hasWarningContaining(capture, "attribute 'tags' is not a list of strings"));
    }

    void columnarFiltersAndStorage_data()
    {
        QTest::addColumn<int>("schema");
        QTest::addColumn<int>("filter");
        QTest::addColumn<int>("chunk");
        QTest::addColumn<bool>("fixedStrings");
        QTest::newRow("s2 contiguous vlen") << 2 << int(Filter::None) << 0 << false;
        QTest::newRow("s2 chunked fixed") << 2 << int(Filter::None) << 2 << true;
        QTest::newRow("s3 gzip") << 3 << int(Filter::Gzip) << 2 << false;
        QTest::newRow("s3 lzf") << 3 << int(Filter::Lzf) << 2 << true;
        QTest::newRow("s3 zstd") << 3 << int(Filter::Zstd) << 2 << false;
        QTest::newRow("s2 zstd fixed") << 2 << int(Filter::Zstd) << 0 << true;
    }
    void columnarFiltersAndStorage()
    {
        QFETCH(int, schema);
        QFETCH(int, filter);
        QFETCH(int, chunk);
        QFETCH(bool, fixedStrings);
        const auto file = path("filters.h5");
        {
            H5Builder b(file);
            ColumnarOptions options;
            options.schema = schema;
            options.events.filter = Filter(filter);
            options.events.chunk = hsize_t(chunk);
            options.index.filter = Filter(filter);
            options.index.fixedLengthStrings = fixedStrings;
            writeColumnar(b, solveRows(), options);
            QVERIFY(b.ok());
        }
        SPANSCOPE_LOAD(loaded, file);
        checkSolve(*loaded.capture);
        QCOMPARE(loaded.capture->strings.text(loaded.capture->rows[0].sourceFile), std::string("solver.py"));
    }

    void largeCompressedColumnsRoundTrip()
    {
        // Many chunks, so the LZF/Zstd paths see real compressed data and several slabs.
        const auto file = path("large.h5");
        ColumnarRow row;
        row.region = "tick";
        for (int64_t i = 0; i < 200000; ++i) {
            row.starts.push_back(i * 100);
            row.ends.push_back(i * 100 + 10 + (i % 7));
        }
        for (Filter filter : {Filter::Lzf, Filter::Zstd, Filter::Gzip}) {
            {
                H5Builder b(file);
                ColumnarOptions options;
                options.events.filter = filter;
                options.events.chunk = 8192;
                writeColumnar(b, {row}, options);
                QVERIFY(b.ok());
            }
            SPANSCOPE_LOAD(loaded, file);
            QCOMPARE(toVector(loaded.capture->events.start), row.starts);
            QCOMPARE(toVector(loaded.capture->events.end), row.ends);
        }
    }

    void optionalColumnsAndLaneTables()
    {
        const auto file = path("optional.h5");
        {
            H5Builder b(file);
            ColumnarRow outer{"outer", 0, {0, 100}, {50, 150}};
            ColumnarRow inner{"inner", 0, {10, 110}, {20, 140}};
            ColumnarOptions options;
            options.schema = 2;
            options.exclusiveTotals = true;
            writeColumnar(b, {outer, inner}, options);
            b.ints("/events/gpu_durations", {-1, -1, 5, 7});
            b.ints("/events/call_ids", {0, 2, 1, 3});
            b.ints("/events/parent_ids", {-1, -1, 0, 2});
            b.ints("/events/thread_ids", {0, 1, 0, 1});
            b.ints("/events/task_ids", {-1, -1, -1, -1});
            b.ints("/events/await_ns", {0, 3, 0, 2});
            b.uints("/thread_table/ranks", {0, 0});
            b.ints("/thread_table/index", {0, 1});
            b.ints("/thread_table/ident", {111, 222});
            b.ints("/thread_table/native_id", {1001, 1002});
            b.ints("/thread_table/daemon", {0, 1}, {H5T_STD_I8LE});
            b.strings("/thread_table/name", {"MainThread", "worker-1"});
            b.ints("/thread_table/start_ns", {0, 90});
            b.ints("/thread_table/end_ns", {200, -1});
            b.ints("/thread_table/cpu_ns", {180, 40});
            b.uints("/task_table/ranks", {0});
            b.ints("/task_table/index", {0});
            b.ints("/task_table/thread_index", {1});
            b.ints("/task_table/created_ns", {95});
            b.ints("/task_table/done_ns", {-1});
            b.ints("/task_table/steps", {3});
            b.ints("/task_table/running_ns", {30});
            b.ints("/task_table/suspended_ns", {20});
            b.strings("/task_table/kind", {"asyncio"});
            b.strings("/task_table/name", {"Task-1"});
            b.strings("/task_table/coro_name", {"main"});
            b.summaryStatistics("/rank_region_index/summary_statistics",
                                {{100, 50, 50, 50, 50, 0, 150, 0, 0, 50.0, 0.0},
                                 {40, 10, 30, 10, 30, 10, 140, 2, 12, 20.0, 200.0}});
            b.group("/some_future_group/with/depth");
            b.ints("/events/future_column", {1, 2, 3, 4});
            b.attrBool("/metadata", "debug", true);
            b.attrDouble("/metadata", "scale", 0.5);
            b.attrStrings("/metadata", "modules", {"numpy", "scipy"});
            b.attrString("/metadata", "label", "run \xff bad");
            QVERIFY(b.ok());
        }
        SPANSCOPE_LOAD(loaded, file);
        const auto& capture = *loaded.capture;
        const auto& e = capture.events;
        QCOMPARE(toVector(e.gpu), (std::vector<int64_t>{-1, -1, 5, 7}));
        QCOMPARE(toVector(e.callIds), (std::vector<int64_t>{0, 2, 1, 3}));
        QCOMPARE(toVector(e.parentIds), (std::vector<int64_t>{-1, -1, 0, 2}));
        QCOMPARE(toVector(e.threadIds), (std::vector<int64_t>{0, 1, 0, 1}));
        QCOMPARE(toVector(e.awaitNs), (std::vector<int64_t>{0, 3, 0, 2}));
        QCOMPARE(capture.threads.size(), size_t(2));
        QCOMPARE(capture.strings.text(capture.threads[1].name), std::string("worker-1"));
        QVERIFY(capture.threads[1].daemon);
        QCOMPARE(capture.threads[1].endNs, int64_t(-1));
        QCOMPARE(capture.tasks.size(), size_t(1));
        QCOMPARE(capture.strings.text(capture.tasks[0].coroName), std::string("main"));
        QCOMPARE(capture.tasks[0].suspendedNs, int64_t(20));
        QVERIFY(capture.rows[1].stored.has_value());
        QCOMPARE(capture.rows[1].stored->gpuTotal, int64_t(12));
        QCOMPARE(capture.rows[1].stored->m2, 200.0);
        QCOMPARE(capture.rows[0].storedExclusive, int64_t(-1));
        const auto* debug = model::findMetadata(capture.metadata, "debug");
        QVERIFY(debug && debug->kind == model::MetadataValue::Kind::Bool && debug->flag);
        const auto* scale = model::findMetadata(capture.metadata, "scale");
        QVERIFY(scale && scale->number == 0.5);
        const auto* modules = model::findMetadata(capture.metadata, "modules");
        QVERIFY(modules && modules->list == (std::vector<std::string>{"numpy", "scipy"}));
        const auto* label = model::findMetadata(capture.metadata, "label");
        QVERIFY(label);
        QCOMPARE(label->text, std::string("run \xEF\xBF\xBD bad")); // invalid UTF-8 replaced
        QVERIFY(capture.warnings.empty());
        // Inner calls nest inside outer ones on each thread lane.
        QCOMPARE(toVector(e.depth), (std::vector<uint16_t>{0, 0, 1, 1}));
    }

    void aggregateLayout()
    {
        const auto file = path("aggregate.h5");
        {
            H5Builder b(file);
            b.attrInt("/", "scope_profiler_schema", 3);
            b.attrString("/", "storage_layout", "aggregate");
            b.strings("/region_table/names", {"a", "b"});
            b.uints("/rank_region_index/region_ids", {0, 1, 0}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/ranks", {0, 0, 1}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/event_offsets", {});
            b.uints("/rank_region_index/event_counts", {});
            b.ints("/rank_region_index/source_lines", {});
            b.strings("/rank_region_index/tags", {});
            b.uints("/rank_region_index/aggregate_counts", {4, 2, 6});
            b.ints("/rank_region_index/aggregate_totals", {400, 10, 300});
            b.ints("/rank_region_index/aggregate_minimums", {50, 4, 20});
            b.ints("/rank_region_index/aggregate_maximums", {200, 6, 90});
            b.ints("/rank_region_index/aggregate_exclusives", {390, 10, 300});
            b.ints("/events/start_deltas", {});
            b.ints("/events/durations", {});
            QVERIFY(b.ok());
        }
        SPANSCOPE_LOAD(loaded, file);
        const auto& capture = *loaded.capture;
        QCOMPARE(capture.layout, model::StorageLayout::Aggregate);
        QVERIFY(!capture.eventDataAvailable);
        QCOMPARE(capture.rows.size(), size_t(3));
        QCOMPARE(capture.rows[2].aggregate->count, uint64_t(6));
        QCOMPARE(capture.numRanks, 2);
    }

    void unclosedCallsAreKeptAndWarned()
    {
        const auto file = path("unclosed.h5");
        {
            H5Builder b(file);
            ColumnarRow row{"loop", 0, {0, 100, 200}, {50, 150, 0}};
            ColumnarOptions options;
            options.schema = 2;
            writeColumnar(b, {row}, options);
            QVERIFY(b.ok());
        }
        SPANSCOPE_LOAD(loaded, file);
        QCOMPARE(loaded.capture->events.size(), size_t(3));
        QVERIFY(hasWarningContaining(*loaded.capture, "region 'loop' on rank 0: 1 of 3 calls end before"));
    }

    void storedSummaryDisagreeingWithCallsWarns()
    {
        const auto file = path("stored.h5");
        {
            H5Builder b(file);
            writeColumnar(b, {ColumnarRow{"x", 0, {0, 10}, {5, 20}}});
            b.summaryStatistics("/rank_region_index/summary_statistics",
                                {{99, 5, 10, 5, 10, 0, 20, 0, 0, 7.5, 12.5}});
            QVERIFY(b.ok());
        }
        SPANSCOPE_LOAD(loaded, file);
        QVERIFY(hasWarningContaining(*loaded.capture, "stored summary says 99 ns in total but the calls add up to 15 ns"));
    }

    void summaryStatisticsMissingMemberIsIgnored()
    {
        const auto file = path("stored-bad.h5");
        {
            H5Builder b(file);
            writeColumnar(b, {ColumnarRow{"x", 0, {0}, {5}}});
            b.summaryStatistics("/rank_region_index/summary_statistics",
                                {{5, 5, 5, 5, 5, 0, 5, 0, 0, 5.0, 0.0}}, true);
            QVERIFY(b.ok());
        }
        SPANSCOPE_LOAD(loaded, file);
        QVERIFY(!loaded.capture->rows[0].stored);
        QVERIFY(hasWarningContaining(*loaded.capture, "summary_statistics lacks the member 'm2'"));
    }

    void laneIdsWithoutTableRowsWarn()
    {
        const auto file = path("lanes.h5");
        {
            H5Builder b(file);
            writeColumnar(b, {ColumnarRow{"x", 0, {0}, {5}}});
            b.ints("/events/thread_ids", {4});
            b.uints("/thread_table/ranks", {0});
            b.ints("/thread_table/index", {0});
            QVERIFY(b.ok());
        }
        SPANSCOPE_LOAD(loaded, file);
        QVERIFY(hasWarningContaining(*loaded.capture, "name a thread that the file's table does not list"));
    }

    void progressAndCancel()
    {
        model::LoadControl control;
        auto result = model::loadCapture(dataFile("scope-profiler/solver-1rank.h5"), &control);
        QVERIFY(result.ok());
        QCOMPARE(control.progress(), 1.0);
        model::LoadControl cancelled;
        cancelled.cancel();
        auto none = model::loadCapture(dataFile("scope-profiler/solver-1rank.h5"), &cancelled);
        QVERIFY(!none.ok());
        QCOMPARE(none.error().code, model::ErrorCode::Cancelled);
    }
};

QTEST_GUILESS_MAIN(TestRegionFileReader)
#include "tst_region_file_reader.moc"
