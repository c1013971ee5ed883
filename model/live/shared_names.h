#pragma once
// A growing list of names whose copies share their storage, for the live assembler's
// region names and the stream's strings. A live update freezes a copy of the assembler on
// the ingest thread; when every range has a name of its own (PyTorch's emit_nvtx: "aten::add,
// seq = N") a copy of a vector of strings cost a heap string per range, on the thread that
// reads the socket. Here a copy takes a reference per chunk of entries and per block of text.
//
// Text goes into blocks that are only ever appended to, so a copy's entries keep pointing at
// bytes that never change. Like SharedChunks: not thread-safe as an object, but copies may
// live on different threads.

#include "shared_chunks.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace spanscope::model::live {

class SharedNames
{
public:
    std::size_t size() const { return m_entries.size(); }
    bool empty() const { return m_entries.empty(); }

    std::string_view operator[](std::size_t i) const
    {
        const Entry& e = m_entries[i];
        return {e.text, e.length};
    }

    // Appends `text`; returns its index.
    std::size_t push_back(std::string_view text)
    {
        const char* stored = store(text);
        m_entries.push_back({stored, text.size()});
        return m_entries.size() - 1;
    }

private:
    struct Entry
    {
        const char* text;
        std::size_t length;
    };
    // Text blocks of 64 KiB; a longer name gets a block of its own.
    static constexpr std::size_t kBlockBytes = std::size_t(64) << 10;

    const char* store(std::string_view text)
    {
        if (text.empty())
            return "";
        if (text.size() > kBlockBytes - m_used || m_blocks.empty()) {
            const std::size_t bytes = std::max(kBlockBytes, text.size());
            m_blocks.push_back(std::shared_ptr<char[]>(new char[bytes]));
            // A name longer than a block fills its own; the next one starts a new block.
            m_used = text.size() > kBlockBytes ? kBlockBytes : 0;
            if (text.size() > kBlockBytes) {
                std::memcpy(m_blocks.back().get(), text.data(), text.size());
                return m_blocks.back().get();
            }
        }
        // Past what any copy's entries point at: writing here changes nothing they read.
        char* at = m_blocks.back().get() + m_used;
        std::memcpy(at, text.data(), text.size());
        m_used += text.size();
        return at;
    }

    SharedChunks<Entry> m_entries;
    std::vector<std::shared_ptr<char[]>> m_blocks;
    std::size_t m_used = 0; // bytes used in m_blocks.back()
};

} // namespace spanscope::model::live
