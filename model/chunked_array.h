#pragma once
// An array kept in chunks of kLength elements that its copies share, for what a timeline
// row derives from its calls (the summaries, the sampled starts): the rows of successive
// live snapshots hold nearly the same values, and copying them whole for each update made
// the update cost what the capture holds instead of what arrived. A copy shares every
// chunk; writing to one (edit(), push_back(), truncate()) first copies it where another
// copy still holds it (copy on write). Each chunk is a vector of its own, only as long as
// its elements: a short array costs no more than a vector.
//
// Not thread-safe as an object (one writer per copy), but copies may live on different
// threads: a chunk is written in place only where no other copy holds it.
//
// The chunks after an array's first are full-length, taken from and given back to a small
// pool per element type and length: a live update copies each large row's last, partial
// chunk, and memory already faulted in takes the copy for far less than fresh pages (on a
// virtual machine ~2 ms per MiB).

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace spanscope::model {

namespace detail {

// Full-length chunks no array holds any more, emptied (16 MiB of them at most).
template <typename T, std::size_t kLength> class ChunkPool
{
public:
    // An empty chunk with room for kLength elements, given back here when let go of.
    static std::shared_ptr<std::vector<T>> take()
    {
        std::unique_ptr<std::vector<T>> chunk;
        {
            std::lock_guard lock(instance().m_mutex);
            if (!instance().m_free.empty()) {
                chunk = std::move(instance().m_free.back());
                instance().m_free.pop_back();
            }
        }
        if (!chunk) {
            chunk = std::make_unique<std::vector<T>>();
            chunk->reserve(kLength);
        }
        return {chunk.release(), [](std::vector<T>* given) { instance().give(given); }};
    }

private:
    static constexpr std::size_t kMostKept = std::max<std::size_t>(1, (std::size_t(16) << 20) / (kLength * sizeof(T)));
    static ChunkPool& instance()
    {
        static auto* const pool = new ChunkPool; // never destroyed: arrays may outlive statics
        return *pool;
    }
    void give(std::vector<T>* chunk)
    {
        std::unique_ptr<std::vector<T>> owned(chunk);
        owned->clear(); // keeps its memory
        std::lock_guard lock(m_mutex);
        if (m_free.size() < kMostKept)
            m_free.push_back(std::move(owned));
    }

    std::mutex m_mutex;
    std::vector<std::unique_ptr<std::vector<T>>> m_free;
};

} // namespace detail

template <typename T, std::size_t kLength> class ChunkedArray
{
public:
    static_assert(kLength > 0);

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const T& operator[](std::size_t i) const { return (*m_chunks[i / kLength])[i % kLength]; }
    const T& back() const { return (*this)[m_size - 1]; }

    // Element i, writable.
    T& edit(std::size_t i) { return (*own(i / kLength))[i % kLength]; }

    void push_back(const T& value)
    {
        if (m_size % kLength == 0)
            m_chunks.push_back(newChunk(m_chunks.size()));
        own(m_chunks.size() - 1)->push_back(value);
        ++m_size;
    }

    // Grows to n elements, the new ones `value`; or shrinks to n (truncate()).
    void resize(std::size_t n, const T& value)
    {
        truncate(n);
        while (m_size < n) {
            if (m_size % kLength == 0)
                m_chunks.push_back(newChunk(m_chunks.size()));
            std::vector<T>& last = *own(m_chunks.size() - 1);
            const std::size_t add = std::min(n - m_size, kLength - last.size());
            last.insert(last.end(), add, value);
            m_size += add;
        }
    }

    // Drops the elements from n on.
    void truncate(std::size_t n)
    {
        if (n >= m_size)
            return;
        m_chunks.erase(m_chunks.begin() + std::ptrdiff_t((n + kLength - 1) / kLength),
                       m_chunks.end());
        m_size = n;
        if (n % kLength != 0)
            own(m_chunks.size() - 1)->resize(n % kLength);
    }

    // Frees the room an array of one chunk grew into past its elements (the later chunks
    // are full-length, from the pool).
    void shrinkToFit()
    {
        if (m_chunks.size() == 1 && m_chunks[0].use_count() == 1) {
            std::atomic_thread_fence(std::memory_order_acquire); // as own(): after the others' reads
            m_chunks[0]->shrink_to_fit();
        }
    }

    // Chunk by chunk, for arrays derived from another chunk by chunk (a coarser level of a
    // row's summaries from the finer one): a chunk that is the same storage in two arrays
    // holds the same elements in both wherever both hold it whole.
    static constexpr std::size_t chunkBegin(std::size_t chunk) { return chunk * kLength; }
    bool sameWholeChunk(const ChunkedArray& other, std::size_t chunk) const
    {
        return m_size >= chunkBegin(chunk + 1) && other.m_size >= chunkBegin(chunk + 1) &&
               m_chunks[chunk] == other.m_chunks[chunk];
    }
    // Appends `other`'s chunk `chunk` (held whole there) by sharing it; this array ends
    // where that chunk begins.
    void appendWholeChunk(const ChunkedArray& other, std::size_t chunk)
    {
        m_chunks.push_back(other.m_chunks[chunk]);
        m_size = chunkBegin(chunk + 1);
    }

    std::vector<T> values() const
    {
        std::vector<T> out;
        out.reserve(m_size);
        for (const auto& chunk : m_chunks)
            out.insert(out.end(), chunk->begin(), chunk->end());
        return out;
    }
    friend bool operator==(const ChunkedArray& a, const ChunkedArray& b)
    {
        return a.values() == b.values();
    }
    // Bytes of its chunks (a chunk shared with another copy counts in both).
    std::size_t residentBytes() const
    {
        std::size_t bytes = m_chunks.capacity() * sizeof(m_chunks[0]);
        for (const auto& chunk : m_chunks)
            bytes += chunk->capacity() * sizeof(T);
        return bytes;
    }

private:
    // An empty chunk to be chunk c: the first grows as a vector does, the others are
    // full-length from the pool.
    static std::shared_ptr<std::vector<T>> newChunk(std::size_t c)
    {
        return c == 0 ? std::make_shared<std::vector<T>>() : detail::ChunkPool<T, kLength>::take();
    }
    // Chunk c, held by this copy alone (copied first where another holds it).
    std::vector<T>* own(std::size_t c)
    {
        std::shared_ptr<std::vector<T>>& chunk = m_chunks[c];
        if (chunk.use_count() != 1) {
            auto copy = newChunk(c);
            copy->assign(chunk->begin(), chunk->end());
            chunk = std::move(copy);
        } else { // the other copies' reads of it, before they let go, happen before this write
            std::atomic_thread_fence(std::memory_order_acquire);
        }
        return chunk.get();
    }

    std::vector<std::shared_ptr<std::vector<T>>> m_chunks;
    std::size_t m_size = 0;
};

// The first index of `array` whose element is not `before`, for a `before` true on a
// prefix of it (std::partition_point by index). O(log n).
template <typename T, std::size_t kLength, typename Before>
std::size_t partitionPoint(const ChunkedArray<T, kLength>& array, Before before)
{
    std::size_t low = 0, high = array.size();
    while (low < high) {
        const std::size_t mid = low + (high - low) / 2;
        if (before(array[mid]))
            low = mid + 1;
        else
            high = mid;
    }
    return low;
}

// Rewrites `array`, sorted by `less`, from the first element that changes: leaves out one
// element `same` as each of `removed` (those with none are ignored) and merges `added` in,
// each after the elements it is not less than; `removed` and `added` sorted by `less`.
// The elements before the first changed stay shared with the array's copies. O(elements
// from there on + changes). Returns the elements left out.
template <typename T, std::size_t kLength, typename Less, typename Same>
std::vector<T> updateSorted(ChunkedArray<T, kLength>& array, const std::vector<T>& removed,
                            const std::vector<T>& added, Less less, Same same)
{
    auto lowerBound = [&](const T& value) { return partitionPoint(array, [&](const T& x) { return less(x, value); }); };
    std::size_t first = array.size();
    if (!removed.empty())
        first = std::min(first, lowerBound(removed.front()));
    if (!added.empty())
        first = std::min(first, lowerBound(added.front()));
    std::vector<T> tail, left;
    tail.reserve(array.size() - first + added.size());
    std::vector<bool> used(removed.size(), false);
    std::size_t r = 0, a = 0;
    for (std::size_t i = first; i < array.size(); ++i) {
        const T value = array[i];
        while (a < added.size() && less(added[a], value))
            tail.push_back(added[a++]);
        while (r < removed.size() && less(removed[r], value))
            ++r; // below every element still to come: it matches none
        bool leftOut = false;
        for (std::size_t k = r; k < removed.size() && !less(value, removed[k]) && !leftOut; ++k)
            if (!used[k] && same(removed[k], value))
                used[k] = leftOut = true;
        if (leftOut)
            left.push_back(value);
        else
            tail.push_back(value);
    }
    tail.insert(tail.end(), added.begin() + std::ptrdiff_t(a), added.end());
    array.truncate(first);
    for (const T& value : tail)
        array.push_back(value);
    return left;
}

} // namespace spanscope::model
