#pragma once
// The HDF5 side of saving a capture, shared by capture_writer.cpp (root, index, events)
// and capture_writer_tables.cpp (lane and NVTX tables). Internal to model/io.

#include "../capture.h"
#include "../result.h"
#include "h5_file.h"
#include "h5_handle.h"

#include <functional>
#include <string>
#include <vector>

namespace spanscope::model::io::writer {

// How the write reports its progress (0..1) and learns that it should stop: straight to
// the caller's ProgressRange in-process, through a pipe from the writing child.
struct Progress
{
    std::function<void(double)> report;
    std::function<bool()> cancelled;
};

// Fills dst[0..count) with elements [begin, begin+count) of a column.
using SlabSource = std::function<void(uint64_t begin, uint64_t count, int64_t* dst)>;

class Writer
{
public:
    Writer(const Capture& capture, std::string path, hid_t file, const Progress& progress)
        : m_capture(capture), m_path(std::move(path)), m_file(file), m_progress(progress)
    {
        m_string = H5Handle(H5Tcopy(H5T_C_S1));
        H5Tset_size(m_string.get(), H5T_VARIABLE);
        H5Tset_cset(m_string.get(), H5T_CSET_UTF8);
        m_lcpl = H5Handle(H5Pcreate(H5P_LINK_CREATE));
        H5Pset_create_intermediate_group(m_lcpl.get(), 1);
    }

    Status write();

private:
    Error fail(const std::string& what, const std::string& object) const
    {
        const std::string detail = H5File::hdf5Message();
        return Error{ErrorCode::Io, what + (detail.empty() ? std::string() : " (" + detail + ")"),
                     m_path, object};
    }
    const std::string& text(NameId id) const { return m_capture.strings.text(id); }

    Status group(const std::string& path);
    Status attribute(const std::string& object, const std::string& name, hid_t type, hid_t space,
                     const void* data);
    Status attrInt(const std::string& object, const std::string& name, int64_t value);
    Status attrString(const std::string& object, const std::string& name, const std::string& value);
    Status metadataEntry(const MetadataEntry& entry);

    Result<H5Handle> dataset(const std::string& path, hid_t fileType, uint64_t length,
                             bool compressed);
    template <typename T>
    Status column(const std::string& path, hid_t fileType, hid_t memType,
                  const std::vector<T>& values);
    Status strings(const std::string& path, const std::vector<std::string>& values);
    Status eventColumn(const std::string& path, uint64_t length, const SlabSource& source,
                       double progressFrom, double progressTo);

    Status index();
    Status summaryStatistics(bool aggregate);
    Status events();
    Status threadTable();
    Status taskTable();
    Status nvtxTables();
    Status allocationTables();
    Status gpuTables();

    const Capture& m_capture;
    std::string m_path; // the final path, for error messages
    hid_t m_file;
    Progress m_progress;
    H5Handle m_string, m_lcpl;
};


template <typename T>
inline Status Writer::column(const std::string& path, hid_t fileType, hid_t memType,
                      const std::vector<T>& values)
{
    auto created = dataset(path, fileType, values.size(), false);
    if (!created)
        return created.error();
    if (!values.empty() &&
        H5Dwrite(created.value().get(), memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
        return fail("cannot write dataset", path);
    return Ok{};
}


} // namespace spanscope::model::io::writer
