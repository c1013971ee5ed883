#include "prefix_sums.h"

namespace spanscope::model {

void PrefixSums::assignPrefix(const PrefixSums& from, size_t count)
{
    m_chunks.clear();
    m_size = count;
    const size_t whole = count >> kChunkBits;
    m_chunks.assign(from.m_chunks.begin(), from.m_chunks.begin() + int64_t(whole));
    if (const size_t rest = count & (kChunk - 1); rest > 0) {
        const auto& partial = *from.m_chunks[whole];
        m_chunks.push_back(std::make_shared<std::vector<int64_t>>(partial.begin(),
                                                                  partial.begin() + int64_t(rest)));
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
