#include "h5_file.h"

#include "../utf8.h"
#include "h5_filters.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <type_traits>

namespace spanscope::model::io {

namespace {

// Slab size for long reads: large enough to keep HDF5 overhead negligible, small enough
// for progress about every 30 ms.
constexpr uint64_t kSlabElements = uint64_t(1) << 22;
// In structure-only mode, numeric datasets longer than this are checked but not read.
constexpr uint64_t kStructureOnlyLimit = uint64_t(1) << 16;

herr_t collectInnermost(unsigned, const H5E_error2_t* entry, void* data)
{
    auto* text = static_cast<std::string*>(data);
    if (entry && entry->desc && text->empty())
        *text = entry->desc;
    return 0;
}

std::string filterName(H5Z_filter_t id)
{
    switch (id) {
    case H5Z_FILTER_DEFLATE: return "deflate";
    case H5Z_FILTER_SHUFFLE: return "shuffle";
    case H5Z_FILTER_FLETCHER32: return "fletcher32";
    case H5Z_FILTER_SZIP: return "szip";
    case H5Z_FILTER_NBIT: return "nbit";
    case H5Z_FILTER_SCALEOFFSET: return "scaleoffset";
    case kLzfFilterId: return "lzf";
    case kZstdFilterId: return "zstd";
    case 307: return "bzip2";
    case 32001: return "blosc";
    case 32004: return "lz4";
    case 32008: return "bitshuffle";
    case 32026: return "blosc2";
    default: return "unregistered";
    }
}

} // namespace

std::string H5File::hdf5Message()
{
    std::string text;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collectInnermost, &text);
    return text;
}

Result<H5File> H5File::open(const std::string& path, Mode mode)
{
    // HDF5 prints its error stack to stderr by default; errors are reported through
    // Result instead. The setting is per thread in thread-safe builds.
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    registerCompressionFilters();

    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return Error{ErrorCode::NotFound, "no such file", path, {}};
    if (std::filesystem::is_directory(path, ec))
        return Error{ErrorCode::NotFound, "is a directory, not a file", path, {}};
    const htri_t isHdf5 = H5Fis_hdf5(path.c_str());
    if (isHdf5 == 0)
        return Error{ErrorCode::NotHdf5, "not an HDF5 file (no HDF5 signature)", path, {}};
    if (isHdf5 < 0)
        return Error{ErrorCode::NotFound, "cannot be opened for reading", path, {}};
    H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    if (!file) {
        const auto detail = hdf5Message();
        return Error{ErrorCode::Corrupt,
                     "HDF5 cannot open it; the file is truncated or damaged"
                         + (detail.empty() ? std::string() : " (" + detail + ")"),
                     path,
                     {}};
    }
    return H5File(path, std::move(file), mode);
}

Error H5File::error(ErrorCode code, std::string message, std::string object) const
{
    return Error{code, std::move(message), m_path, std::move(object)};
}

