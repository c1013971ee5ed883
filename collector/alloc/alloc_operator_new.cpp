// Every form of operator new and delete (plain, array, nothrow, sized, aligned), so a C++
// program's allocations count once each and with the size it asked for. They allocate
// through malloc and posix_memalign of this library (counted there) — the C++ library's
// own operator new would do the same, so counting happens in one place only.
#include <cerrno>
#include <cstdlib>
#include <new>

namespace {

void* allocateOrNull(std::size_t size, std::size_t alignment)
{
    if (size == 0)
        size = 1; // every new returns a distinct pointer
    if (alignment <= __STDCPP_DEFAULT_NEW_ALIGNMENT__)
        return std::malloc(size);
    void* p = nullptr;
    return ::posix_memalign(&p, alignment < sizeof(void*) ? sizeof(void*) : alignment, size) == 0 ? p : nullptr;
}

// The standard's loop: on failure call the new-handler, if any, and try again; else throw.
void* allocateOrThrow(std::size_t size, std::size_t alignment)
{
    for (;;) {
        if (void* p = allocateOrNull(size, alignment))
            return p;
        std::new_handler handler = std::get_new_handler();
        if (!handler)
            throw std::bad_alloc();
        handler();
    }
}

// Without throwing (a thrown bad_alloc would itself allocate, and count): only a
// new-handler's own bad_alloc is caught.
void* allocateNoThrow(std::size_t size, std::size_t alignment) noexcept
{
    for (;;) {
        if (void* p = allocateOrNull(size, alignment))
            return p;
        std::new_handler handler = std::get_new_handler();
        if (!handler)
            return nullptr;
        try {
            handler();
        } catch (...) {
            return nullptr;
        }
    }
}

constexpr std::size_t kDefault = __STDCPP_DEFAULT_NEW_ALIGNMENT__;

} // namespace

#define SPANSCOPE_EXPORT __attribute__((visibility("default")))

SPANSCOPE_EXPORT void* operator new(std::size_t size) { return allocateOrThrow(size, kDefault); }
SPANSCOPE_EXPORT void* operator new[](std::size_t size) { return allocateOrThrow(size, kDefault); }
SPANSCOPE_EXPORT void* operator new(std::size_t size, const std::nothrow_t&) noexcept
{
    return allocateNoThrow(size, kDefault);
}
SPANSCOPE_EXPORT void* operator new[](std::size_t size, const std::nothrow_t&) noexcept
{
    return allocateNoThrow(size, kDefault);
}
SPANSCOPE_EXPORT void* operator new(std::size_t size, std::align_val_t alignment)
{
    return allocateOrThrow(size, std::size_t(alignment));
}
SPANSCOPE_EXPORT void* operator new[](std::size_t size, std::align_val_t alignment)
{
    return allocateOrThrow(size, std::size_t(alignment));
}
SPANSCOPE_EXPORT void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept
{
    return allocateNoThrow(size, std::size_t(alignment));
}
SPANSCOPE_EXPORT void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept
{
    return allocateNoThrow(size, std::size_t(alignment));
}

SPANSCOPE_EXPORT void operator delete(void* p) noexcept { std::free(p); }
SPANSCOPE_EXPORT void operator delete[](void* p) noexcept { std::free(p); }
SPANSCOPE_EXPORT void operator delete(void* p, std::size_t) noexcept { std::free(p); }
SPANSCOPE_EXPORT void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
SPANSCOPE_EXPORT void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
SPANSCOPE_EXPORT void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
SPANSCOPE_EXPORT void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
SPANSCOPE_EXPORT void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
SPANSCOPE_EXPORT void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
SPANSCOPE_EXPORT void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
SPANSCOPE_EXPORT void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
SPANSCOPE_EXPORT void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
