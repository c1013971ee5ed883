#include "region_file_reader.h"

#include "allocation_tables_reader.h"
#include "gpu_tables_reader.h"
#include "crash_guard.h"
#include "nvtx_tables_reader.h"
#include "reader_parts.h"

#include <algorithm>
#include <climits>
#include <set>

namespace spanscope::model::io {

namespace {

// More processes than this in one job's metadata is a damaged count, not a job.
constexpr int64_t kMaxListedProcesses = 1 << 20;

// Reads and validates the root attribute `scope_profiler_schema`; absent means schema 1.
Result<int> detectSchema(const H5File& file)
{
    const char* kAttribute = "scope_profiler_schema";
    if (!file.hasAttribute("/", kAttribute))
        return 1;
    const std::string where = std::string("attribute '") + kAttribute + "' of /";
    H5Handle attr(H5Aopen_by_name(file.id(), "/", kAttribute, H5P_DEFAULT, H5P_DEFAULT));
    H5Handle type(H5Aget_type(attr.get()));
    H5Handle space(H5Aget_space(attr.get()));
    if (H5Tget_class(type.get()) != H5T_INTEGER)
        return file.error(ErrorCode::WrongType,
                          "the schema version must be an integer (found a string, float or "
                          "boolean)",
                          where);
    if (H5Sget_simple_extent_npoints(space.get()) != 1)
        return file.error(ErrorCode::WrongType, "the schema version must be a single integer",
                          where);
    int64_t version = 0;
    if (H5Aread(attr.get(), H5T_NATIVE_INT64, &version) < 0)
        return file.error(ErrorCode::Corrupt, "cannot read (" + H5File::hdf5Message() + ")", where);
    if (version < 1)
        return file.error(ErrorCode::InvalidSchema,
                          "schema version " + std::to_string(version) + " is invalid: it must be positive",
                          where);
    if (version > kNewestSchema)
        return file.error(ErrorCode::UnsupportedSchema,
                          "written with schema version " + std::to_string(version)
                              + ", newer than this spanscope reads (up to "
                              + std::to_string(kNewestSchema)
                              + "); upgrade spanscope to open it",
                          where);
    return int(version);
}

} // namespace

namespace {

// A rank exists even when it recorded no call: a process of a live capture that only named
// threads, marked or recorded nothing at all (such captures list every process in the
// "processes" metadata). The rows alone would lose it.
void addRanksWithoutCalls(Capture& capture)
{
    std::set<int32_t> ranks(capture.ranks.begin(), capture.ranks.end());
    const size_t before = ranks.size();
    auto add = [&](int32_t rank) {
        if (rank >= 0 && rank < INT32_MAX)
            ranks.insert(rank);
    };
    for (const auto& thread : capture.threads)
        add(thread.rank);
    for (const auto& task : capture.tasks)
        add(task.rank);
    for (const auto& mark : capture.nvtx.marks)
        add(mark.rank);
    if (const auto* processes = findMetadata(capture.metadata, "processes");
        processes && processes->kind == MetadataValue::Kind::Integer)
        for (int64_t r = 0; r < std::min<int64_t>(processes->integer, kMaxListedProcesses); ++r)
            add(int32_t(r));
    if (ranks.size() == before)
        return;
    capture.ranks.assign(ranks.begin(), ranks.end());
    capture.numRanks = std::max(capture.numRanks, *ranks.rbegin() + 1);
}

Result<std::shared_ptr<Capture>> read(const std::string& path, H5File::Mode mode,
                                      const ProgressRange& progress)
{
    auto opened = H5File::open(path, mode);
    if (!opened)
        return opened.error();
    const H5File& file = opened.value();
    auto schema = detectSchema(file);
    if (!schema)
        return schema.error();

    auto capture = std::make_shared<Capture>();
    capture->sourcePath = path;
    capture->schema = schema.value();

    readMetadata(file, *capture);
    Status status = capture->schema == 1 ? readPerRankGroups(file, *capture, progress.sub(0, 0.95))
                                         : readColumnar(file, *capture, progress.sub(0, 0.95));
    if (!status)
        return status.error();
    if (auto tables = readLaneTables(file, *capture); !tables)
        return tables.error();
    readNvtxTables(file, *capture);
    readGpuTables(file, *capture);
    readAllocationTables(file, *capture);
    addRanksWithoutCalls(*capture);
    if (!file.structureOnly())
        checkEvents(*capture);
    capture->rowExclusive.assign(capture->rows.size(), -1);
    progress.report(1.0);
    return capture;
}

} // namespace

bool readRegionStructure(const std::string& path)
{
    return read(path, H5File::Mode::StructureOnly, {nullptr, 0, 1}).ok();
}

Result<std::shared_ptr<Capture>> readRegionFile(const std::string& path, LoadControl* control)
{
    return readRegionFile(path, ProgressRange(control, 0.0, 1.0));
}

Result<std::shared_ptr<Capture>> readRegionFile(const std::string& path, const ProgressRange& progress)
{
    std::lock_guard lock(hdf5Mutex());
    if (auto probe = probeStructureInChild(path); !probe)
        return probe.error();
    try {
        return read(path, H5File::Mode::Full, progress);
    } catch (const std::bad_alloc&) {
        return Error{ErrorCode::Corrupt,
                     "not enough memory for the sizes the file claims; it is damaged or too large "
                     "for this machine",
                     path,
                     {}};
    }
}

} // namespace spanscope::model::io
