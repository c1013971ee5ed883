#include "column.h"

#include <cstdlib>
#include <sys/mman.h>

namespace spanscope::model::detail {

namespace {
constexpr std::size_t kMapThreshold = std::size_t(4) << 20; // bytes
constexpr std::size_t kHugePage = std::size_t(2) << 20;

std::size_t mappedSize(std::size_t bytes)
{
    return (bytes + kHugePage - 1) / kHugePage * kHugePage;
}
} // namespace

void* allocateColumn(std::size_t bytes)
{
    if (bytes < kMapThreshold) {
        if (void* pointer = std::malloc(bytes ? bytes : 1))
            return pointer;
        throw std::bad_alloc();
    }
    void* pointer = mmap(nullptr, mappedSize(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pointer == MAP_FAILED)
        throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(pointer, mappedSize(bytes), MADV_HUGEPAGE); // a hint; failure is harmless
#endif
    return pointer;
}

void releaseColumn(void* pointer, std::size_t bytes) noexcept
{
    if (!pointer)
        return;
    if (bytes < kMapThreshold)
        std::free(pointer);
    else
        munmap(pointer, mappedSize(bytes));
}

} // namespace spanscope::model::detail
