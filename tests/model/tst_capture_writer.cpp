// Saving captures: every file read, written and read back must be the same capture (what
// a failed write leaves: tst_capture_writer_failures).

#include "model/io/capture_writer.h"
#include "model/io/h5_file.h"
#include "support/capture_builder.h"
#include "support/capture_writer_checks.h"
#include "support/h5_builder.h"
#include "support/test_helpers.h"

using namespace spanscope;
using namespace spanscope::testing;

namespace {

// Reads an attribute of the written file directly.
bool readIntAttribute(const std::string& file, const char* object, const char* name, int64_t& value)
{
    hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return false;
    hid_t attr = H5Aopen_by_name(f, object, name, H5P_DEFAULT, H5P_DEFAULT);
    const bool ok = attr >= 0 && H5Aread(attr, H5T_NATIVE_INT64, &value) >= 0;
    if (attr >= 0)
        H5Aclose(attr);
    H5Fclose(f);
    return ok;
}

// Number of filters and the chunk length of a dataset (0 when contiguous).
std::pair<int, hsize_t> storageOf(const std::string& file, const char* dataset)
{
    hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds = H5Dopen2(f, dataset, H5P_DEFAULT);
    hid_t dcpl = H5Dget_create_plist(ds);
    hsize_t chunk = 0;
    if (H5Pget_layout(dcpl) == H5D_CHUNKED)
        H5Pget_chunk(dcpl, 1, &chunk);
    const int filters = H5Pget_nfilters(dcpl);
    H5Pclose(dcpl);
    H5Dclose(ds);
    H5Fclose(f);
    return {filters, chunk};
}

} // namespace

class TestCaptureWriter : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string path(const std::string& name) const
    {
        return m_dir.path().toStdString() + "/" + name;
    }

    // Writes `capture`, reads it back and compares.
    void roundTrip(const model::Capture& capture, const std::string& name)
    {
        const auto file = path(name);
        auto written = model::io::writeCaptureFile(capture, file);
        QVERIFY2(written.ok(), written.ok() ? "" : written.error().toString().c_str());
        auto back = read(file);
        QVERIFY(back);
        compareCaptures(capture, *back, true);
    }

