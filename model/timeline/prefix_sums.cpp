#include "prefix_sums.h"

#include <mutex>

namespace spanscope::model {

namespace {

// Full-sized chunks no row holds any more, emptied, for the next rows to fill.
class ChunkPool
{
public:
    static ChunkPool& instance()
    {
        static auto* const pool = new ChunkPool; // never destroyed: rows may outlive statics
        return *pool;
    }
    std::unique_ptr<std::vector<int64_t>> take()
    {
        {
            std::lock_guard lock(m_mutex);
            if (!m_free.empty()) {
                auto chunk = std::move(m_free.back());
                m_free.pop_back();
                return chunk;
            }
        }
        auto chunk = std::make_unique<std::vector<int64_t>>();
        chunk->reserve(PrefixSums::kChunk);
        return chunk;
    }
    void give(std::vector<int64_t>* chunk)
    {
        std::unique_ptr<std::vector<int64_t>> owned(chunk);
        owned->clear(); // keeps its memory
        std::lock_guard lock(m_mutex);
        if (m_free.size() < kMostKept)
            m_free.push_back(std::move(owned));
    }

private:
    // 16 MiB at most: a live update copies one partial chunk per large row.
    static constexpr size_t kMostKept = 32;
    std::mutex m_mutex;
    std::vector<std::unique_ptr<std::vector<int64_t>>> m_free;
};

} // namespace

std::shared_ptr<std::vector<int64_t>> PrefixSums::pooledChunk()
{
    return {ChunkPool::instance().take().release(), [](std::vector<int64_t>* chunk) { ChunkPool::instance().give(chunk); }};
}

void PrefixSums::assignPrefix(const PrefixSums& from, size_t count)
{
    m_chunks.clear();
    m_size = count;
    const size_t whole = count >> kChunkBits;
    m_chunks.assign(from.m_chunks.begin(), from.m_chunks.begin() + int64_t(whole));
    if (const size_t rest = count & (kChunk - 1); rest > 0) {
        const auto& partial = *from.m_chunks[whole];
        m_chunks.push_back(whole == 0 ? std::make_shared<std::vector<int64_t>>() : pooledChunk());
        m_chunks.back()->assign(partial.begin(), partial.begin() + int64_t(rest));
    }
}

std::vector<int64_t> PrefixSums::values() const
{
    std::vector<int64_t> out;
    out.reserve(m_size);
    for (const auto& chunk : m_chunks)
        out.insert(out.end(), chunk->begin(), chunk->end());
    return out;
}

size_t PrefixSums::residentBytes() const
{
    size_t bytes = m_chunks.capacity() * sizeof(m_chunks[0]);
    for (const auto& chunk : m_chunks)
        bytes += chunk->capacity() * sizeof(int64_t);
    return bytes;
}

} // namespace spanscope::model
