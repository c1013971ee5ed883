#pragma once
// What is known about each GPU activity (kernel, memcpy, memset) besides its time and
// track, and about each GPU device. Activities are ordinary events (Capture::events) on
// GpuStream tracks, in regions of kind Kernel/Memcpy/Memset; these side tables hold the
// rest, one row per activity, so CPU-only captures pay nothing. Immutable once the capture
// is published; any thread may read.

#include "../column.h"
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
// finish()). Kernel shape and copy size live in sub-tables addressed by `detail`.
class GpuActivityTable
{
public:
    static constexpr uint32_t kNoDetail = UINT32_MAX;

    // Adds an activity; `kernel` or `copyBytes` as the activity has them.
    void addKernel(uint32_t event, uint64_t correlation, uint32_t context, const KernelLaunchShape& shape);
    void addCopy(uint32_t event, uint64_t correlation, uint32_t context, uint64_t bytes, CopyKind kind);
    void addOther(uint32_t event, uint64_t correlation, uint32_t context);

    // Filling by row instead, in any order, when the rows' order is known ahead (a live
    // update places millions of kernels in arrival order, each in its event's row): room
    // for `activities` rows and `copies` copies, then every row set once. Kernel shapes
    // are a table of their own, which kernels name by index (a job launches millions of
    // kernels with a few shapes).
    void resize(size_t activities, size_t copies);
    void setKernelShapes(std::vector<KernelLaunchShape> shapes) { m_kernels = std::move(shapes); }
    void setKernel(size_t row, uint32_t event, uint64_t correlation, uint32_t context, uint32_t shape);
    void setCopy(size_t row, uint32_t event, uint64_t correlation, uint32_t context, uint64_t bytes, CopyKind kind);
    void setOther(size_t row, uint32_t event, uint64_t correlation, uint32_t context);

    // Sorts rows by event and maps event indices through `newIndexOf` (old -> new) when
    // given: importers add activities before they lay the events out, and moving a
    // finished table's events calls it again. A row whose event maps to UINT32_MAX or
    // past its size (an event left out) is left out.
    void finish(const std::vector<uint32_t>* newIndexOf = nullptr);

    size_t size() const { return m_event.size(); }
    bool empty() const { return m_event.empty(); }
    // Row of an event, or -1 when it is not a GPU activity. O(log n).
    int64_t rowOf(uint32_t event) const;

    uint32_t event(size_t row) const { return m_event[row]; }
    uint64_t correlation(size_t row) const { return m_correlation[row]; } // 0 = none
    uint32_t context(size_t row) const { return m_context[row]; }
    std::optional<KernelLaunchShape> kernelShape(size_t row) const;
    std::optional<uint64_t> copyBytes(size_t row) const;
    CopyKind copyKind(size_t row) const;

    size_t residentBytes() const;

private:
    void add(uint32_t event, uint64_t correlation, uint32_t context, uint32_t detail);
    void set(size_t row, uint32_t event, uint64_t correlation, uint32_t context, uint32_t detail);

    Column<uint32_t> m_event;
    Column<uint64_t> m_correlation;
    Column<uint32_t> m_context;
    // Row in m_kernels, or with kCopyBit set in the copy columns; kNoDetail for neither.
    Column<uint32_t> m_detail;
    static constexpr uint32_t kCopyBit = 0x80000000u;
    std::vector<KernelLaunchShape> m_kernels;
    Column<uint64_t> m_copyBytes;
    Column<uint8_t> m_copyKind;
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
