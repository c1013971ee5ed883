#pragma once
// A growing sequence whose copies share their storage, for the live assembler's tables
// (calls, marks, GPU work): a live update freezes a copy of everything assembled so far on
// the ingest thread, and copying 10 M calls element by element took seconds, during which
// no socket was read. Here a copy takes a reference to each fixed-size chunk, and the two
// copies part only where one of them writes: edit() copies a chunk that another copy still
// holds before changing it (copy on write), and appending past the end never touches what a
// copy can see.
//
// Chunks of kChunkBytes after a first one of 64 KiB at most (elements never straddle two);
// element addresses are stable. Chunks of 2 MiB and more are mapped on their own and asked
// for transparent huge pages: the call table grows by every range, and first-touch faults
// on 4 KiB pages would cost more than the rest of ingest. Not thread-safe as an object (one thread per copy), but copies may
// live on different threads: what they share is never written.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace spanscope::model::live {

namespace detail {
// Chunk storage: mapped with MADV_HUGEPAGE from 2 MiB on, else from the heap.
void* allocateChunk(std::size_t bytes);
void releaseChunk(void* storage, std::size_t bytes) noexcept;
} // namespace detail

template <typename T, std::size_t kChunkBytes = std::size_t(256) << 10>
class SharedChunks
{
    static_assert(std::is_trivially_destructible_v<T>, "chunks never run destructors");
    static_assert(kChunkBytes >= sizeof(T));

public:
    static constexpr std::size_t kChunkSize = kChunkBytes / sizeof(T); // elements
    // The first chunk is small (64 KiB at most): most tables of a job stay small, and a
    // huge page for each would cost its 2 MiB from the first element on.
    static constexpr std::size_t kFirstChunkBytes = std::min(kChunkBytes, std::size_t(64) << 10);
    static constexpr std::size_t kFirstChunkSize = std::max<std::size_t>(1, kFirstChunkBytes / sizeof(T));

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }

    const T& operator[](std::size_t i) const
    {
        const auto [chunk, slot] = locate(i);
        return m_chunks[chunk].items()[slot];
    }

    // Element i, writable: its chunk is copied first if another copy shares it.
    T& edit(std::size_t i)
    {
        const auto [index, slot] = locate(i);
        ChunkRef& chunk = m_chunks[index];
        if (!chunk.unique()) {
            // This copy sees [first, m_size) of the chunk; the rest may not exist.
            const std::size_t first = i - slot;
            const std::size_t count = std::min(index == 0 ? kFirstChunkSize : kChunkSize, m_size - first);
            ChunkRef copy(index == 0 ? kFirstChunkBytes : kChunkBytes);
            std::uninitialized_copy(chunk.items(), chunk.items() + count, copy.items());
            chunk = std::move(copy);
        }
        return chunk.items()[slot];
    }

    void push_back(const T& value) { emplace_back(value); }
    template <typename... Args> T& emplace_back(Args&&... args)
    {
        const auto [index, slot] = locate(m_size);
        if (slot == 0)
            m_chunks.emplace_back(index == 0 ? kFirstChunkBytes : kChunkBytes);
        // Past the end of every copy: writing here changes nothing another copy reads, even
        // in a chunk they share.
        T* at = ::new (static_cast<void*>(m_chunks.back().items() + slot)) T(std::forward<Args>(args)...);
        ++m_size;
        return *at;
    }

    class const_iterator
    {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = const T*;
        using reference = const T&;
        const_iterator(const SharedChunks* owner, std::size_t i) : m_owner(owner), m_i(i) {}
        const T& operator*() const { return (*m_owner)[m_i]; }
        const_iterator& operator++()
        {
            ++m_i;
            return *this;
        }
        bool operator==(const const_iterator& other) const { return m_i == other.m_i; }

    private:
        const SharedChunks* m_owner;
        std::size_t m_i;
    };
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, m_size}; }

private:
    // (chunk, position in it) of element i.
    static std::pair<std::size_t, std::size_t> locate(std::size_t i)
    {
        if (i < kFirstChunkSize)
            return {0, i};
        const std::size_t later = i - kFirstChunkSize;
        return {1 + later / kChunkSize, later % kChunkSize};
    }

    // A counted reference to one chunk of raw storage (elements are constructed as they
    // are appended). Like a shared_ptr, except that unique() reads the count with acquire
    // ordering: when it says no other copy holds the chunk, their reads of it happened
    // before, and writing in place is safe.
    class ChunkRef
    {
    public:
        explicit ChunkRef(std::size_t bytes)
            : m_items(static_cast<T*>(detail::allocateChunk(bytes))), m_block(new Block{{1}, m_items, bytes})
        {
        }
        ChunkRef(const ChunkRef& other) : m_items(other.m_items), m_block(other.m_block)
        {
            m_block->refs.fetch_add(1, std::memory_order_relaxed);
        }
        ChunkRef(ChunkRef&& other) noexcept
            : m_items(std::exchange(other.m_items, nullptr)), m_block(std::exchange(other.m_block, nullptr))
        {
        }
        ChunkRef& operator=(ChunkRef other) noexcept
        {
            std::swap(m_items, other.m_items);
            std::swap(m_block, other.m_block);
            return *this;
        }
        ~ChunkRef()
        {
            if (m_block && m_block->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                detail::releaseChunk(m_block->items, m_block->bytes);
                delete m_block;
            }
        }
        T* items() const { return m_items; } // one load per element access, as with a pointer
        bool unique() const { return m_block->refs.load(std::memory_order_acquire) == 1; }

    private:
        struct Block
        {
            std::atomic<std::uint32_t> refs;
            T* items;
            std::size_t bytes; // as allocated
        };
        T* m_items; // == m_block->items, kept here so that reading an element is one load
        Block* m_block;
    };
    static_assert(alignof(T) <= alignof(std::max_align_t));

    std::vector<ChunkRef> m_chunks;
    std::size_t m_size = 0;
};

} // namespace spanscope::model::live