bool H5File::exists(const std::string& objectPath) const
{
    if (objectPath.empty() || objectPath == "/")
        return true;
    size_t position = 0;
    while (position != std::string::npos) {
        position = objectPath.find('/', position + 1);
        const std::string prefix = objectPath.substr(0, position);
        if (prefix.empty() || prefix == "/")
            continue;
        if (H5Lexists(id(), prefix.c_str(), H5P_DEFAULT) <= 0)
            return false;
        H5O_info_t info;
        if (H5Oget_info_by_name2(id(), prefix.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
            return false;
    }
    return true;
}

bool H5File::isGroup(const std::string& objectPath) const
{
    if (!exists(objectPath))
        return false;
    H5O_info_t info;
    return H5Oget_info_by_name2(id(), objectPath.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) >= 0
           && info.type == H5O_TYPE_GROUP;
}

bool H5File::isDataset(const std::string& objectPath) const
{
    if (!exists(objectPath))
        return false;
    H5O_info_t info;
    return H5Oget_info_by_name2(id(), objectPath.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) >= 0
           && info.type == H5O_TYPE_DATASET;
}

std::vector<std::string> H5File::children(const std::string& groupPath) const
{
    std::vector<std::string> names;
    H5Handle group(H5Gopen2(id(), groupPath.c_str(), H5P_DEFAULT));
    if (!group)
        return names;
    auto collect = [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
        static_cast<std::vector<std::string>*>(data)->emplace_back(name);
        return 0;
    };
    H5Literate(group.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &names);
    return names;
}

Result<H5Handle> H5File::openDataset(const std::string& datasetPath) const
{
    if (!isDataset(datasetPath))
        return error(ErrorCode::InvalidSchema, "required dataset is missing", datasetPath);
    H5Handle dataset(H5Dopen2(id(), datasetPath.c_str(), H5P_DEFAULT));
    if (!dataset)
        return error(ErrorCode::Corrupt, "cannot open dataset: " + hdf5Message(), datasetPath);
    return dataset;
}

Result<uint64_t> H5File::length(const std::string& datasetPath) const
{
    auto dataset = openDataset(datasetPath);
    if (!dataset)
        return dataset.error();
    H5Handle space(H5Dget_space(dataset.value().get()));
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 0)
        return error(ErrorCode::Corrupt, "cannot read the dataset's shape", datasetPath);
    if (rank == 0)
        return uint64_t(1);
    if (rank != 1)
        return error(ErrorCode::WrongType,
                     "expected a one-dimensional dataset, found " + std::to_string(rank)
                         + " dimensions",
                     datasetPath);
    hsize_t extent = 0;
    H5Sget_simple_extent_dims(space.get(), &extent, nullptr);
    return uint64_t(extent);
}

namespace {

// True when no chunk of `dataset` was stored through pipeline filter `index`. O(chunks).
bool everyChunkSkips(hid_t dataset, unsigned index)
{
    H5Handle space(H5Dget_space(dataset));
    hsize_t chunks = 0;
    if (H5Dget_num_chunks(dataset, space.get(), &chunks) < 0)
        return false;
    for (hsize_t chunk = 0; chunk < chunks; ++chunk) {
        unsigned mask = 0;
        if (H5Dget_chunk_info(dataset, space.get(), chunk, nullptr, &mask, nullptr, nullptr) < 0
            || !(mask & (1u << index)))
            return false;
    }
    return true;
}

} // namespace

Status H5File::checkFilters(hid_t dataset, const std::string& datasetPath) const
{
    H5Handle dcpl(H5Dget_create_plist(dataset));
    const int filters = H5Pget_nfilters(dcpl.get());
    for (int i = 0; i < filters; ++i) {
        unsigned flags = 0;
        size_t count = 0;
        char name[64] = {};
        unsigned config = 0;
        const H5Z_filter_t filter =
            H5Pget_filter2(dcpl.get(), unsigned(i), &flags, &count, nullptr, sizeof name, name, &config);
        if (filter < 0 || H5Zfilter_avail(filter) <= 0) {
            // An optional filter the writer did not have either is skipped per chunk (the
            // chunk's filter mask says so): such chunks read without it.
            if ((flags & H5Z_FLAG_OPTIONAL) && everyChunkSkips(dataset, unsigned(i)))
                continue;
            return error(ErrorCode::UnknownFilter,
                         "compressed with filter " + std::to_string(filter) + " ("
                             + filterName(filter)
                             + "), which this build cannot decode; supported: deflate/gzip, "
                               "shuffle, lzf, zstd",
                         datasetPath);
        }
    }
    return Ok{};
}

Status H5File::checkIntegerType(hid_t dataset, const std::string& datasetPath) const
{
    H5Handle type(H5Dget_type(dataset));
    const H5T_class_t typeClass = H5Tget_class(type.get());
    if (typeClass != H5T_INTEGER) {
        const char* found = typeClass == H5T_FLOAT    ? "floating point"
                            : typeClass == H5T_STRING ? "string"
                            : typeClass == H5T_ENUM   ? "enum/bool"
                                                      : "non-integer";
        return error(ErrorCode::WrongType, std::string("expected integers, found ") + found + " data",
                     datasetPath);
    }
    return Ok{};
}

Status H5File::checkFloatType(hid_t dataset, const std::string& datasetPath) const
{
    H5Handle type(H5Dget_type(dataset));
    if (H5Tget_class(type.get()) != H5T_FLOAT)
        return error(ErrorCode::WrongType, "expected floating point data", datasetPath);
    return Ok{};
}

Status H5File::readInt64(const std::string& datasetPath, int64_t* dst, uint64_t count,
                         const ProgressRange& progress) const
{
    auto dataset = openDataset(datasetPath);
    if (!dataset)
        return dataset.error();
    const hid_t ds = dataset.value().get();
    if (auto typeOk = checkIntegerType(ds, datasetPath); !typeOk)
        return typeOk.error();
    if (auto filtersOk = checkFilters(ds, datasetPath); !filtersOk)
        return filtersOk.error();
    auto extent = length(datasetPath);
    if (!extent)
        return extent.error();
    if (extent.value() != count)
        return error(ErrorCode::LengthMismatch,
                     "holds " + std::to_string(extent.value()) + " values, expected "
                         + std::to_string(count),
                     datasetPath);
    if (count == 0)
        return Ok{};
    if (auto stored = checkStorage(ds, datasetPath, count); !stored)
        return stored.error();
    if (m_mode == Mode::StructureOnly && count > kStructureOnlyLimit)
        return Ok{};
    H5Handle fileSpace(H5Dget_space(ds));
    const bool scalar = H5Sget_simple_extent_ndims(fileSpace.get()) == 0;
    for (uint64_t begin = 0; begin < count; begin += kSlabElements) {
        if (progress.cancelled())
            return error(ErrorCode::Cancelled, "loading was cancelled");
        const hsize_t slab = std::min<uint64_t>(kSlabElements, count - begin);
        H5Handle memSpace(H5Screate_simple(1, &slab, nullptr));
        if (!scalar) {
            const hsize_t start = begin;
            H5Sselect_hyperslab(fileSpace.get(), H5S_SELECT_SET, &start, nullptr, &slab, nullptr);
        }
        if (H5Dread(ds, H5T_NATIVE_INT64, scalar ? H5S_ALL : memSpace.get(),
                    scalar ? H5S_ALL : fileSpace.get(), H5P_DEFAULT, dst + begin)
            < 0) {
            return error(ErrorCode::Corrupt,
                         "cannot read values " + std::to_string(begin) + ".."
                             + std::to_string(begin + slab) + " (" + hdf5Message()
                             + "); the file is truncated or damaged",
                         datasetPath);
        }
        progress.report(double(begin + slab) / double(count));
    }
    return Ok{};
}

// An unfiltered dataset must store every value it claims: a shorter one is truncated or
// damaged, and its claimed length must not drive a huge allocation.
Status H5File::checkStorage(hid_t dataset, const std::string& datasetPath, uint64_t count) const
{
    H5Handle dcpl(H5Dget_create_plist(dataset));
    if (H5Pget_nfilters(dcpl.get()) != 0)
        return Ok{};
    H5Handle type(H5Dget_type(dataset));
    const uint64_t needed = count * H5Tget_size(type.get());
    const uint64_t stored = H5Dget_storage_size(dataset);
    if (stored < needed)
        return error(ErrorCode::Corrupt,
                     "claims " + std::to_string(count) + " values (" + std::to_string(needed)
                         + " bytes) but stores only " + std::to_string(stored)
                         + " bytes; the file is truncated or damaged",
                     datasetPath);
    return Ok{};
}

Result<std::vector<int64_t>> H5File::readInt64Column(const std::string& datasetPath) const
{
    auto extent = length(datasetPath);
    if (!extent)
        return extent.error();
    if (auto dataset = openDataset(datasetPath); !dataset)
        return dataset.error();
    else if (auto stored = checkStorage(dataset.value().get(), datasetPath, extent.value()); !stored)
        return stored.error();
    std::vector<int64_t> values(extent.value());
    if (auto status = readInt64(datasetPath, values.data(), values.size()); !status)
        return status.error();
    return values;
}

template <typename T>
Result<std::vector<T>> H5File::readNativeColumn(const std::string& datasetPath, hid_t memType) const
{
    auto dataset = openDataset(datasetPath);
    if (!dataset)
        return dataset.error();
    const hid_t ds = dataset.value().get();
    if (auto typeOk = std::is_floating_point_v<T> ? checkFloatType(ds, datasetPath)
                                                  : checkIntegerType(ds, datasetPath);
        !typeOk)
        return typeOk.error();
    if (auto filtersOk = checkFilters(ds, datasetPath); !filtersOk)
        return filtersOk.error();
    auto extent = length(datasetPath);
    if (!extent)
        return extent.error();
    if (auto stored = checkStorage(ds, datasetPath, extent.value()); !stored)
        return stored.error();
    std::vector<T> values(extent.value());
    if (!values.empty()
        && H5Dread(ds, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
        return error(ErrorCode::Corrupt, "cannot read (" + hdf5Message() + ")", datasetPath);
    return values;
}

Result<std::vector<uint64_t>> H5File::readUint64Column(const std::string& datasetPath) const
{
    return readNativeColumn<uint64_t>(datasetPath, H5T_NATIVE_UINT64);
}

Result<std::vector<int8_t>> H5File::readInt8Column(const std::string& datasetPath) const
{
    return readNativeColumn<int8_t>(datasetPath, H5T_NATIVE_INT8);
}

Result<std::vector<double>> H5File::readDoubleColumn(const std::string& datasetPath) const
{
    return readNativeColumn<double>(datasetPath, H5T_NATIVE_DOUBLE);
}

namespace {

// Reads n strings of an open dataset or attribute whose type is `fileType`.
template <typename ReadFn>
bool readStringValues(hid_t fileType, size_t n, std::vector<std::string>& out, ReadFn read)
{
    out.clear();
    if (H5Tis_variable_str(fileType) > 0) {
        H5Handle memType(H5Tcopy(H5T_C_S1));
        H5Tset_size(memType.get(), H5T_VARIABLE);
        H5Tset_cset(memType.get(), H5T_CSET_UTF8);
        std::vector<char*> pointers(n, nullptr);
        if (n && !read(memType.get(), pointers.data()))
            return false;
        out.reserve(n);
        for (char* p : pointers) {
            out.push_back(sanitizeUtf8(p ? std::string_view(p) : std::string_view()));
            std::free(p); // vlen strings are allocated by HDF5 with the system allocator
        }
        return true;
    }
    const size_t width = H5Tget_size(fileType);
    if (width == 0)
        return false;
    H5Handle memType(H5Tcopy(fileType));
    std::vector<char> buffer(n * width + 1, '\0');
    if (n && !read(memType.get(), buffer.data()))
        return false;
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        std::string_view raw(buffer.data() + i * width, width);
        if (auto nul = raw.find('\0'); nul != std::string_view::npos)
            raw = raw.substr(0, nul);
        out.push_back(sanitizeUtf8(raw));
    }
    return true;
}

} // namespace

Result<std::vector<std::string>> H5File::readStrings(const std::string& datasetPath) const
{
    auto dataset = openDataset(datasetPath);
    if (!dataset)
        return dataset.error();
    const hid_t ds = dataset.value().get();
    H5Handle type(H5Dget_type(ds));
    if (H5Tget_class(type.get()) != H5T_STRING)
        return error(ErrorCode::WrongType, "expected strings, found another type", datasetPath);
    if (auto filtersOk = checkFilters(ds, datasetPath); !filtersOk)
        return filtersOk.error();
    auto extent = length(datasetPath);
    if (!extent)
        return extent.error();
    if (auto stored = checkStorage(ds, datasetPath, extent.value()); !stored)
        return stored.error();
    std::vector<std::string> values;
    const bool ok = readStringValues(type.get(), extent.value(), values, [&](hid_t mem, void* buf) {
        return H5Dread(ds, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0;
    });
    if (!ok)
        return error(ErrorCode::Corrupt, "cannot read strings (" + hdf5Message() + ")", datasetPath);
    return values;
}

std::vector<std::string> H5File::attributeNames(const std::string& objectPath) const
{
    std::vector<std::string> names;
    H5Handle object(H5Oopen(id(), objectPath.c_str(), H5P_DEFAULT));
    if (!object)
        return names;
    auto collect = [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
        static_cast<std::vector<std::string>*>(data)->emplace_back(name);
        return 0;
    };
    H5Aiterate2(object.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &names);
    return names;
}

bool H5File::hasAttribute(const std::string& objectPath, const std::string& name) const
{
    return H5Aexists_by_name(id(), objectPath.c_str(), name.c_str(), H5P_DEFAULT) > 0;
}

Result<MetadataValue> H5File::readAttribute(const std::string& objectPath,
                                            const std::string& name) const
{
    const std::string where = "attribute '" + name + "' of " + objectPath;
    H5Handle attr(H5Aopen_by_name(id(), objectPath.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT));
    if (!attr)
        return error(ErrorCode::Corrupt, "cannot open attribute (" + hdf5Message() + ")", where);
    H5Handle type(H5Aget_type(attr.get()));
    H5Handle space(H5Aget_space(attr.get()));
    const hssize_t n = H5Sget_simple_extent_npoints(space.get());
    const int dims = H5Sget_simple_extent_ndims(space.get());
    if (n < 0 || dims < 0)
        return error(ErrorCode::Corrupt, "cannot read the attribute's shape", where);
    const bool scalar = dims == 0;
    const size_t count = size_t(n);
    MetadataValue value;
    const H5T_class_t typeClass = H5Tget_class(type.get());

    auto readAll = [&](hid_t memType, void* buffer) {
        return count == 0 || H5Aread(attr.get(), memType, buffer) >= 0;
    };
    auto fail = [&] { return error(ErrorCode::Corrupt, "cannot read (" + hdf5Message() + ")", where); };

    switch (typeClass) {
    case H5T_STRING: {
        std::vector<std::string> strings;
        if (!readStringValues(type.get(), count, strings, readAll))
            return fail();
        if (scalar) {
            value.kind = MetadataValue::Kind::String;
            value.text = strings.empty() ? std::string() : strings.front();
        } else {
            value.kind = MetadataValue::Kind::StringList;
            value.list = std::move(strings);
        }
        return value;
    }
    case H5T_INTEGER: {
        std::vector<int64_t> numbers(count);
        if (!readAll(H5T_NATIVE_INT64, numbers.data()))
            return fail();
        if (scalar && count == 1) {
            value.kind = MetadataValue::Kind::Integer;
            value.integer = numbers.front();
        } else {
            value.kind = MetadataValue::Kind::StringList;
            for (auto v : numbers)
                value.list.push_back(std::to_string(v));
        }
        return value;
    }
    case H5T_FLOAT: {
        std::vector<double> numbers(count);
        if (!readAll(H5T_NATIVE_DOUBLE, numbers.data()))
            return fail();
        if (scalar && count == 1) {
            value.kind = MetadataValue::Kind::Float;
            value.number = numbers.front();
        } else {
            value.kind = MetadataValue::Kind::StringList;
            for (auto v : numbers) {
                MetadataValue element;
                element.kind = MetadataValue::Kind::Float;
                element.number = v;
                value.list.push_back(element.display());
            }
        }
        return value;
    }
    case H5T_ENUM: {
        // h5py stores bool as an int8 enum {FALSE=0, TRUE=1}.
        std::vector<int8_t> numbers(count);
        if (H5Tget_size(type.get()) != 1 || !readAll(type.get(), numbers.data()))
            return error(ErrorCode::WrongType, "enum attribute other than a boolean", where);
        if (scalar && count == 1) {
            value.kind = MetadataValue::Kind::Bool;
            value.flag = numbers.front() != 0;
        } else {
            value.kind = MetadataValue::Kind::StringList;
            for (auto v : numbers)
                value.list.push_back(v ? "true" : "false");
        }
        return value;
    }
    default:
        value.kind = MetadataValue::Kind::Other;
        value.text = "(value of an unsupported HDF5 type)";
        return value;
    }
}

} // namespace spanscope::model::io
