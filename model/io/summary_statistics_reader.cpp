#include "summary_statistics_reader.h"

#include <cstddef>

namespace spanscope::model::io {

namespace {

struct MemberSpec
{
    const char* name;
    size_t offset;
    hid_t type;
};

} // namespace

void readSummaryStatistics(const H5File& file, const std::string& path, Capture& capture)
{
    if (!file.isDataset(path))
        return;
    auto warn = [&](std::string message) { capture.warnings.push_back({std::move(message), path}); };
    H5Handle dataset(H5Dopen2(file.id(), path.c_str(), H5P_DEFAULT));
    H5Handle fileType(H5Dget_type(dataset.get()));
    if (H5Tget_class(fileType.get()) != H5T_COMPOUND) {
        warn("summary_statistics is not a compound dataset; ignored");
        return;
    }
    const MemberSpec members[] = {
        {"total", offsetof(StoredSummary, total), H5T_NATIVE_INT64},
        {"minimum", offsetof(StoredSummary, minimum), H5T_NATIVE_INT64},
        {"maximum", offsetof(StoredSummary, maximum), H5T_NATIVE_INT64},
        {"first", offsetof(StoredSummary, first), H5T_NATIVE_INT64},
        {"last", offsetof(StoredSummary, last), H5T_NATIVE_INT64},
        {"start_minimum", offsetof(StoredSummary, startMinimum), H5T_NATIVE_INT64},
        {"end_maximum", offsetof(StoredSummary, endMaximum), H5T_NATIVE_INT64},
        {"gpu_count", offsetof(StoredSummary, gpuCount), H5T_NATIVE_UINT64},
        {"gpu_total", offsetof(StoredSummary, gpuTotal), H5T_NATIVE_INT64},
        {"mean", offsetof(StoredSummary, mean), H5T_NATIVE_DOUBLE},
        {"m2", offsetof(StoredSummary, m2), H5T_NATIVE_DOUBLE},
    };
    H5Handle memType(H5Tcreate(H5T_COMPOUND, sizeof(StoredSummary)));
    for (const auto& member : members) {
        if (H5Tget_member_index(fileType.get(), member.name) < 0) {
            warn(std::string("summary_statistics lacks the member '") + member.name + "'; ignored");
            return;
        }
        H5Tinsert(memType.get(), member.name, member.offset, member.type);
    }
    auto length = file.length(path);
    if (!length) {
        warn(length.error().message + "; summary_statistics ignored");
        return;
    }
    if (length.value() == 0)
        return;
    if (length.value() != capture.rows.size()) {
        warn("summary_statistics has " + std::to_string(length.value()) + " records for "
             + std::to_string(capture.rows.size()) + " index rows; ignored");
        return;
    }
    std::vector<StoredSummary> records(length.value());
    if (H5Dread(dataset.get(), memType.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, records.data()) < 0) {
        warn("summary_statistics cannot be read (" + H5File::hdf5Message() + "); ignored");
        return;
    }
    for (size_t i = 0; i < records.size(); ++i)
        capture.rows[i].stored = records[i];
}

} // namespace spanscope::model::io
