#include "h5_builder.h"

#include "model/io/h5_filters.h"

#include <cstring>
#include <map>

namespace spanscope::testing {

namespace {

size_t xorFilter(unsigned, size_t, const unsigned[], size_t nbytes, size_t*, void** buffer)
{
    auto* bytes = static_cast<unsigned char*>(*buffer);
    for (size_t i = 0; i < nbytes; ++i)
        bytes[i] ^= 0x5a; // its own inverse: the same both ways
    return nbytes;
}

void registerVanishingFilter()
{
    static const H5Z_class2_t filter = {H5Z_CLASS_T_VERS, static_cast<H5Z_filter_t>(kVanishingFilterId), 1, 1,
                                        "spanscope-test-xor", nullptr, nullptr, xorFilter};
    H5Zregister(&filter);
}

} // namespace

void unregisterVanishingFilter()
{
    if (H5Zfilter_avail(kVanishingFilterId) > 0)
        H5Zunregister(kVanishingFilterId);
}

H5Builder::H5Builder(const std::string& path)
{
    spanscope::model::io::registerCompressionFilters();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    m_file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    // A 64 KiB conversion buffer instead of the default 1 MiB, which libhdf5 callocs (fresh,
    // page-faulting memory) on every write that converts: most of the time of a small file.
    m_transfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_buffer(m_transfer, 64 * 1024, nullptr, nullptr);
}

H5Builder::~H5Builder()
{
    close();
}

void H5Builder::close()
{
    if (m_transfer >= 0)
        H5Pclose(m_transfer);
    m_transfer = -1;
    if (m_file >= 0)
        H5Fclose(m_file);
    m_file = -1;
}

void H5Builder::group(const std::string& path)
{
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t g = H5Gcreate2(m_file, path.c_str(), lcpl, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        m_ok = false;
    else
        H5Gclose(g);
    H5Pclose(lcpl);
}

void H5Builder::ensureParent(const std::string& path)
{
    const auto slash = path.rfind('/');
    if (slash == 0 || slash == std::string::npos)
        return;
    const std::string parent = path.substr(0, slash);
    if (H5Lexists(m_file, parent.c_str(), H5P_DEFAULT) <= 0)
        group(parent);
}

hid_t H5Builder::createPlist(hsize_t length, const DatasetOptions& options)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t chunk = options.chunk;
    if (options.filter != Filter::None && chunk == 0)
        chunk = 1024;
    if (chunk > 0 && length > 0) {
        chunk = std::min(chunk, length);
        H5Pset_chunk(dcpl, 1, &chunk);
        if (options.filter != Filter::None)
            H5Pset_shuffle(dcpl);
        switch (options.filter) {
        case Filter::None: break;
        case Filter::Gzip: H5Pset_deflate(dcpl, 4); break;
        case Filter::Lzf:
            H5Pset_filter(dcpl, spanscope::model::io::kLzfFilterId, H5Z_FLAG_OPTIONAL, 0, nullptr);
            break;
        case Filter::Zstd: {
            const unsigned level = 3;
            H5Pset_filter(dcpl, spanscope::model::io::kZstdFilterId, H5Z_FLAG_OPTIONAL, 1, &level);
            break;
        }
        case Filter::Bzip2Unavailable:
            // Filter 307 is not registered in this process: HDF5 lets an optional filter be
            // recorded in the pipeline and skipped while writing, which is exactly what a
            // file from a machine with the plugin looks like to a reader without it.
            H5Pset_filter(dcpl, 307, H5Z_FLAG_OPTIONAL, 0, nullptr);
            break;
        case Filter::Vanishing:
            registerVanishingFilter();
            H5Pset_filter(dcpl, kVanishingFilterId, H5Z_FLAG_MANDATORY, 0, nullptr);
            break;
        }
    }
    return dcpl;
}

void H5Builder::writeNumeric(const std::string& path, hid_t memType, const void* data,
                             hsize_t length, const DatasetOptions& options)
{
    ensureParent(path);
    hid_t space = H5Screate_simple(1, &length, nullptr);
    hid_t dcpl = createPlist(length, options);
    hid_t ds = H5Dcreate2(m_file, path.c_str(), options.fileType, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0 || (length > 0 && H5Dwrite(ds, memType, H5S_ALL, H5S_ALL, m_transfer, data) < 0))
        m_ok = false;
    if (ds >= 0)
        H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(space);
}

void H5Builder::ints(const std::string& path, const std::vector<int64_t>& values, DatasetOptions options)
{
    writeNumeric(path, H5T_NATIVE_INT64, values.data(), values.size(), options);
}

void H5Builder::uints(const std::string& path, const std::vector<uint64_t>& values,
                      DatasetOptions options)
{
    if (options.fileType == H5T_STD_I64LE)
        options.fileType = H5T_STD_U64LE;
    writeNumeric(path, H5T_NATIVE_UINT64, values.data(), values.size(), options);
}

void H5Builder::doubles(const std::string& path, const std::vector<double>& values)
{
    DatasetOptions options;
    options.fileType = H5T_IEEE_F64LE;
    writeNumeric(path, H5T_NATIVE_DOUBLE, values.data(), values.size(), options);
}

void H5Builder::strings(const std::string& path, const std::vector<std::string>& values,
                        DatasetOptions options)
{
    ensureParent(path);
    const hsize_t length = values.size();
    hid_t space = H5Screate_simple(1, &length, nullptr);
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_cset(type, H5T_CSET_UTF8);
    hid_t dcpl = createPlist(length, options);
    if (options.fixedLengthStrings) {
        size_t width = 1;
        for (const auto& v : values)
            width = std::max(width, v.size());
        H5Tset_size(type, width);
        H5Tset_strpad(type, H5T_STR_NULLPAD);
        std::vector<char> buffer(values.size() * width, '\0');
        for (size_t i = 0; i < values.size(); ++i)
            std::memcpy(buffer.data() + i * width, values[i].data(), values[i].size());
        hid_t ds = H5Dcreate2(m_file, path.c_str(), type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        if (ds < 0 || (length && H5Dwrite(ds, type, H5S_ALL, H5S_ALL, m_transfer, buffer.data()) < 0))
            m_ok = false;
        if (ds >= 0)
            H5Dclose(ds);
    } else {
        H5Tset_size(type, H5T_VARIABLE);
        std::vector<const char*> pointers;
        for (const auto& v : values)
            pointers.push_back(v.c_str());
        hid_t ds = H5Dcreate2(m_file, path.c_str(), type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        if (ds < 0 || (length && H5Dwrite(ds, type, H5S_ALL, H5S_ALL, m_transfer, pointers.data()) < 0))
            m_ok = false;
        if (ds >= 0)
            H5Dclose(ds);
    }
    H5Pclose(dcpl);
    H5Tclose(type);
    H5Sclose(space);
}

namespace {
void writeAttribute(hid_t file, const std::string& object, const std::string& name, hid_t type,
                    hid_t space, const void* data, bool& ok)
{
    hid_t attr = H5Acreate_by_name(file, object.c_str(), name.c_str(), type, space, H5P_DEFAULT,
                                   H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0 || H5Awrite(attr, type, data) < 0)
        ok = false;
    if (attr >= 0)
        H5Aclose(attr);
}
} // namespace

void H5Builder::attrInt(const std::string& object, const std::string& name, int64_t value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    writeAttribute(m_file, object, name, H5T_NATIVE_INT64, space, &value, m_ok);
    H5Sclose(space);
}

void H5Builder::attrDouble(const std::string& object, const std::string& name, double value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    writeAttribute(m_file, object, name, H5T_NATIVE_DOUBLE, space, &value, m_ok);
    H5Sclose(space);
}

void H5Builder::attrString(const std::string& object, const std::string& name, const std::string& value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    const char* pointer = value.c_str();
    writeAttribute(m_file, object, name, type, space, &pointer, m_ok);
    H5Tclose(type);
    H5Sclose(space);
}

void H5Builder::attrBool(const std::string& object, const std::string& name, bool value)
{
    // h5py's bool: an int8 enum {FALSE=0, TRUE=1}.
    hid_t type = H5Tenum_create(H5T_NATIVE_INT8);
    int8_t f = 0, t = 1;
    H5Tenum_insert(type, "FALSE", &f);
    H5Tenum_insert(type, "TRUE", &t);
    hid_t space = H5Screate(H5S_SCALAR);
    int8_t v = value ? 1 : 0;
    writeAttribute(m_file, object, name, type, space, &v, m_ok);
    H5Sclose(space);
    H5Tclose(type);
}

void H5Builder::attrStrings(const std::string& object, const std::string& name,
                            const std::vector<std::string>& values)
{
    const hsize_t length = values.size();
    hid_t space = H5Screate_simple(1, &length, nullptr);
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    std::vector<const char*> pointers;
    for (const auto& v : values)
        pointers.push_back(v.c_str());
    writeAttribute(m_file, object, name, type, space, pointers.data(), m_ok);
    H5Tclose(type);
    H5Sclose(space);
}

void H5Builder::summaryStatistics(const std::string& path, const std::vector<Summary>& rows,
                                  bool dropMember)
{
    ensureParent(path);
    hid_t type = H5Tcreate(H5T_COMPOUND, sizeof(Summary));
    H5Tinsert(type, "total", HOFFSET(Summary, total), H5T_NATIVE_INT64);
    H5Tinsert(type, "minimum", HOFFSET(Summary, minimum), H5T_NATIVE_INT64);
    H5Tinsert(type, "maximum", HOFFSET(Summary, maximum), H5T_NATIVE_INT64);
    H5Tinsert(type, "first", HOFFSET(Summary, first), H5T_NATIVE_INT64);
    H5Tinsert(type, "last", HOFFSET(Summary, last), H5T_NATIVE_INT64);
    H5Tinsert(type, "start_minimum", HOFFSET(Summary, startMinimum), H5T_NATIVE_INT64);
    H5Tinsert(type, "end_maximum", HOFFSET(Summary, endMaximum), H5T_NATIVE_INT64);
    H5Tinsert(type, "gpu_count", HOFFSET(Summary, gpuCount), H5T_NATIVE_UINT64);
    H5Tinsert(type, "gpu_total", HOFFSET(Summary, gpuTotal), H5T_NATIVE_INT64);
    H5Tinsert(type, "mean", HOFFSET(Summary, mean), H5T_NATIVE_DOUBLE);
    if (!dropMember)
        H5Tinsert(type, "m2", HOFFSET(Summary, m2), H5T_NATIVE_DOUBLE);
    const hsize_t length = rows.size();
    hid_t space = H5Screate_simple(1, &length, nullptr);
    hid_t ds = H5Dcreate2(m_file, path.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (ds < 0 || (length && H5Dwrite(ds, type, H5S_ALL, H5S_ALL, m_transfer, rows.data()) < 0))
        m_ok = false;
    if (ds >= 0)
        H5Dclose(ds);
    H5Sclose(space);
    H5Tclose(type);
}

void writeColumnar(H5Builder& builder, const std::vector<ColumnarRow>& rows,
                   const ColumnarOptions& options)
{
    builder.attrInt("/", "scope_profiler_schema", options.schema);
    builder.attrString("/", "storage_layout", "columnar");
    builder.group("/metadata");
    builder.attrInt("/metadata", "mpi_size", 1);
    std::vector<std::string> names;
    std::map<std::string, uint64_t> ids;
    std::vector<uint64_t> regionIds, ranks, offsets, counts;
    std::vector<int64_t> lines, starts, ends, exclusive;
    std::vector<std::string> files, texts, tags;
    for (const auto& row : rows) {
        auto [it, inserted] = ids.try_emplace(row.region, names.size());
        if (inserted)
            names.push_back(row.region);
        regionIds.push_back(it->second);
        ranks.push_back(row.rank);
        offsets.push_back(starts.size());
        counts.push_back(row.starts.size());
        lines.push_back(row.sourceLine);
        files.push_back(row.sourceFile);
        texts.push_back(row.sourceText);
        tags.push_back(row.tagsJson);
        exclusive.push_back(-1);
        for (size_t i = 0; i < row.starts.size(); ++i) {
            if (options.schema >= 3) {
                starts.push_back(i == 0 ? row.starts[0] : row.starts[i] - row.starts[i - 1]);
                ends.push_back(row.ends[i] - row.starts[i]);
            } else {
                starts.push_back(row.starts[i]);
                ends.push_back(row.ends[i]);
            }
        }
    }
    builder.strings("/region_table/names", names, options.index);
    DatasetOptions u32 = options.index;
    u32.fileType = H5T_STD_U32LE;
    builder.uints("/rank_region_index/region_ids", regionIds, u32);
    builder.uints("/rank_region_index/ranks", ranks, u32);
    builder.uints("/rank_region_index/event_offsets", offsets, options.index);
    builder.uints("/rank_region_index/event_counts", counts, options.index);
    builder.ints("/rank_region_index/source_lines", lines, options.index);
    builder.strings("/rank_region_index/source_files", files, options.index);
    builder.strings("/rank_region_index/source_texts", texts, options.index);
    builder.strings("/rank_region_index/tags", tags, options.index);
    if (options.exclusiveTotals)
        builder.ints("/rank_region_index/exclusive_totals", exclusive, options.index);
    if (options.schema >= 3) {
        builder.ints("/events/start_deltas", starts, options.events);
        builder.ints("/events/durations", ends, options.events);
    } else {
        builder.ints("/events/start_times", starts, options.events);
        builder.ints("/events/end_times", ends, options.events);
    }
}

} // namespace spanscope::testing
