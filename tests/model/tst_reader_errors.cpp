// Bad input: every rejection names the file, the object and the problem.

#include "model/io/region_file_reader.h"
#include "support/h5_builder.h"
#include "support/test_helpers.h"

#include <QFile>

using namespace spanscope;
using namespace spanscope::testing;
using model::ErrorCode;

class TestReaderErrors : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string path(const char* name) const { return (m_dir.path() + "/" + name).toStdString(); }

    model::Error expectError(const std::string& file, ErrorCode code, const char* fragment)
    {
        auto result = model::loadCapture(file);
        if (result.ok()) {
            QTest::qFail("the file loaded but should have been rejected", __FILE__, __LINE__);
            return {};
        }
        const auto& error = result.error();
        const std::string text = error.toString();
        if (error.code != code || text.find(fragment) == std::string::npos || error.file != file) {
            const std::string why = "unexpected error [" + std::string(model::errorCodeName(error.code))
                                    + "]: " + text;
            QTest::qFail(why.c_str(), __FILE__, __LINE__);
        }
        return error;
    }

    static void writeSolve(H5Builder& b, int schema = 3)
    {
        ColumnarOptions options;
        options.schema = schema;
        writeColumnar(b, {ColumnarRow{"solve", 0, {10, 20}, {15, 33}}, ColumnarRow{"io", 0, {40}, {50}}},
                      options);
    }

