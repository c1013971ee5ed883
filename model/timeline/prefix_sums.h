#pragma once
// A depth row's busy-time prefix sums (TimelineIndex), kept in chunks of 65,536 values that
// the rows of successive live snapshots share: the sums over a row's closed calls never
// change, so the next snapshot's row keeps every whole chunk of them and copies only the
// last, partial one (0.5 MiB at most) instead of 8 bytes per call (docs/live-updates.md,
// "The walk carried over"). A chunk is written only by the row that made it, before its
// index is published; afterwards any thread may read.
//
// A row's chunks after its first are filled whole: they are taken from, and given back to,
// a small process-wide pool of full-sized chunks, so that the copy of a row's partial last
// chunk made by every live update goes into memory already faulted in (on a virtual
// machine a fresh page costs microseconds, more than the copy).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace spanscope::model {

class PrefixSums
{
public:
    static constexpr size_t kChunkBits = 16;
    static constexpr size_t kChunk = size_t(1) << kChunkBits;

    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    int64_t operator[](size_t i) const { return (*m_chunks[i >> kChunkBits])[i & (kChunk - 1)]; }
    int64_t back() const { return (*this)[m_size - 1]; }

    // Becomes the first `count` sums of `from` (count <= from.size()): its whole chunks
    // shared, the rest copied.
    void assignPrefix(const PrefixSums& from, size_t count);
    void push_back(int64_t value)
    {
        if ((m_size & (kChunk - 1)) == 0)
            m_chunks.push_back(m_size == 0 ? std::make_shared<std::vector<int64_t>>() : pooledChunk());
        m_chunks.back()->push_back(value);
        ++m_size;
    }

    // Frees the room the first chunk grew into past its values, where it is the only one
    // (the pooled ones are full-sized).
    void shrinkToFit()
    {
        if (m_chunks.size() == 1 && m_chunks.back().use_count() == 1) // never one it shares
            m_chunks.back()->shrink_to_fit();
    }

    std::vector<int64_t> values() const; // every sum, in order (tests)
    bool operator==(const PrefixSums& other) const { return values() == other.values(); }
    // Bytes of its chunks (a chunk shared with another row counts in both).
    size_t residentBytes() const;

private:
    // An empty chunk with room for kChunk values, from the pool where it has one; given
    // back to it when the last row holding it lets go.
    static std::shared_ptr<std::vector<int64_t>> pooledChunk();

    std::vector<std::shared_ptr<std::vector<int64_t>>> m_chunks;
    size_t m_size = 0;
};

} // namespace spanscope::model
