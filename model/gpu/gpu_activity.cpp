#include "gpu_activity.h"

#include "../tables/permutation.h"

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
    m_event.push_back(event);
    m_correlation.push_back(correlation);
    m_context.push_back(context);
    m_detail.push_back(detail);
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
    add(event, correlation, context, uint32_t(m_copyBytes.size()) | kCopyBit);
    m_copyBytes.push_back(bytes);
    m_copyKind.push_back(uint8_t(kind));
}

void GpuActivityTable::resize(size_t activities, size_t copies)
{
    m_event.resize(activities);
    m_correlation.resize(activities);
    m_context.resize(activities);
    m_detail.resize(activities);
    m_copyBytes.reserve(copies);
    m_copyKind.reserve(copies);
}

void GpuActivityTable::set(size_t row, uint32_t event, uint64_t correlation, uint32_t context, uint32_t detail)
{
    m_event[row] = event;
    m_correlation[row] = correlation;
    m_context[row] = context;
    m_detail[row] = detail;
}

void GpuActivityTable::setKernel(size_t row, uint32_t event, uint64_t correlation, uint32_t context, uint32_t shape)
{
    set(row, event, correlation, context, shape < m_kernels.size() ? shape : kNoDetail);
}

void GpuActivityTable::setCopy(size_t row, uint32_t event, uint64_t correlation, uint32_t context, uint64_t bytes,
                               CopyKind kind)
{
    set(row, event, correlation, context, uint32_t(m_copyBytes.size()) | kCopyBit);
    m_copyBytes.push_back(bytes);
    m_copyKind.push_back(uint8_t(kind));
}

void GpuActivityTable::setOther(size_t row, uint32_t event, uint64_t correlation, uint32_t context)
{
    set(row, event, correlation, context, kNoDetail);
}

void GpuActivityTable::addOther(uint32_t event, uint64_t correlation, uint32_t context)
{
    add(event, correlation, context, kNoDetail);
}

void GpuActivityTable::finish(const std::vector<uint32_t>* newIndexOf)
{
    if (newIndexOf) {
        size_t kept = 0;
        for (size_t i = 0; i < m_event.size(); ++i) {
            const uint32_t e = m_event[i] < newIndexOf->size() ? (*newIndexOf)[m_event[i]] : UINT32_MAX;
            if (e == UINT32_MAX)
                continue; // its event left out: the row goes with it (its detail stays unnamed)
            m_event[kept] = e;
            m_correlation[kept] = m_correlation[i];
            m_context[kept] = m_context[i];
            m_detail[kept++] = m_detail[i];
        }
        m_event.resize(kept);
        m_correlation.resize(kept);
        m_context.resize(kept);
        m_detail.resize(kept);
    }
    // Grown by push_back: give back what doubling reserved.
    m_event.shrink_to_fit();
    m_correlation.shrink_to_fit();
    m_context.shrink_to_fit();
    m_detail.shrink_to_fit();
    m_kernels.shrink_to_fit();
    m_copyBytes.shrink_to_fit();
    m_copyKind.shrink_to_fit();
    if (std::is_sorted(m_event.begin(), m_event.end()))
        return;
    const auto order = sortedOrder(m_event.size(),
                                   [&](uint32_t a, uint32_t b) { return m_event[a] < m_event[b]; });
    permute(m_event, order);
    permute(m_correlation, order);
    permute(m_context, order);
    permute(m_detail, order);
}

int64_t GpuActivityTable::rowOf(uint32_t event) const
{
    const auto it = std::lower_bound(m_event.begin(), m_event.end(), event);
    return it != m_event.end() && *it == event ? int64_t(it - m_event.begin()) : -1;
}

std::optional<KernelLaunchShape> GpuActivityTable::kernelShape(size_t row) const
{
    const uint32_t detail = m_detail[row];
    if (detail == kNoDetail || (detail & kCopyBit))
        return std::nullopt;
    return m_kernels[detail];
}

std::optional<uint64_t> GpuActivityTable::copyBytes(size_t row) const
{
    const uint32_t detail = m_detail[row];
    if (detail == kNoDetail || !(detail & kCopyBit))
        return std::nullopt;
    return m_copyBytes[detail & ~kCopyBit];
}

CopyKind GpuActivityTable::copyKind(size_t row) const
{
    const uint32_t detail = m_detail[row];
    if (detail == kNoDetail || !(detail & kCopyBit))
        return CopyKind::Unknown;
    return CopyKind(m_copyKind[detail & ~kCopyBit]);
}

size_t GpuActivityTable::residentBytes() const
{
    return m_event.capacity() * 4 + m_correlation.capacity() * 8 + m_context.capacity() * 4 +
           m_detail.capacity() * 4 + m_kernels.capacity() * sizeof(KernelLaunchShape) +
           m_copyBytes.capacity() * 8 + m_copyKind.capacity();
}

} // namespace spanscope::model