private slots:
    void missingFile()
    {
        expectError(path("nope.h5"), ErrorCode::NotFound, "no such file");
    }

    void notHdf5()
    {
        const auto file = path("text.h5");
        QFile f(QString::fromStdString(file));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not an HDF5 file, just text\n");
        f.close();
        expectError(file, ErrorCode::NotHdf5, "not an HDF5 file");
    }

    void truncated()
    {
        const auto full = path("full.h5");
        {
            H5Builder b(full);
            ColumnarRow row{"x", 0, {}, {}};
            for (int i = 0; i < 20000; ++i) {
                row.starts.push_back(i * 10);
                row.ends.push_back(i * 10 + 5);
            }
            writeColumnar(b, {row});
            QVERIFY(b.ok());
        }
        QFile source(QString::fromStdString(full));
        QVERIFY(source.open(QIODevice::ReadOnly));
        const QByteArray bytes = source.readAll();
        for (const double fraction : {0.5, 0.9}) {
            const auto cut = path("cut.h5");
            QFile out(QString::fromStdString(cut));
            QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
            out.write(bytes.left(int(bytes.size() * fraction)));
            out.close();
            auto result = model::loadCapture(cut);
            QVERIFY(!result.ok());
            QCOMPARE(result.error().code, ErrorCode::Corrupt);
            QVERIFY(result.error().message.find("truncated") != std::string::npos);
        }
    }

    // Every cut through real files fails cleanly (or, for a cut in unused trailing space,
    // loads): never a crash.
    void truncatedAnywhere_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("schema-1 solver") << "scope-profiler/solver-2rank.h5";
        QTest::newRow("schema-3 compat") << "scope-profiler/compat/schema-3.h5";
    }
    void truncatedAnywhere()
    {
        QFETCH(QString, file);
        QFile source(QString::fromStdString(dataFile(file.toUtf8().constData())));
        QVERIFY(source.open(QIODevice::ReadOnly));
        const QByteArray bytes = source.readAll();
        const auto cut = path("cut-anywhere.h5");
        for (int percent = 0; percent < 100; percent += 3) {
            QFile out(QString::fromStdString(cut));
            QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
            out.write(bytes.left(int(qint64(bytes.size()) * percent / 100)));
            out.close();
            auto result = model::loadCapture(cut);
            if (!result.ok())
                QVERIFY2(result.error().file == cut, result.error().toString().c_str());
        }
    }

    // libhdf5 itself crashes on this file; the viewer must survive and say so.
    void libraryCrashIsContained()
    {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
        QSKIP("sanitized builds read in-process (fork is not sanitizer-safe); covered by the plain build");
#endif
        const auto file = dataFile("damaged/global-heap-corrupt.h5");
        expectError(file, ErrorCode::Corrupt, "crashed reading the file's structure");
    }

    void schemaVersionRules()
    {
        struct Case
        {
            const char* name;
            void (*write)(H5Builder&);
            ErrorCode code;
            const char* fragment;
        };
        const Case cases[] = {
            {"newer.h5", [](H5Builder& b) { b.attrInt("/", "scope_profiler_schema", 4); },
             ErrorCode::UnsupportedSchema, "upgrade spanscope"},
            {"zero.h5", [](H5Builder& b) { b.attrInt("/", "scope_profiler_schema", 0); },
             ErrorCode::InvalidSchema, "must be positive"},
            {"string.h5", [](H5Builder& b) { b.attrString("/", "scope_profiler_schema", "2"); },
             ErrorCode::WrongType, "must be an integer"},
            {"float.h5", [](H5Builder& b) { b.attrDouble("/", "scope_profiler_schema", 2.0); },
             ErrorCode::WrongType, "must be an integer"},
            {"bool.h5", [](H5Builder& b) { b.attrBool("/", "scope_profiler_schema", true); },
             ErrorCode::WrongType, "must be an integer"},
        };
        for (const auto& c : cases) {
            const auto file = path(c.name);
            {
                H5Builder b(file);
                c.write(b);
            }
            const auto error = expectError(file, c.code, c.fragment);
            QVERIFY(error.object.find("scope_profiler_schema") != std::string::npos);
        }
    }

    void missingGroups()
    {
        const auto file = path("nogroups.h5");
        {
            H5Builder b(file);
            b.attrInt("/", "scope_profiler_schema", 2);
            b.strings("/region_table/names", {"a"});
        }
        expectError(file, ErrorCode::InvalidSchema, "/events: required group is missing");
    }

    void wrongDtype()
    {
        const auto file2 = path("float3.h5");
        {
            H5Builder b(file2);
            b.attrInt("/", "scope_profiler_schema", 2);
            b.strings("/region_table/names", {"a"});
            b.uints("/rank_region_index/region_ids", {0}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/ranks", {0}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/event_offsets", {0});
            b.uints("/rank_region_index/event_counts", {1});
            b.doubles("/events/start_times", {1.5});
            b.ints("/events/end_times", {3});
        }
        expectError(file2, ErrorCode::WrongType, "/events/start_times: expected integers, found floating point");
    }

    void lengthsDisagree()
    {
        const auto file = path("lengths.h5");
        {
            H5Builder b(file);
            b.attrInt("/", "scope_profiler_schema", 2);
            b.strings("/region_table/names", {"a"});
            b.uints("/rank_region_index/region_ids", {0}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/ranks", {0}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/event_offsets", {0});
            b.uints("/rank_region_index/event_counts", {2});
            b.ints("/events/start_times", {1, 2});
            b.ints("/events/end_times", {3});
        }
        expectError(file, ErrorCode::LengthMismatch, "/events/end_times: holds 1 values, expected 2");

        const auto index = path("index-lengths.h5");
        {
            H5Builder b(index);
            b.attrInt("/", "scope_profiler_schema", 2);
            b.strings("/region_table/names", {"a"});
            b.uints("/rank_region_index/region_ids", {0}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/ranks", {0, 1}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/event_offsets", {0});
            b.uints("/rank_region_index/event_counts", {1});
            b.ints("/events/start_times", {1});
            b.ints("/events/end_times", {3});
        }
        expectError(index, ErrorCode::LengthMismatch, "/rank_region_index/ranks");

        const auto optional = path("gpu-length.h5");
        {
            H5Builder b(optional);
            writeSolve(b);
            b.ints("/events/gpu_durations", {1});
        }
        expectError(optional, ErrorCode::LengthMismatch, "/events/gpu_durations");
    }

    void offsetsOutOfRange()
    {
        const auto file = path("range.h5");
        {
            H5Builder b(file);
            b.attrInt("/", "scope_profiler_schema", 2);
            b.strings("/region_table/names", {"a"});
            b.uints("/rank_region_index/region_ids", {0}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/ranks", {0}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/event_offsets", {1});
            b.uints("/rank_region_index/event_counts", {5});
            b.ints("/events/start_times", {1, 2});
            b.ints("/events/end_times", {3, 4});
        }
        expectError(file, ErrorCode::OutOfRange, "row 0 addresses events 1..6 but the event columns hold only 2");
    }

    void overlappingRows()
    {
        const auto file = path("overlap.h5");
        {
            H5Builder b(file);
            b.attrInt("/", "scope_profiler_schema", 2);
            b.strings("/region_table/names", {"a", "b"});
            b.uints("/rank_region_index/region_ids", {0, 1}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/ranks", {0, 0}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/event_offsets", {0, 1});
            b.uints("/rank_region_index/event_counts", {2, 2});
            b.ints("/events/start_times", {1, 2, 3});
            b.ints("/events/end_times", {3, 4, 5});
        }
        expectError(file, ErrorCode::Overlap, "rows 0 and 1 both claim event 1");
    }

    void regionIdOutOfRangeAndDuplicates()
    {
        const auto file = path("ids.h5");
        {
            H5Builder b(file);
            b.attrInt("/", "scope_profiler_schema", 2);
            b.strings("/region_table/names", {"a"});
            b.uints("/rank_region_index/region_ids", {3}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/ranks", {0}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/event_offsets", {0});
            b.uints("/rank_region_index/event_counts", {1});
            b.ints("/events/start_times", {1});
            b.ints("/events/end_times", {3});
        }
        expectError(file, ErrorCode::OutOfRange, "names region id 3 but region_table has only 1 names");

        const auto dup = path("dup.h5");
        {
            H5Builder b(dup);
            b.attrInt("/", "scope_profiler_schema", 2);
            b.strings("/region_table/names", {"a"});
            b.uints("/rank_region_index/region_ids", {0, 0}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/ranks", {0, 0}, {H5T_STD_U32LE});
            b.uints("/rank_region_index/event_offsets", {0, 1});
            b.uints("/rank_region_index/event_counts", {1, 1});
            b.ints("/events/start_times", {1, 2});
            b.ints("/events/end_times", {3, 4});
        }
        expectError(dup, ErrorCode::InvalidSchema, "region 'a' appears twice for rank 0");
    }

    // A filter this build lacks that the chunks really went through: named, refused.
    void unknownFilter()
    {
        const auto file = path("vanishing.h5");
        {
            H5Builder b(file);
            ColumnarOptions options;
            options.events.filter = Filter::Vanishing;
            options.events.chunk = 2;
            writeColumnar(b, {ColumnarRow{"a", 0, {1, 2}, {3, 4}}}, options);
        }
        unregisterVanishingFilter();
        expectError(file, ErrorCode::UnknownFilter, "filter 32099");
    }

    // An optional filter (bzip2 here) the writer could not apply either: every chunk's
    // filter mask says it was skipped, libhdf5 reads them without it, and so does spanscope.
    void optionalFilterSkippedByEveryChunkOpens()
    {
        const auto file = path("bzip2.h5");
        {
            H5Builder b(file);
            ColumnarOptions options;
            options.events.filter = Filter::Bzip2Unavailable;
            options.events.chunk = 2;
            writeColumnar(b, {ColumnarRow{"a", 0, {1, 2, 5}, {3, 4, 9}}}, options);
        }
        auto read = model::loadCapture(file);
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().toString().c_str());
        const auto& events = read.value().capture->events;
        QCOMPARE(std::vector<int64_t>(events.start.begin(), events.start.end()), (std::vector<int64_t>{1, 2, 5}));
        QCOMPARE(std::vector<int64_t>(events.end.begin(), events.end.end()), (std::vector<int64_t>{3, 4, 9}));
    }

    void schema1LengthMismatch()
    {
        const auto file = path("s1.h5");
        {
            H5Builder b(file);
            b.ints("/rank0/regions/a/start_times", {1, 2});
            b.ints("/rank0/regions/a/end_times", {3});
        }
        expectError(file, ErrorCode::LengthMismatch, "/rank0/regions/a: start_times has 2 values but end_times has 1");
    }

    void hostileNamesAreKeptVerbatim()
    {
        const auto file = path("names.h5");
        const std::string hostile = "a\"b\\c\n<script>,\x01";
        {
            H5Builder b(file);
            writeColumnar(b, {ColumnarRow{hostile, 0, {1}, {2}}});
        }
        SPANSCOPE_LOAD(loaded, file);
        QCOMPARE(loaded.capture->regionName(0), hostile);
    }

    void malformedTagsWarn()
    {
        const auto file = path("tags.h5");
        {
            H5Builder b(file);
            ColumnarRow row{"a", 0, {1}, {2}};
            row.tagsJson = "[golden";
            writeColumnar(b, {row});
        }
        SPANSCOPE_LOAD(loaded, file);
        QVERIFY(hasWarningContaining(*loaded.capture, "tags of region 'a' are not a JSON string list"));
    }
};

QTEST_GUILESS_MAIN(TestReaderErrors)
#include "tst_reader_errors.moc"
