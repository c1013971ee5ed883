// Schema-3 writer: the layout of docs/capture-format.md. Everything is checked before the
// temporary file exists; every HDF5 call that can fail is checked while writing; the
// result becomes visible at `path` only by the final rename.

#include "capture_writer.h"

#include "../event_layout.h"
#include "../stats/saturating.h"
#include "capture_file_checks.h"
#include "capture_file_writer.h"
#include "forked_job.h"

#include "crash_guard.h"
#include "h5_file.h"
#include "h5_handle.h"
#include "spanscope_version.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <functional>
#include <optional>
#include <poll.h>
#include <set>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


namespace spanscope::model::io {

namespace fs = std::filesystem;

namespace writer {

namespace {

constexpr hsize_t kEventChunk = hsize_t(1) << 20; // elements per chunk of a compressed column
constexpr uint64_t kSlab = uint64_t(1) << 20;     // elements converted and written at a time
constexpr unsigned kGzipLevel = 4;

// A row's tags as the JSON array of strings schemas 2/3 store, e.g. ["a", "b\"c"].
// Control characters are escaped; other UTF-8 is kept as is.
std::string tagListJson(const std::vector<std::string>& tags)
{
    std::string json = "[";
    for (size_t t = 0; t < tags.size(); ++t) {
        if (t > 0)
            json += ", ";
        json += '"';
        for (const char c : tags[t]) {
            switch (c) {
            case '"':
                json += "\\\"";
                break;
            case '\\':
                json += "\\\\";
                break;
            case '\n':
                json += "\\n";
                break;
            case '\r':
                json += "\\r";
                break;
            case '\t':
                json += "\\t";
                break;
            case '\b':
                json += "\\b";
                break;
            case '\f':
                json += "\\f";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    static const char kHex[] = "0123456789abcdef";
                    json += "\\u00";
                    json += kHex[(c >> 4) & 0xF];
                    json += kHex[c & 0xF];
                } else {
                    json += c;
                }
            }
        }
        json += '"';
    }
    return json + "]";
}

} // namespace

Status Writer::group(const std::string& path)
{
    H5Handle created(H5Gcreate2(m_file, path.c_str(), m_lcpl.get(), H5P_DEFAULT, H5P_DEFAULT));
    if (!created)
        return fail("cannot create group", path);
    return Ok{};
}

Status Writer::attribute(const std::string& object, const std::string& name, hid_t type,
                         hid_t space, const void* data)
{
    const std::string where = "attribute '" + name + "' of " + object;
    H5Handle attr(H5Acreate_by_name(m_file, object.c_str(), name.c_str(), type, space, H5P_DEFAULT,
                                    H5P_DEFAULT, H5P_DEFAULT));
    if (!attr)
        return fail("cannot create attribute", where);
    if (H5Awrite(attr.get(), type, data) < 0)
        return fail("cannot write attribute", where);
    return Ok{};
}

Status Writer::attrInt(const std::string& object, const std::string& name, int64_t value)
{
    H5Handle space(H5Screate(H5S_SCALAR));
    return attribute(object, name, H5T_STD_I64LE, space.get(), &value);
}

Status Writer::attrString(const std::string& object, const std::string& name,
                          const std::string& value)
{
    H5Handle space(H5Screate(H5S_SCALAR));
    const char* pointer = value.c_str();
    return attribute(object, name, m_string.get(), space.get(), &pointer);
}

// Types as h5py infers them: str, int64, float64, bool as int8 enum {FALSE, TRUE}, lists as
// 1-D vlen strings. Values of a type spanscope could not read (Kind::Other) are left out.
Status Writer::metadataEntry(const MetadataEntry& entry)
{
    const auto& value = entry.value;
    switch (value.kind) {
    case MetadataValue::Kind::String:
        return attrString("/metadata", entry.key, value.text);
    case MetadataValue::Kind::Integer:
        return attrInt("/metadata", entry.key, value.integer);
    case MetadataValue::Kind::Float: {
        H5Handle space(H5Screate(H5S_SCALAR));
        return attribute("/metadata", entry.key, H5T_IEEE_F64LE, space.get(), &value.number);
    }
    case MetadataValue::Kind::Bool: {
        H5Handle type(H5Tenum_create(H5T_STD_I8LE));
        int8_t member = 0;
        H5Tenum_insert(type.get(), "FALSE", &member);
        member = 1;
        H5Tenum_insert(type.get(), "TRUE", &member);
        const int8_t flag = value.flag ? 1 : 0;
        H5Handle space(H5Screate(H5S_SCALAR));
        return attribute("/metadata", entry.key, type.get(), space.get(), &flag);
    }
    case MetadataValue::Kind::StringList: {
        const hsize_t length = value.list.size();
        H5Handle space(H5Screate_simple(1, &length, nullptr));
        std::vector<const char*> pointers;
        for (const auto& item : value.list)
            pointers.push_back(item.c_str());
        const char* none = nullptr; // HDF5 wants a buffer even for zero elements
        return attribute("/metadata", entry.key, m_string.get(), space.get(),
                         pointers.empty() ? &none : pointers.data());
    }
    case MetadataValue::Kind::Other:
        return Ok{};
    }
    return Ok{};
}

Result<H5Handle> Writer::dataset(const std::string& path, hid_t fileType, uint64_t length,
                                 bool compressed)
{
    const hsize_t extent = length;
    H5Handle space(H5Screate_simple(1, &extent, nullptr));
    H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE));
    if (H5Tis_variable_str(fileType) <= 0) // HDF5 requires fill values for vlen data
        H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER);
    if (compressed && length > 0) {
        const hsize_t chunk = std::min<hsize_t>(kEventChunk, extent);
        if (H5Pset_chunk(dcpl.get(), 1, &chunk) < 0 || H5Pset_shuffle(dcpl.get()) < 0 ||
            H5Pset_deflate(dcpl.get(), kGzipLevel) < 0)
            return fail("cannot set up chunking and compression", path);
    }
    // No chunk cache: slabs cover whole chunks, so each H5Dwrite compresses and writes its
    // chunks at once and a full disk fails that call, not a later implicit flush (after
    // which libhdf5 1.10 is left with datasets it can neither flush nor close).
    H5Handle dapl(H5Pcreate(H5P_DATASET_ACCESS));
    H5Pset_chunk_cache(dapl.get(), 0, 0, H5D_CHUNK_CACHE_W0_DEFAULT);
    H5Handle created(H5Dcreate2(m_file, path.c_str(), fileType, space.get(), m_lcpl.get(),
                                dcpl.get(), dapl.get()));
    if (!created)
        return fail("cannot create dataset", path);
    return created;
}

