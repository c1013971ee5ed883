#pragma once
// Writes HDF5 files shaped like scope-profiler's, with full control over types, chunking,
// filters and string storage, so tests and benchmarks can produce every layout the
// readers must accept or reject.

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace spanscope::testing {

// Bzip2Unavailable: filter 307 as an optional filter this process lacks, so every chunk is
// stored without it. Vanishing: filter kVanishingFilterId (a byte-wise XOR, registered
// here) that really filters each chunk; unregisterVanishingFilter() then makes the file
// unreadable here, as one from a machine with a plugin this build lacks.
enum class Filter { None, Gzip, Lzf, Zstd, Bzip2Unavailable, Vanishing };
inline constexpr int kVanishingFilterId = 32099;
void unregisterVanishingFilter();

struct DatasetOptions
{
    hid_t fileType = H5T_STD_I64LE; // stored type of numeric datasets
    hsize_t chunk = 0;              // 0 = contiguous (unless a filter needs chunks)
    Filter filter = Filter::None;   // adds shuffle too, as scope-profiler does
    bool fixedLengthStrings = false;
};

class H5Builder
{
public:
    explicit H5Builder(const std::string& path);
    ~H5Builder();
    H5Builder(const H5Builder&) = delete;
    H5Builder& operator=(const H5Builder&) = delete;

    bool ok() const { return m_file >= 0 && m_ok; }
    void close();

    void group(const std::string& path); // creates intermediate groups too
    void ints(const std::string& path, const std::vector<int64_t>& values, DatasetOptions options = {});
    void uints(const std::string& path, const std::vector<uint64_t>& values, DatasetOptions options = {});
    void doubles(const std::string& path, const std::vector<double>& values);
    void strings(const std::string& path, const std::vector<std::string>& values,
                 DatasetOptions options = {});

    void attrInt(const std::string& object, const std::string& name, int64_t value);
    void attrDouble(const std::string& object, const std::string& name, double value);
    void attrString(const std::string& object, const std::string& name, const std::string& value);
    void attrBool(const std::string& object, const std::string& name, bool value);
    void attrStrings(const std::string& object, const std::string& name,
                     const std::vector<std::string>& values);

    // scope-profiler's summary_statistics compound; rows of 11 values in member order
    // (total, minimum, maximum, first, last, start_minimum, end_maximum, gpu_count,
    // gpu_total, mean, m2).
    struct Summary
    {
        int64_t total, minimum, maximum, first, last, startMinimum, endMaximum;
        uint64_t gpuCount;
        int64_t gpuTotal;
        double mean, m2;
    };
    void summaryStatistics(const std::string& path, const std::vector<Summary>& rows,
                           bool dropMember = false);

private:
    hid_t createPlist(hsize_t length, const DatasetOptions& options);
    void writeNumeric(const std::string& path, hid_t memType, const void* data, hsize_t length,
                      const DatasetOptions& options);
    void ensureParent(const std::string& path);

    hid_t m_file = -1;
    hid_t m_transfer = -1; // dataset transfer properties of every write
    bool m_ok = true;
};

// A schema-2/3 file from per-row event lists.
struct ColumnarRow
{
    ColumnarRow() = default;
    ColumnarRow(std::string name, uint32_t rankOf, std::vector<int64_t> startTimes,
                std::vector<int64_t> endTimes)
        : region(std::move(name)), rank(rankOf), starts(std::move(startTimes)), ends(std::move(endTimes))
    {}

    std::string region;
    uint32_t rank = 0;
    std::vector<int64_t> starts, ends;
    std::string sourceFile;
    int64_t sourceLine = -1;
    std::string sourceText;
    std::string tagsJson = "[]";
};

struct ColumnarOptions
{
    int schema = 3;
    DatasetOptions events;     // for the event columns
    DatasetOptions index;      // for the index columns
    bool exclusiveTotals = false;
};

// Writes /region_table, /rank_region_index and /events for the given rows (regions named
// by first appearance), with `schema` attribute and storage_layout "columnar".
void writeColumnar(H5Builder& builder, const std::vector<ColumnarRow>& rows,
                   const ColumnarOptions& options = {});

} // namespace spanscope::testing
