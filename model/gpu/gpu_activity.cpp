#include "gpu_activity.h"


#include <algorithm>
#include <iterator>

namespace spanscope::model {

const char* copyKindName(CopyKind kind)
{
    switch (kind) {
    case CopyKind::HostToDevice:
        return "HtoD";
    case CopyKind::DeviceToHost:
        return "DtoH";
    case CopyKind::DeviceToDevice:
        return "DtoD";
    case CopyKind::HostToHost:
        return "HtoH";
    case CopyKind::PeerToPeer:
        return "PtoP";
    case CopyKind::Unknown:
        break;
    }
    return "unknown";
}

const char* memoryKindName(uint8_t cuptiMemoryKind)
{
    static constexpr const char* kNames[] = {"Unknown", "Pageable", "Pinned",        "Device",
                                             "Array",   "Managed",  "Device Static", "Managed Static"};
    return cuptiMemoryKind < std::size(kNames) ? kNames[cuptiMemoryKind] : kNames[0];
}

void copyName(std::string& out, CopyKind kind, uint8_t srcMemoryKind, uint8_t dstMemoryKind)
{
    out.assign("Memcpy ");
    out += copyKindName(kind);
    out += " (";
    out += memoryKindName(srcMemoryKind);
    out += " -> ";
    out += memoryKindName(dstMemoryKind);
    out += ')';
}

void memsetName(std::string& out, uint8_t memoryKind)
{
    out.assign("Memset (");
    out += memoryKindName(memoryKind);
    out += ')';
}

void GpuActivityTable::add(uint32_t event, uint64_t correlation, uint32_t context, uint32_t detail)
{
    m_rows.push_back({correlation, event, context, detail});
}

void GpuActivityTable::addKernel(uint32_t event, uint64_t correlation, uint32_t context,
                                 const KernelLaunchShape& shape)
{
    add(event, correlation, context, uint32_t(m_kernels.size()));
    m_kernels.push_back(shape);
}

void GpuActivityTable::addCopy(uint32_t event, uint64_t correlation, uint32_t context,
                               uint64_t bytes, CopyKind kind)
{
    add(event, correlation, context, uint32_t(m_copies.size()) | kCopyBit);
    m_copies.push_back({bytes, kind});
}

void GpuActivityTable::addOther(uint32_t event, uint64_t correlation, uint32_t context)
{
    add(event, correlation, context, kNoDetail);
}

namespace {

template <typename Row> bool byEvent(const Row& a, const Row& b)
{
    return a.event < b.event;
}

} // namespace

void GpuActivityTable::finish(const std::vector<uint32_t>* newIndexOf)
{
    std::vector<Row> rows = m_rows.values();
    if (newIndexOf) {
        size_t kept = 0;
        for (const Row& row : rows) {
            const uint32_t e = row.event < newIndexOf->size() ? (*newIndexOf)[row.event] : UINT32_MAX;
            if (e == UINT32_MAX)
                continue; // its event left out: the row goes with it (its detail stays unnamed)
            rows[kept] = row;
            rows[kept++].event = e;
        }
        rows.resize(kept);
    }
    m_kernels.shrink_to_fit(); // grown by push_back: give back what doubling reserved
    if (!std::is_sorted(rows.begin(), rows.end(), byEvent<Row>))
        std::stable_sort(rows.begin(), rows.end(), byEvent<Row>);
    m_rows = {};
    for (const Row& row : rows)
        m_rows.push_back(row);
    m_rows.shrinkToFit();
    m_copies.shrinkToFit();
}

void GpuActivityTable::update(std::vector<uint32_t> removed, std::vector<Activity> added)
{
    std::vector<Row> gone, rows;
    gone.reserve(removed.size());
    for (const uint32_t event : removed)
        gone.push_back({0, event, 0, kNoDetail});
    std::sort(gone.begin(), gone.end(), byEvent<Row>);
    std::sort(added.begin(), added.end(), byEvent<Activity>);
    rows.reserve(added.size());
    for (const Activity& a : added) {
        uint32_t detail = a.shape < m_kernels.size() ? a.shape : kNoDetail;
        if (a.copy) {
            detail = uint32_t(m_copies.size()) | kCopyBit;
            m_copies.push_back({a.bytes, a.copyKind});
        }
        rows.push_back({a.correlation, a.event, a.context, detail});
    }
    updateSorted(m_rows, gone, rows, byEvent<Row>, [](const Row& a, const Row& b) { return a.event == b.event; });
}

int64_t GpuActivityTable::rowOf(uint32_t event) const
{
    const size_t row = partitionPoint(m_rows, [&](const Row& r) { return r.event < event; });
    return row < m_rows.size() && m_rows[row].event == event ? int64_t(row) : -1;
}

std::optional<KernelLaunchShape> GpuActivityTable::kernelShape(size_t row) const
{
    const uint32_t detail = m_rows[row].detail;
    if (detail == kNoDetail || (detail & kCopyBit))
        return std::nullopt;
    return m_kernels[detail];
}

std::optional<uint64_t> GpuActivityTable::copyBytes(size_t row) const
{
    const uint32_t detail = m_rows[row].detail;
    if (detail == kNoDetail || !(detail & kCopyBit))
        return std::nullopt;
    return m_copies[detail & ~kCopyBit].bytes;
}

CopyKind GpuActivityTable::copyKind(size_t row) const
{
    const uint32_t detail = m_rows[row].detail;
    if (detail == kNoDetail || !(detail & kCopyBit))
        return CopyKind::Unknown;
    return m_copies[detail & ~kCopyBit].kind;
}

size_t GpuActivityTable::residentBytes() const
{
    return m_rows.residentBytes() + m_kernels.capacity() * sizeof(KernelLaunchShape) + m_copies.residentBytes();
}

} // namespace spanscope::model