Status Writer::strings(const std::string& path, const std::vector<std::string>& values)
{
    std::vector<const char*> pointers;
    pointers.reserve(values.size());
    for (const auto& value : values)
        pointers.push_back(value.c_str());
    return column(path, m_string.get(), m_string.get(), pointers);
}

// Converts and writes one slab at a time so a column never exists twice in memory.
Status Writer::eventColumn(const std::string& path, uint64_t length, const SlabSource& source,
                           double progressFrom, double progressTo)
{
    auto created = dataset(path, H5T_STD_I64LE, length, length >= kCompressEventsFrom);
    if (!created)
        return created.error();
    const hid_t ds = created.value().get();
    H5Handle fileSpace(H5Dget_space(ds));
    std::vector<int64_t> slab(std::min(length, kSlab));
    for (uint64_t begin = 0; begin < length; begin += kSlab) {
        if (m_progress.cancelled())
            return Error{ErrorCode::Cancelled, "saving was cancelled", m_path, {}};
        const hsize_t count = std::min(kSlab, length - begin);
        source(begin, count, slab.data());
        const hsize_t start = begin;
        H5Handle memSpace(H5Screate_simple(1, &count, nullptr));
        if (H5Sselect_hyperslab(fileSpace.get(), H5S_SELECT_SET, &start, nullptr, &count, nullptr) <
                0 ||
            H5Dwrite(ds, H5T_NATIVE_INT64, memSpace.get(), fileSpace.get(), H5P_DEFAULT,
                     slab.data()) < 0)
            return fail("cannot write values " + std::to_string(begin) + ".." +
                            std::to_string(begin + count) + " (disk full or file system error?)",
                        path);
        m_progress.report(progressFrom +
                          (progressTo - progressFrom) * double(begin + count) / double(length));
    }
    if (H5Dflush(ds) < 0)
        return fail("cannot flush dataset (disk full or file system error?)", path);
    return Ok{};
}

