#include "heap_reuse.h"

#include <cstdlib> // defines __GLIBC__ where the C library is glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace spanscope::model {

void keepHeapForReuse()
{
#if defined(__GLIBC__)
    // Both: a block above the mapping threshold would still be mapped afresh each time, and
    // below it a heap trimmed to 128 KiB would hand the pages back all the same.
    mallopt(M_MMAP_THRESHOLD, 32 << 20); // glibc's largest (HEAP_MAX_SIZE / 2 on 64-bit)
    mallopt(M_TOP_PAD, 64 << 20);
#endif
}

} // namespace spanscope::model
