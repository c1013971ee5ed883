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

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

namespace spanscope::model {

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
            m_chunks.push_back(std::make_shared<std::vector<T>>());
        own(m_chunks.size() - 1)->push_back(value);
        ++m_size;
    }

    // Grows to n elements, the new ones `value`; or shrinks to n (truncate()).
    void resize(std::size_t n, const T& value)
    {
        truncate(n);
        while (m_size < n) {
            if (m_size % kLength == 0)
                m_chunks.push_back(std::make_shared<std::vector<T>>());
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
    // Chunk c, held by this copy alone (copied first where another holds it).
    std::vector<T>* own(std::size_t c)
    {
        std::shared_ptr<std::vector<T>>& chunk = m_chunks[c];
        if (chunk.use_count() != 1)
            chunk = std::make_shared<std::vector<T>>(*chunk);
        else // the other copies' reads of it, before they let go, happen before this write
            std::atomic_thread_fence(std::memory_order_acquire);
        return chunk.get();
    }

    std::vector<std::shared_ptr<std::vector<T>>> m_chunks;
    std::size_t m_size = 0;
};

} // namespace spanscope::model