Status Writer::index()
{
    const auto& rows = m_capture.rows;
    const bool aggregate = m_capture.layout == StorageLayout::Aggregate;
    std::vector<uint32_t> regionIds, ranks;
    std::vector<uint64_t> offsets, counts;
    std::vector<int64_t> lines, exclusive;
    std::vector<std::string> files, texts, tags;
    const bool nested = m_capture.nestingComputed && m_capture.rowExclusive.size() == rows.size();
    for (size_t i = 0; i < rows.size(); ++i) {
        const auto& row = rows[i];
        regionIds.push_back(row.region);
        ranks.push_back(uint32_t(row.rank));
        if (aggregate)
            continue; // upstream's aggregate files keep these columns empty
        offsets.push_back(row.firstEvent); // the file's rows are the capture's spans of its columns
        counts.push_back(row.count);
        lines.push_back(row.sourceLine);
        files.push_back(text(row.sourceFile));
        texts.push_back(text(row.sourceText));
        exclusive.push_back(nested ? m_capture.rowExclusive[i] : row.storedExclusive);
        std::vector<std::string> rowTags;
        for (NameId tag : row.tags)
            rowTags.push_back(text(tag));
        tags.push_back(tagListJson(rowTags));
    }
    const std::string base = "/rank_region_index/";
    Status s = column(base + "region_ids", H5T_STD_U32LE, H5T_NATIVE_UINT32, regionIds);
    if (s)
        s = column(base + "ranks", H5T_STD_U32LE, H5T_NATIVE_UINT32, ranks);
    if (s)
        s = column(base + "event_offsets", H5T_STD_U64LE, H5T_NATIVE_UINT64, offsets);
    if (s)
        s = column(base + "event_counts", H5T_STD_U64LE, H5T_NATIVE_UINT64, counts);
    if (s)
        s = column(base + "source_lines", H5T_STD_I64LE, H5T_NATIVE_INT64, lines);
    if (s)
        s = strings(base + "source_files", files);
    if (s)
        s = strings(base + "source_texts", texts);
    if (s)
        s = strings(base + "tags", tags);
    if (s)
        s = column(base + "exclusive_totals", H5T_STD_I64LE, H5T_NATIVE_INT64, exclusive);
    if (!s || !aggregate)
        return s;

    std::vector<uint64_t> aggregateCounts;
    std::vector<int64_t> totals, minimums, maximums, exclusives;
    for (const auto& row : rows) {
        const AggregateStats a = row.aggregate.value_or(AggregateStats{});
        aggregateCounts.push_back(a.count);
        totals.push_back(a.total);
        minimums.push_back(a.minimum);
        maximums.push_back(a.maximum);
        exclusives.push_back(a.exclusive);
    }
    s = column(base + "aggregate_counts", H5T_STD_U64LE, H5T_NATIVE_UINT64, aggregateCounts);
    if (s)
        s = column(base + "aggregate_totals", H5T_STD_I64LE, H5T_NATIVE_INT64, totals);
    if (s)
        s = column(base + "aggregate_minimums", H5T_STD_I64LE, H5T_NATIVE_INT64, minimums);
    if (s)
        s = column(base + "aggregate_maximums", H5T_STD_I64LE, H5T_NATIVE_INT64, maximums);
    if (s)
        s = column(base + "aggregate_exclusives", H5T_STD_I64LE, H5T_NATIVE_INT64, exclusives);
    return s;
}

