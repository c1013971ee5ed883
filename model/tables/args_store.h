#pragma once
// The args of events and instants (Chrome trace "args": a JSON object per event), kept
// as their JSON text and shown on demand. Most events have args, and their text is
// several times the size of the event itself, so the text is held in independently
// compressed blocks (Zstandard, ~64 KiB each): reading one entry decompresses one block
// (~50 µs), and Kineto's repetitive args shrink about tenfold. Append-only while a
// source builds the capture; immutable (any thread) once the capture is published.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace spanscope::model {

// Where an entry lies in the store: offset (40 bits) and length (24 bits) in the
// uncompressed text. Packed so per-event columns cost 8 bytes.
struct ArgsRef
{
    static constexpr uint64_t kNone = UINT64_MAX;
    static constexpr uint64_t kMaxLength = (uint64_t(1) << 24) - 1;
    uint64_t packed = kNone;

    bool valid() const { return packed != kNone; }
    uint64_t offset() const { return packed >> 24; }
    uint64_t length() const { return packed & kMaxLength; }
    static ArgsRef make(uint64_t offset, uint64_t length) { return {(offset << 24) | length}; }
};

class ArgsStore
{
public:
    // Stores `json` (an object's text) and returns where. Text longer than 16 MiB is cut
    // at that length (the entry then ends in "…" and is no longer valid JSON).
    ArgsRef append(std::string_view json);
    // Compresses the last open block; call once the source is done appending.
    void seal();

    // The text of an entry, or empty for an invalid ref. Any thread once sealed.
    std::string text(ArgsRef ref) const;

    bool empty() const { return m_blocks.empty() && m_open.empty(); }
    uint64_t uncompressedBytes() const { return m_size; }
    size_t residentBytes() const;

private:
    void compressOpen();

    struct Block
    {
        uint64_t offset = 0; // of its first byte in the uncompressed text
        uint64_t size = 0;   // uncompressed bytes
        std::string compressed;
        bool raw = false; // compression failed: `compressed` holds the text as is
    };
    static constexpr size_t kBlockBytes = 64 * 1024;
    std::vector<Block> m_blocks;
    std::string m_open; // the block being filled, uncompressed
    uint64_t m_openOffset = 0;
    uint64_t m_size = 0;
};

} // namespace spanscope::model
