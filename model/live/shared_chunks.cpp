#include "shared_chunks.h"

#include <cstdint>
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
    // On a huge-page boundary, so that a 2 MiB chunk is one huge page: one fault instead of
    // 512. Linux aligns large anonymous mappings itself only from 6.7 on (Debian 12 has
    // 6.1): map a huge page more and trim.
    const std::size_t span = bytes + kHugePage;
    void* mapped = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED)
        throw std::bad_alloc();
    char* begin = static_cast<char*>(mapped);
    const std::size_t head = (kHugePage - reinterpret_cast<std::uintptr_t>(begin) % kHugePage) % kHugePage;
    if (head)
        munmap(begin, head);
    if (span - head - bytes)
        munmap(begin + head + bytes, span - head - bytes);
    char* storage = begin + head;
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
