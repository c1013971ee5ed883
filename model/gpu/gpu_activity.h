#pragma once
// What is known about each GPU activity (kernel, memcpy, memset) besides its time and
// track, and about each GPU device. Activities are ordinary events (Capture::events) on
// GpuStream tracks, in regions of kind Kernel/Memcpy/Memset; these side tables hold the
// rest, one row per activity, so CPU-only captures pay nothing. Immutable once the capture
// is published; any thread may read.

#include "../chunked_array.h"
#include "../string_table.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace spanscope::model {

// Direction of a copy, as CUPTI (CUpti_ActivityMemcpyKind) and Kineto's names give it.
enum class CopyKind : uint8_t { Unknown, HostToDevice, DeviceToHost, DeviceToDevice, HostToHost, PeerToPeer };
const char* copyKindName(CopyKind kind); // "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "unknown"
// CUPTI's memory kind (CUpti_ActivityMemoryKind) as Kineto names it: "Pageable", "Pinned",
// "Device", "Array", "Managed", "Device Static", "Managed Static"; "Unknown" for 0 and for
// kinds newer than these.
const char* memoryKindName(uint8_t cuptiMemoryKind);
// The names Kineto (PyTorch's profiler) gives a copy and a memset, "Memcpy HtoD (Pinned ->
// Device)" and "Memset (Device)", written into `out`: a live capture and a profiler trace
// of one program then name their copies and memsets alike and compare region by region.
void copyName(std::string& out, CopyKind kind, uint8_t srcMemoryKind, uint8_t dstMemoryKind);
void memsetName(std::string& out, uint8_t memoryKind);

struct KernelLaunchShape
{
    uint32_t grid[3] = {0, 0, 0};  // blocks per grid, x y z; 0 = unknown
    uint32_t block[3] = {0, 0, 0}; // threads per block, x y z; 0 = unknown
    uint16_t registersPerThread = 0;
    uint32_t sharedMemoryBytes = 0; // static + dynamic, per block
};

// One row per activity, ordered by event index (rows are added in any order and sorted by
// finish()). Kernel shape and copy size live in sub-tables addressed by `detail`. Kept in
// chunks that copies share (ChunkedArray): a live stream's next snapshot copies the table
// and update()s it, rewriting only the rows from the first that changes.
class GpuActivityTable
{
public:
    static constexpr uint32_t kNoDetail = UINT32_MAX;

    // Adds an activity; `kernel` or `copyBytes` as the activity has them.
    void addKernel(uint32_t event, uint64_t correlation, uint32_t context, const KernelLaunchShape& shape);
    void addCopy(uint32_t event, uint64_t correlation, uint32_t context, uint64_t bytes, CopyKind kind);
    void addOther(uint32_t event, uint64_t correlation, uint32_t context);

    // Sorts rows by event and maps event indices through `newIndexOf` (old -> new) when
    // given: importers add activities before they lay the events out, and moving a
    // finished table's events calls it again. A row whose event maps to UINT32_MAX or
    // past its size (an event left out) is left out.
    void finish(const std::vector<uint32_t>* newIndexOf = nullptr);

    // For a live stream's tables: kernels name their shape by its row in a table of
    // shapes (a job launches millions of kernels with a few shapes), set whole; an
    // activity to add (update()) says what it is.
    void setKernelShapes(std::vector<KernelLaunchShape> shapes) { m_kernels = std::move(shapes); }
    struct Activity
    {
        uint32_t event = 0;
        uint64_t correlation = 0;
        uint32_t context = 0;
        uint32_t shape = kNoDetail; // a kernel: its row in the kernel shapes
        bool copy = false;          // a copy: its bytes and direction
        uint64_t bytes = 0;
        CopyKind copyKind = CopyKind::Unknown;
    };
    // A finished table changed in place: the rows of the events `removed` are left out and
    // `added` put in (neither need be sorted; an added event is in no row left). O((rows
    // from the first one changed) + changes log changes); the rows before it stay shared
    // with the copies of the table. A copy left out leaves its bytes behind in the copies'
    // sub-table (no row names them).
    void update(std::vector<uint32_t> removed, std::vector<Activity> added);

    size_t size() const { return m_rows.size(); }
    bool empty() const { return m_rows.empty(); }
    // Row of an event, or -1 when it is not a GPU activity. O(log n).
    int64_t rowOf(uint32_t event) const;

    uint32_t event(size_t row) const { return m_rows[row].event; }
    uint64_t correlation(size_t row) const { return m_rows[row].correlation; } // 0 = none
    uint32_t context(size_t row) const { return m_rows[row].context; }
    std::optional<KernelLaunchShape> kernelShape(size_t row) const;
    std::optional<uint64_t> copyBytes(size_t row) const;
    CopyKind copyKind(size_t row) const;

    size_t residentBytes() const;

private:
    struct Row
    {
        uint64_t correlation = 0;
        uint32_t event = 0, context = 0;
        // Row in m_kernels, or with kCopyBit set in m_copies; kNoDetail for neither.
        uint32_t detail = kNoDetail;
    };
    struct Copy
    {
        uint64_t bytes = 0;
        CopyKind kind = CopyKind::Unknown;
    };
    static constexpr uint32_t kCopyBit = 0x80000000u;
    void add(uint32_t event, uint64_t correlation, uint32_t context, uint32_t detail);

    ChunkedArray<Row, 16384> m_rows;
    std::vector<KernelLaunchShape> m_kernels;
    ChunkedArray<Copy, 16384> m_copies;
};

// A GPU as the source describes it; -1 / empty where it says nothing.
struct DeviceInfo
{
    int32_t device = 0;          // the id events use (CUDA ordinal, Kineto `id`)
    NameId name;
    int64_t totalMemoryBytes = -1;
    int32_t multiprocessors = -1; // SMs (CUDA) or compute units (ROCm)
    int32_t computeMajor = -1, computeMinor = -1;
    int32_t warpSize = -1;
};

} // namespace spanscope::model