// The 88-byte packed compound of the spec (§6). Kept verbatim when every row carries one
// from the source file; otherwise computed from the row's calls.
Status Writer::summaryStatistics(bool aggregate)
{
    const auto& rows = m_capture.rows;
    const auto& e = m_capture.events;
    std::vector<StoredSummary> records;
    const bool allStored = std::all_of(rows.begin(), rows.end(),
                                       [](const RegionRow& r) { return r.stored.has_value(); });
    for (size_t i = 0; !aggregate && i < rows.size(); ++i) {
        const auto& row = rows[i];
        if (allStored) {
            records.push_back(*row.stored);
            continue;
        }
        StoredSummary s;
        if (row.count > 0) {
            s.minimum = INT64_MAX;
            s.maximum = INT64_MIN;
            s.startMinimum = INT64_MAX;
            s.endMaximum = INT64_MIN;
        }
        for (const uint64_t k : m_capture.rowEvents(row)) {
            const int64_t d = subtractSaturating(e.end[k], e.start[k]);
            s.total = addSaturating(s.total, d);
            s.minimum = std::min(s.minimum, d);
            s.maximum = std::max(s.maximum, d);
            s.startMinimum = std::min(s.startMinimum, e.start[k]);
            s.endMaximum = std::max(s.endMaximum, e.end[k]);
            if (e.hasGpu() && e.gpu[k] >= 0) {
                ++s.gpuCount;
                s.gpuTotal += e.gpu[k];
            }
        }
        if (row.count > 0) {
            const RowEvents calls = m_capture.rowEvents(row);
            s.first = e.end[calls.front()] - e.start[calls.front()];
            s.last = e.end[calls.back()] - e.start[calls.back()];
            s.mean = double(s.total) / double(row.count);
            for (const uint64_t k : m_capture.rowEvents(row)) {
                const double delta = double(subtractSaturating(e.end[k], e.start[k])) - s.mean;
                s.m2 += delta * delta;
            }
        }
        records.push_back(s);
    }
    struct Member
    {
        const char* name;
        size_t offset;
        hid_t memType, fileType;
    };
    const Member members[] = {
        {"total", offsetof(StoredSummary, total), H5T_NATIVE_INT64, H5T_STD_I64LE},
        {"minimum", offsetof(StoredSummary, minimum), H5T_NATIVE_INT64, H5T_STD_I64LE},
        {"maximum", offsetof(StoredSummary, maximum), H5T_NATIVE_INT64, H5T_STD_I64LE},
        {"first", offsetof(StoredSummary, first), H5T_NATIVE_INT64, H5T_STD_I64LE},
        {"last", offsetof(StoredSummary, last), H5T_NATIVE_INT64, H5T_STD_I64LE},
        {"start_minimum", offsetof(StoredSummary, startMinimum), H5T_NATIVE_INT64, H5T_STD_I64LE},
        {"end_maximum", offsetof(StoredSummary, endMaximum), H5T_NATIVE_INT64, H5T_STD_I64LE},
        {"gpu_count", offsetof(StoredSummary, gpuCount), H5T_NATIVE_UINT64, H5T_STD_U64LE},
        {"gpu_total", offsetof(StoredSummary, gpuTotal), H5T_NATIVE_INT64, H5T_STD_I64LE},
        {"mean", offsetof(StoredSummary, mean), H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE},
        {"m2", offsetof(StoredSummary, m2), H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE},
    };
    H5Handle memType(H5Tcreate(H5T_COMPOUND, sizeof(StoredSummary)));
    H5Handle fileType(H5Tcreate(H5T_COMPOUND, 88));
    size_t fileOffset = 0;
    for (const auto& m : members) {
        H5Tinsert(memType.get(), m.name, m.offset, m.memType);
        H5Tinsert(fileType.get(), m.name, fileOffset, m.fileType);
        fileOffset += 8;
    }
    return column("/rank_region_index/summary_statistics", fileType.get(), memType.get(), records);
}

