#include "shared_chunks.h"

#include "../column.h"

#include <cstdlib>

namespace spanscope::model::live::detail {

namespace {
constexpr std::size_t kHugePage = std::size_t(2) << 20;
}

void* allocateChunk(std::size_t bytes)
{
    if (bytes >= kHugePage) // one huge page per 2 MiB chunk
        return model::detail::mapHugePages(bytes);
    if (void* storage = std::malloc(bytes))
        return storage;
    throw std::bad_alloc();
}

void releaseChunk(void* storage, std::size_t bytes) noexcept
{
    if (bytes >= kHugePage)
        model::detail::unmapHugePages(storage, bytes);
    else
        std::free(storage);
}

} // namespace spanscope::model::live::detail
