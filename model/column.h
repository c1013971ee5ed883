#pragma once
// Storage for event columns. Columns are large (8 bytes x tens of millions of calls), so
// their allocator
//  - leaves elements default-initialised: every reader overwrites them at once, and
//    zeroing 80 MB first costs as much as reading it;
//  - maps allocations of 4 MiB and more directly and asks for transparent huge pages, so
//    filling a 10 M-call column takes ~40 page faults instead of ~20 000.
// Behaves like std::allocator otherwise; any thread.

#include <atomic>
#include <cstddef>
#include <thread>
#include <utility>
#include <new>
#include <vector>

namespace spanscope::model {

// Faults in the pages of [begin, begin + bytes) on a second thread (madvise
// MADV_POPULATE_WRITE, which never touches the contents of a page already there) while
// the calling thread fills the memory: on virtual machines, where a fresh page costs
// microseconds to fault and zero, this takes that cost off the thread doing the work, onto
// the other core. Does nothing below 8 MiB or where the kernel lacks the call. Stops and
// joins when destroyed.
class BackgroundPrefault
{
public:
    BackgroundPrefault(void* begin, std::size_t bytes);
    ~BackgroundPrefault();
    BackgroundPrefault(const BackgroundPrefault&) = delete;
    BackgroundPrefault& operator=(const BackgroundPrefault&) = delete;

private:
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

namespace detail {
// Allocations of at least this many bytes are mappings of their own (see above).
inline constexpr std::size_t kColumnMapThreshold = std::size_t(4) << 20;
void* allocateColumn(std::size_t bytes);
void releaseColumn(void* pointer, std::size_t bytes) noexcept;
// For the stores live snapshots share (event_column.h), which live from one update to many
// and are filled as calls arrive: mapped from 2 MiB on. A fresh 3 MiB store that an update
// fills at once (a timeline row copied whole) otherwise costs ~800 page faults, at
// microseconds each on virtual machines, where short-lived columns of that size are better
// reused from the heap.
inline constexpr std::size_t kStoreMapThreshold = std::size_t(2) << 20;
void* allocateStore(std::size_t bytes);
void releaseStore(void* pointer, std::size_t bytes) noexcept;
// A mapping of `bytes` rounded up to whole 2 MiB huge pages, starting on a huge-page
// boundary and asked for transparent huge pages: a fault per 2 MiB instead of per 4 KiB.
// (Linux aligns large anonymous mappings itself only from 6.7 on; Debian 12 has 6.1.)
// Throws std::bad_alloc.
void* mapHugePages(std::size_t bytes);
void unmapHugePages(void* pointer, std::size_t bytes) noexcept;
} // namespace detail

template <typename T>
struct ColumnAllocator
{
    using value_type = T;

    ColumnAllocator() noexcept = default;
    template <typename U>
    ColumnAllocator(const ColumnAllocator<U>&) noexcept
    {}

    T* allocate(std::size_t n) { return static_cast<T*>(detail::allocateColumn(n * sizeof(T))); }
    void deallocate(T* pointer, std::size_t n) noexcept { detail::releaseColumn(pointer, n * sizeof(T)); }

    // Default construction leaves the value uninitialised (see above).
    template <typename U>
    void construct(U* pointer) noexcept
    {
        ::new (static_cast<void*>(pointer)) U;
    }
    template <typename U, typename... Args>
    void construct(U* pointer, Args&&... args)
    {
        ::new (static_cast<void*>(pointer)) U(std::forward<Args>(args)...);
    }

    friend bool operator==(const ColumnAllocator&, const ColumnAllocator&) { return true; }
};

template <typename T>
using Column = std::vector<T, ColumnAllocator<T>>;

// shrink_to_fit for a column that grew by push_back: only a heap allocation is given back.
// A mapped one (kColumnMapThreshold and up) is left as it is: the pages past its end were
// never written, so they hold no memory, and shrinking would copy the whole column into a
// fresh mapping (at 10 M calls, tens of milliseconds of copying and page faults).
template <typename T>
void shrinkToFit(Column<T>& column)
{
    if (column.capacity() * sizeof(T) < detail::kColumnMapThreshold)
        column.shrink_to_fit();
}

} // namespace spanscope::model
