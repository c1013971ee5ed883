#include "column.h"

#include "prefault_ahead.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <sys/mman.h>

namespace spanscope::model {

BackgroundPrefault::BackgroundPrefault(void* begin, std::size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    constexpr std::size_t kMinimum = std::size_t(8) << 20, kPage = 4096;
    static constexpr std::uintptr_t kStep = std::uintptr_t(4) << 20;
    if (bytes < kMinimum)
        return;
    const auto first = (reinterpret_cast<std::uintptr_t>(begin) + kPage - 1) / kPage * kPage;
    const auto last = (reinterpret_cast<std::uintptr_t>(begin) + bytes) / kPage * kPage;
    // On an older kernel it stops at once: the filling thread faults the pages itself.
    m_thread = std::thread([this, first, last] { populatePages(first, last, kStep, &m_stop); });
#else
    (void)begin, (void)bytes;
#endif
}

BackgroundPrefault::~BackgroundPrefault()
{
    m_stop.store(true, std::memory_order_relaxed);
    if (m_thread.joinable())
        m_thread.join();
}

} // namespace spanscope::model

namespace spanscope::model::detail {

namespace {
constexpr std::size_t kMapThreshold = kColumnMapThreshold;
constexpr std::size_t kHugePage = std::size_t(2) << 20;

std::size_t mappedSize(std::size_t bytes)
{
    return (bytes + kHugePage - 1) / kHugePage * kHugePage;
}
} // namespace

void* mapHugePages(std::size_t bytes)
{
    // A huge page more than needed, then the unaligned head and the tail trimmed.
    const std::size_t size = mappedSize(bytes), span = size + kHugePage;
    void* mapped = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED)
        throw std::bad_alloc();
    char* begin = static_cast<char*>(mapped);
    const std::size_t head = (kHugePage - reinterpret_cast<std::uintptr_t>(begin) % kHugePage) % kHugePage;
    if (head)
        munmap(begin, head);
    if (span - head - size)
        munmap(begin + head + size, span - head - size);
    char* pointer = begin + head;
#ifdef MADV_HUGEPAGE
    madvise(pointer, size, MADV_HUGEPAGE); // a hint; failure is harmless
#endif
    return pointer;
}

void unmapHugePages(void* pointer, std::size_t bytes) noexcept
{
    munmap(pointer, mappedSize(bytes));
}

void* allocateColumn(std::size_t bytes)
{
    if (bytes >= kMapThreshold)
        return mapHugePages(bytes);
    if (void* pointer = std::malloc(bytes ? bytes : 1))
        return pointer;
    throw std::bad_alloc();
}

void releaseColumn(void* pointer, std::size_t bytes) noexcept
{
    if (!pointer)
        return;
    if (bytes < kMapThreshold)
        std::free(pointer);
    else
        unmapHugePages(pointer, bytes);
}

void* allocateStore(std::size_t bytes)
{
    return bytes >= kStoreMapThreshold ? mapHugePages(bytes) : allocateColumn(bytes);
}

void releaseStore(void* pointer, std::size_t bytes) noexcept
{
    if (pointer && bytes >= kStoreMapThreshold)
        unmapHugePages(pointer, bytes);
    else
        releaseColumn(pointer, bytes);
}

} // namespace spanscope::model::detail
