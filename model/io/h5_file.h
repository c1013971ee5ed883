#pragma once
// A read-only HDF5 file with the checks every reader needs: each helper validates type and
// shape and turns HDF5 failures into an Error naming the file, the object and the problem.
// One H5File per thread; HDF5 itself is built thread-safe.

#include "../load_control.h"
#include "../metadata.h"
#include "../result.h"
#include "h5_handle.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spanscope::model::io {

class H5File
{
public:
    // StructureOnly skips the bulk of large numeric reads (see crash_guard.h); values it
    // skips are left as they were.
    enum class Mode { Full, StructureOnly };
    static Result<H5File> open(const std::string& path, Mode mode = Mode::Full);

    const std::string& path() const { return m_path; }
    // True in the forked probe: large event datasets are not read, so their columns hold
    // no values, and passes over them are skipped (touching them would only fault in and
    // zero pages the probe throws away).
    bool structureOnly() const { return m_mode == Mode::StructureOnly; }
    hid_t id() const { return m_file.get(); }

    Error error(ErrorCode code, std::string message, std::string object = {}) const;

    // True if every component of objectPath ("/a/b/c") exists.
    bool exists(const std::string& objectPath) const;
    bool isGroup(const std::string& objectPath) const;
    bool isDataset(const std::string& objectPath) const;
    // Names of the links inside a group, in HDF5 name order.
    std::vector<std::string> children(const std::string& groupPath) const;

    // Length of a 1-D dataset (a scalar counts as length 1).
    Result<uint64_t> length(const std::string& datasetPath) const;

    // Reads an integer dataset as int64 into dst[0..count). The dataset must be 1-D, of
    // integer class and hold exactly count values. Reads in slabs so long reads report
    // progress and can be cancelled.
    Status readInt64(const std::string& datasetPath, int64_t* dst, uint64_t count,
                     const ProgressRange& progress = {nullptr, 0, 1}) const;
    Result<std::vector<int64_t>> readInt64Column(const std::string& datasetPath) const;
    Result<std::vector<uint64_t>> readUint64Column(const std::string& datasetPath) const;
    Result<std::vector<int8_t>> readInt8Column(const std::string& datasetPath) const;
    // Floating-point data of any width, converted to double.
    Result<std::vector<double>> readDoubleColumn(const std::string& datasetPath) const;
    // Variable- or fixed-length strings, trailing NULs stripped, invalid UTF-8 replaced.
    Result<std::vector<std::string>> readStrings(const std::string& datasetPath) const;

    std::vector<std::string> attributeNames(const std::string& objectPath) const;
    bool hasAttribute(const std::string& objectPath, const std::string& name) const;
    // Any attribute, converted to a displayable value.
    Result<MetadataValue> readAttribute(const std::string& objectPath,
                                        const std::string& name) const;

    // The innermost message on this thread's HDF5 error stack ("" when empty).
    static std::string hdf5Message();

private:
    H5File(std::string path, H5Handle file, Mode mode)
        : m_path(std::move(path)), m_file(std::move(file)), m_mode(mode)
    {}
    Status checkStorage(hid_t dataset, const std::string& datasetPath, uint64_t count) const;
    Result<H5Handle> openDataset(const std::string& datasetPath) const;
    Status checkFilters(hid_t dataset, const std::string& datasetPath) const;
    Status checkIntegerType(hid_t dataset, const std::string& datasetPath) const;
    Status checkFloatType(hid_t dataset, const std::string& datasetPath) const;
    template <typename T>
    Result<std::vector<T>> readNativeColumn(const std::string& datasetPath, hid_t memType) const;

    std::string m_path;
    H5Handle m_file;
    Mode m_mode = Mode::Full;
};

} // namespace spanscope::model::io
