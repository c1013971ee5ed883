#include "shared_chunks.h"

#include <cstdlib>
#include <sys/mman.h>

namespace spanscope::model::live::detail {

namespace {
constexpr std::size_t kHugePage = std::size_t(2) << 20;
}

void* allocateChunk(std::size_t bytes)
{
    if (bytes < kHugePage) {
        if (void* storage = std::malloc(bytes))
            return storage;
        throw std::bad_alloc();
    }
    // Linux places anonymous mappings of 2 MiB and more on a huge-page boundary (6.7 on),
    // so a 2 MiB chunk is one huge page: one fault instead of 512.
    void* storage = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (storage == MAP_FAILED)
        throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(storage, bytes, MADV_HUGEPAGE); // a hint; failure is harmless
#endif
    return storage;
}

void releaseChunk(void* storage, std::size_t bytes) noexcept
{
    if (bytes < kHugePage)
        std::free(storage);
    else
        munmap(storage, bytes);
}

} // namespace spanscope::model::live::detail
