#include "args_store.h"

#include <algorithm>
#include <zstd.h>

namespace spanscope::model {

ArgsRef ArgsStore::append(std::string_view json)
{
    const bool cut = json.size() > ArgsRef::kMaxLength;
    std::string_view kept = cut ? json.substr(0, ArgsRef::kMaxLength - 3) : json;
    const ArgsRef ref = ArgsRef::make(m_size, kept.size() + (cut ? 3 : 0));
    m_open.append(kept);
    if (cut)
        m_open.append("\xE2\x80\xA6"); // …
    m_size += ref.length();
    // An entry never spans two blocks: blocks close after the entry that fills them.
    if (m_open.size() >= kBlockBytes)
        compressOpen();
    return ref;
}

void ArgsStore::compressOpen()
{
    if (m_open.empty())
        return;
    Block block;
    block.offset = m_openOffset;
    block.size = m_open.size();
    block.compressed.resize(ZSTD_compressBound(m_open.size()));
    const size_t written = ZSTD_compress(block.compressed.data(), block.compressed.size(),
                                         m_open.data(), m_open.size(), 1);
    if (ZSTD_isError(written)) {
        block.compressed = m_open; // stored as is
        block.raw = true;
    } else {
        block.compressed.resize(written);
        block.compressed.shrink_to_fit();
    }
    m_openOffset += m_open.size();
    m_blocks.push_back(std::move(block));
    m_open.clear();
}

void ArgsStore::seal()
{
    compressOpen();
    m_open.shrink_to_fit();
    m_blocks.shrink_to_fit();
}

std::string ArgsStore::text(ArgsRef ref) const
{
    if (!ref.valid() || ref.offset() + ref.length() > m_size)
        return {};
    const uint64_t offset = ref.offset();
    if (offset >= m_openOffset) // still in the open block (a capture being built)
        return m_open.substr(offset - m_openOffset, ref.length());
    const auto it =
        std::upper_bound(m_blocks.begin(), m_blocks.end(), offset,
                         [](uint64_t value, const Block& block) { return value < block.offset; });
    if (it == m_blocks.begin())
        return {};
    const Block& block = *std::prev(it);
    if (offset + ref.length() > block.offset + block.size)
        return {};
    std::string plain;
    if (block.raw) {
        plain = block.compressed;
    } else {
        plain.resize(block.size);
        const size_t got = ZSTD_decompress(plain.data(), plain.size(), block.compressed.data(),
                                           block.compressed.size());
        if (ZSTD_isError(got) || got != block.size)
            return {};
    }
    return plain.substr(offset - block.offset, ref.length());
}

size_t ArgsStore::residentBytes() const
{
    size_t bytes = m_open.capacity() + m_blocks.capacity() * sizeof(Block);
    for (const auto& block : m_blocks)
        bytes += block.compressed.capacity();
    return bytes;
}

} // namespace spanscope::model