private slots:
    void realFiles_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("schema-1") << "scope-profiler/compat/schema-1.h5";
        QTest::newRow("schema-2") << "scope-profiler/compat/schema-2.h5";
        QTest::newRow("schema-3") << "scope-profiler/compat/schema-3.h5";
        QTest::newRow("solver-1rank") << "scope-profiler/solver-1rank.h5";
        QTest::newRow("solver-2rank") << "scope-profiler/solver-2rank.h5";
    }
    void realFiles()
    {
        QFETCH(QString, file);
        auto original = read(dataFile(file.toUtf8().constData()));
        QVERIFY(original);
        const auto copy = path(QString(file).replace('/', '_').toStdString());
        QVERIFY(model::io::writeCaptureFile(*original, copy).ok());
        auto back = read(copy);
        QVERIFY(back);
        compareCaptures(*original, *back, true);
        QVERIFY(back->warnings.empty());
        // Written again from the copy, the file holds the same summaries.
        auto again = read(copy);
        QVERIFY(again);
        const auto second = copy + ".2";
        QVERIFY(model::io::writeCaptureFile(*again, second).ok());
        auto third = read(second);
        QVERIFY(third);
        compareCaptures(*back, *third, false);
    }

    void optionalColumnsLaneTablesAndHostileNames()
    {
        const auto source = path("hostile-source.h5");
        {
            H5Builder b(source);
            ColumnarRow outer{"say \"hi\"\\ back\\slash", 0, {0, 100}, {50, 150}};
            outer.sourceFile = "dir with \"quotes\"/file.py";
            outer.sourceText = "with profile(\"a\\nb\"):\n    pass";
            outer.sourceLine = 12;
            // JSON: ["q\"uote", "back\\slash", "new\nline", "tab\tend", "caf\u00e9", ""]
            outer.tagsJson = "[\"q\\\"uote\", \"back\\\\slash\", \"new\\nline\", \"tab\\tend\", "
                             "\"caf\\u00e9\", \"\"]";
            ColumnarRow inner{
                "new\nline \xff\xfe invalid", 0, {10, 110}, {20, 90}}; // 2nd never closed
            inner.tagsJson = "[]";
            ColumnarRow other{"rank1", 1, {5}, {6}};
            writeColumnar(b, {outer, inner, other});
            b.ints("/events/gpu_durations", {-1, -1, 5, 7, 1});
            b.ints("/events/call_ids", {0, 2, 1, 3, 0});
            b.ints("/events/parent_ids", {-1, -1, 0, 2, -1});
            b.ints("/events/thread_ids", {0, 1, 0, 1, 0});
            b.ints("/events/task_ids", {-1, 0, -1, 0, -1});
            b.ints("/events/await_ns", {0, 3, 0, 2, 0});
            b.uints("/thread_table/ranks", {0, 0, 1});
            b.ints("/thread_table/index", {0, 1, 0});
            b.ints("/thread_table/ident", {111, 222, 333});
            b.ints("/thread_table/native_id", {1001, 1002, 2001});
            b.ints("/thread_table/daemon", {0, 1, 0}, {H5T_STD_I8LE});
            b.strings("/thread_table/name", {"MainThread", "worker \"1\"\n", "MainThread"});
            b.ints("/thread_table/start_ns", {0, 90, 0});
            b.ints("/thread_table/end_ns", {200, -1, 10});
            b.ints("/thread_table/cpu_ns", {180, 40, 5});
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
            b.strings("/task_table/coro_name", {"main\\coro"});
            b.attrBool("/metadata", "debug", true);
            b.attrBool("/metadata", "quiet", false);
            b.attrDouble("/metadata", "scale", 0.5);
            b.attrInt("/metadata", "start_time_ns", -42);
            b.attrStrings("/metadata", "modules", {"numpy", "sci\"py"});
            b.attrString("/metadata", "label", "run \xff bad \"quoted\"\n");
            QVERIFY(b.ok());
        }
        auto original = read(source);
        QVERIFY(original);
        QVERIFY(hasWarningContaining(*original,
                                     "end before they start")); // the unclosed call is reported
        QCOMPARE(original->regionName(1),
                 std::string("new\nline \xEF\xBF\xBD\xEF\xBF\xBD invalid"));
        QCOMPARE(texts(*original, original->rows[0].tags).size(), size_t(6));
        model::MetadataValue empty; // an empty list (H5Builder cannot write one)
        empty.kind = model::MetadataValue::Kind::StringList;
        original->metadata.push_back({"zz_empty_list", empty});
        roundTrip(*original, "hostile.h5");
        // The written tags parse back to the same strings (checked in compareCaptures) and
        // the unclosed call keeps its negative duration.
        auto back = read(path("hostile.h5"));
        QVERIFY(back);
        QCOMPARE(back->events.end[3] - back->events.start[3], int64_t(-20));
        // Tags are stored as escaped JSON, as json.dumps would write them.
        auto file = model::io::H5File::open(path("hostile.h5"));
        QVERIFY(file.ok());
        auto tags = file.value().readStrings("/rank_region_index/tags");
        QVERIFY(tags.ok());
        QCOMPARE(tags.value()[0], std::string("[\"q\\\"uote\", \"back\\\\slash\", \"new\\nline\", "
                                              "\"tab\\tend\", \"caf\xC3\xA9\", \"\"]"));
        QCOMPARE(tags.value()[1], std::string("[]"));
        // The same oddities are reported for the copy as for the source.
        std::vector<std::string> before, after;
        for (const auto& w : original->warnings)
            before.push_back(w.message);
        for (const auto& w : back->warnings)
            after.push_back(w.message);
        QCOMPARE(after, before);
    }

    void largeCaptureIsCompressed()
    {
        auto capture = largeCapture();
        roundTrip(*capture, "large.h5");
        const auto file = path("large.h5");
        QVERIFY(std::filesystem::file_size(file) > 256 * 1024); // fills the limit below
        for (const char* column :
             {"/events/start_deltas", "/events/durations", "/events/gpu_durations"}) {
            const auto [filters, chunk] = storageOf(file, column);
            QCOMPARE(filters, 2); // shuffle + deflate
            QCOMPARE(chunk, hsize_t(100000));
        }
        // Below the threshold the columns are contiguous and unfiltered.
        auto small = read(dataFile("scope-profiler/compat/schema-3.h5"));
        QVERIFY(small);
        QVERIFY(model::io::writeCaptureFile(*small, path("small.h5")).ok());
        const auto [filters, chunk] = storageOf(path("small.h5"), "/events/start_deltas");
        QCOMPARE(filters, 0);
        QCOMPARE(chunk, hsize_t(0));
    }

    void aggregateCapture()
    {
        const auto source = path("aggregate-source.h5");
        {
            H5Builder b(source);
            b.attrInt("/", "scope_profiler_schema", 3);
            b.attrString("/", "storage_layout", "aggregate");
            b.group("/metadata");
            b.attrInt("/metadata", "mpi_size", 4);
            b.strings("/region_table/names", {"solve", "io"});
            b.uints("/rank_region_index/region_ids", {0, 1, 0}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/ranks", {0, 0, 2}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/event_offsets", {});
            b.uints("/rank_region_index/event_counts", {});
            b.uints("/rank_region_index/aggregate_counts", {3, 1, 5});
            b.ints("/rank_region_index/aggregate_totals", {30, 7, 50});
            b.ints("/rank_region_index/aggregate_minimums", {5, 7, 1});
            b.ints("/rank_region_index/aggregate_maximums", {15, 7, 20});
            b.ints("/rank_region_index/aggregate_exclusives", {23, 7, -1});
            b.ints("/events/start_deltas", {});
            b.ints("/events/durations", {});
            QVERIFY(b.ok());
        }
        auto original = read(source);
        QVERIFY(original);
        QCOMPARE(original->layout, model::StorageLayout::Aggregate);
        roundTrip(*original, "aggregate.h5");
        auto back = read(path("aggregate.h5"));
        QVERIFY(back);
        QCOMPARE(back->layout, model::StorageLayout::Aggregate);
        QVERIFY(!back->eventDataAvailable);
        QCOMPARE(back->numRanks, 4);
    }

    void nestedExclusiveIsStored()
    {
        SPANSCOPE_LOAD(loaded, dataFile("scope-profiler/solver-2rank.h5"));
        QVERIFY(loaded.capture->nestingComputed);
        QVERIFY(model::io::writeCaptureFile(*loaded.capture, path("nested.h5")).ok());
        auto back = read(path("nested.h5"));
        QVERIFY(back);
        for (size_t i = 0; i < back->rows.size(); ++i)
            QCOMPARE(back->rows[i].storedExclusive, loaded.capture->rowExclusive[i]);
    }

    void spanscopeGroup()
    {
        auto capture = read(dataFile("scope-profiler/compat/schema-2.h5"));
        QVERIFY(capture);
        const auto file = path("marked.h5");
        QVERIFY(model::io::writeCaptureFile(*capture, file).ok());
        int64_t version = 0, schema = 0;
        QVERIFY(readIntAttribute(file, "/spanscope", "format_version", version));
        QCOMPARE(version, model::io::kCaptureFormatVersion);
        QVERIFY(readIntAttribute(file, "/", "scope_profiler_schema", schema));
        QCOMPARE(schema, int64_t(3));
    }

    // GPU work on GPU tracks is kept (/spanscope/gpu) even where the file has no thread or
    // task columns: its CPU calls sit on their rank's track, which the file keeps as it is,
    // so nothing would be lost and saving must not be refused (found by fuzz capture_file).
    void gpuTracksWithoutThreadColumnsAreSaved()
    {
        auto capture = buildCapture("step 0 0 100\nkernel 0 10 20\nkernel 0 30 45\n");
        model::assignTracks(*capture);
        model::Track stream;
        stream.kind = model::TrackKind::GpuStream;
        stream.device = 0;
        stream.stream = 7;
        const model::TrackId streamTrack = model::addTrack(*capture, stream);
        capture->regionKinds = {model::RegionKind::Cpu, model::RegionKind::Kernel};
        auto& e = capture->events;
        for (size_t i = 0; i < e.size(); ++i)
            e.track.push_back(capture->rows[0].count > i ? capture->rows[0].track.value : streamTrack.value);
        QVERIFY(!e.hasThreads() && !e.hasTasks());

        const auto file = path("gpu-no-threads.h5");
        const auto written = model::io::writeCaptureFile(*capture, file);
        QVERIFY2(written.ok(), written.ok() ? "" : written.error().toString().c_str());
        auto back = read(file);
        QVERIFY(back);
        QCOMPARE(back->rows.size(), size_t(2));
        QCOMPARE(back->regionKind(back->rows[1].region), model::RegionKind::Kernel);
        const model::TrackId onTrack = back->trackOfEvent(1, back->rows[1].firstEvent);
        QVERIFY(onTrack.valid() && onTrack.value < back->tracks.size());
        const model::Track& kernelTrack = back->track(onTrack);
        QCOMPARE(kernelTrack.kind, model::TrackKind::GpuStream);
        QCOMPARE(kernelTrack.stream, int64_t(7));
        const model::TrackId cpuTrack = back->trackOfEvent(0, back->rows[0].firstEvent);
        QVERIFY(cpuTrack.valid() && cpuTrack.value < back->tracks.size());
        QCOMPARE(back->track(cpuTrack).kind, model::TrackKind::Process);
    }

    void ranksWithoutCallsSurvive()
    {
        // Processes of a live capture that recorded no range keep their ranks when saved
        // and read back: rank 1 only named a thread, rank 2 recorded nothing at all (listed
        // by the "processes" count). Ranks used to come from the calls alone.
        auto capture = buildCapture("work 0 10 20\n");
        model::Capture& c = *capture;
        model::ThreadInfo thread;
        thread.rank = 1;
        thread.name = c.strings.intern("only-named");
        c.threads.push_back(thread);
        model::MetadataValue processes;
        processes.kind = model::MetadataValue::Kind::Integer;
        processes.integer = 3;
        c.metadata.push_back({"processes", processes});
        c.ranks = {0, 1, 2};
        c.numRanks = 3;
        QTemporaryDir dir;
        const std::string path = dir.filePath("ranks.h5").toStdString();
        QVERIFY(model::io::writeCaptureFile(c, path).ok());
        auto back = read(path);
        QVERIFY(back);
        QCOMPARE(back->ranks, std::vector<int32_t>({0, 1, 2}));
        QCOMPARE(back->numRanks, 3);
    }
};

QTEST_GUILESS_MAIN(TestCaptureWriter)
#include "tst_capture_writer.moc"