Status Writer::events()
{
    const auto& e = m_capture.events;
    const uint64_t n = m_capture.layout == StorageLayout::Aggregate ? 0 : e.size();

    // Row boundaries in offset order: an event continues its row's delta chain only
    // strictly inside [offset, offset+count); a row's first event (and any event outside
    // every row) is stored absolute.
    std::vector<std::pair<uint64_t, uint64_t>> slices;
    for (const auto& row : m_capture.rows)
        for (const EventSpan& span : m_capture.rowEvents(row).spans())
            slices.emplace_back(span.begin, span.end);
    std::sort(slices.begin(), slices.end());
    size_t slice = 0;
    const SlabSource deltas = [&](uint64_t begin, uint64_t count, int64_t* dst) {
        for (uint64_t i = begin; i < begin + count; ++i) {
            while (slice < slices.size() && slices[slice].second <= i)
                ++slice;
            const bool chained = slice < slices.size() && slices[slice].first < i;
            // Unsigned arithmetic: wraps instead of overflowing; the decoder's sum undoes it.
            dst[i - begin] =
                chained ? int64_t(uint64_t(e.start[i]) - uint64_t(e.start[i - 1])) : e.start[i];
        }
    };
    const SlabSource durations = [&](uint64_t begin, uint64_t count, int64_t* dst) {
        for (uint64_t i = begin; i < begin + count; ++i)
            dst[i - begin] = int64_t(uint64_t(e.end[i]) - uint64_t(e.start[i]));
    };
    auto copy = [](const EventColumn<int64_t>& column) -> SlabSource {
        return [&column](uint64_t begin, uint64_t count, int64_t* dst) {
            std::copy_n(column.data() + begin, count, dst);
        };
    };
    std::vector<OptionalEventColumn> present;
    for (const auto& optional : kOptionalEventColumns)
        if (n > 0 && !(e.*optional.member).empty())
            present.push_back(optional);

    const double parts = 2.0 + double(present.size());
    auto from = [&](size_t k) { return 0.1 + 0.85 * double(k) / parts; };
    if (auto s = eventColumn("/events/start_deltas", n, deltas, from(0), from(1)); !s)
        return s;
    if (auto s = eventColumn("/events/durations", n, durations, from(1), from(2)); !s)
        return s;
    for (size_t k = 0; k < present.size(); ++k)
        if (auto s = eventColumn(std::string("/events/") + present[k].name, n,
                                 copy(e.*present[k].member), from(k + 2), from(k + 3));
            !s)
            return s;
    return Ok{};
}

Status Writer::write()
{
    const bool aggregate = m_capture.layout == StorageLayout::Aggregate;
    Status s = attrInt("/", "scope_profiler_schema", 3);
    if (s)
        s = attrString("/", "storage_layout", aggregate ? "aggregate" : "columnar");
    if (s)
        s = group("/metadata");
    std::set<std::string> keys; // HDF5 refuses a second attribute of the same name
    for (const auto& entry : m_capture.metadata)
        if (s && !entry.key.empty() && keys.insert(entry.key).second)
            s = metadataEntry(entry);
    if (s)
        s = group("/spanscope");
    if (s)
        s = attrInt("/spanscope", "format_version", kCaptureFormatVersion);
    if (s)
        s = attrString("/spanscope", "writer", std::string("spanscope ") + SPANSCOPE_VERSION);
    if (s) {
        std::vector<std::string> names;
        for (NameId name : m_capture.regionNames)
            names.push_back(text(name));
        s = strings("/region_table/names", names);
    }
    if (s)
        s = index();
    if (s)
        s = summaryStatistics(aggregate);
    m_progress.report(0.1);
    if (s)
        s = events();
    if (s && !m_capture.threads.empty())
        s = threadTable();
    if (s && !m_capture.tasks.empty())
        s = taskTable();
    if (s && !m_capture.nvtx.empty())
        s = nvtxTables();
    if (s && (!m_capture.counters.empty() || !m_capture.allocations.empty() ||
              !m_capture.countedAllocations.empty()))
        s = allocationTables();
    if (s && hasGpuTables(m_capture))
        s = gpuTables();
    return s;
}

} // namespace writer

namespace {

using writer::Progress;
using writer::Writer;

Status writeTemporary(const Capture& capture, const std::string& path, const std::string& temp,
                      const Progress& progress)
{
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    H5Handle fapl(H5Pcreate(H5P_FILE_ACCESS));
    // 1.8 object headers allow dense attribute storage, so long metadata lists fit.
    H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST);
    // Closing fails (instead of silently staying open) if any object were left open.
    H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_SEMI);
    errno = 0;
    const hid_t file = H5Fcreate(temp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
    if (file < 0) {
        const std::string reason = errno ? std::strerror(errno) : H5File::hdf5Message();
        return Error{ErrorCode::Io,
                     "cannot create the temporary file " + temp + " (" + reason +
                         "); is the directory writable?",
                     path,
                     {}};
    }
    Status written = Writer(capture, path, file, progress).write();
    if (written && H5Fflush(file, H5F_SCOPE_GLOBAL) < 0)
        written =
            Error{ErrorCode::Io,
                  "cannot flush the file (" + H5File::hdf5Message() + "); the disk may be full",
                  path,
                  {}};
    if (H5Fclose(file) < 0 && written)
        written =
            Error{ErrorCode::Io,
                  "cannot close the file (" + H5File::hdf5Message() + "); the disk may be full",
                  path,
                  {}};
    return written;
}

} // namespace

Status writeCaptureFile(const Capture& capture, const std::string& path,
                        const ProgressRange& progress)
{
    // The file stores each row as one span of its event columns (row_events.h), and the
    // rows' calls only: a live capture's columns also hold events no row holds (calls'
    // places in earlier snapshots), with every row one span or not.
    if (!rowsAreOneSpanEach(capture) || capture.callCount() < capture.events.size()) {
        if (auto s = checkRowSpans(capture, path); !s)
            return s;
        return writeCaptureFile(*withRowsInOneSpan(capture), path, progress);
    }
    std::lock_guard lock(hdf5Mutex());
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    if (auto s = checkCapture(capture, path); !s)
        return s;
    if (auto s = checkTarget(path); !s)
        return s;
    const std::string temp = path + ".tmp-" + std::to_string(::getpid());
    const ProgressRange writing = progress.sub(0, 0.95);
    Status status = Ok{};
    bool forked = false;
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    // Sanitizer runtimes are not fork-safe (see crash_guard.cpp): write in-process there.
    status = runInChild(path, writing,
                        [&](const std::function<void(double)>& report) {
                            return writeTemporary(capture, path, temp, Progress{report, [] { return false; }});
                        },
                        forked);
#endif
    if (!forked) {
        const Progress inProcess{[&](double fraction) { writing.report(fraction); },
                                 [&] { return writing.cancelled(); }};
        try {
            status = writeTemporary(capture, path, temp, inProcess);
        } catch (const std::bad_alloc&) {
            status = Error{ErrorCode::Io, "not enough memory to write the file", path, {}};
        }
    }
    if (status)
        status = publish(temp, path);
    if (!status) {
        std::error_code ec;
        fs::remove(temp, ec);
        return status;
    }
    progress.report(1.0);
    return Ok{};
}

} // namespace spanscope::model::io
