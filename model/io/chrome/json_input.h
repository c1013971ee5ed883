#pragma once
// The bytes of a Chrome trace file ready for the JSON parser: read whole, inflated when
// gzip-compressed (by content, not by name; libdeflate, or zlib for a damaged stream so
// that everything before the damage is kept), padded as simdjson requires, and with
// invalid UTF-8 bytes and unpaired escaped surrogates replaced so one bad name does not
// make the whole file unreadable or lose its event.

#include "../../column.h"
#include "../../load_control.h"
#include "../../result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace spanscope::model::io {

struct JsonInput
{
    // Bytes left uninitialised when allocated (model/column.h): inflating 1 GB must not
    // first zero 1 GB.
    using Buffer = Column<char>;
    Buffer buffer;    // [begin, begin + size) is the JSON, then kPadding spaces
    size_t begin = 0; // past a UTF-8 byte-order mark
    size_t size = 0;
    uint64_t fileBytes = 0; // bytes on disk
    bool compressed = false;
    std::vector<std::string> warnings; // damage that was repaired or cut off

    static constexpr size_t kPadding =
        128; // SIMDJSON_PADDING (64), and room to close a cut-off array
    const char* data() const { return buffer.data() + begin; }
    char* data() { return buffer.data() + begin; }
    size_t capacity() const { return buffer.size() - begin; } // size + padding
    std::string_view text() const { return {data(), size}; }
};

// Reads `path`. Errors name the file: missing, unreadable, empty, not gzip-decodable at
// all, or larger than `maxBytes` once inflated.
Result<JsonInput> readJsonInput(const std::string& path, const ProgressRange& progress,
                                uint64_t maxBytes = uint64_t(4) << 30);

// True if the file starts like gzip (1f 8b) or like JSON ('{' or '[' after whitespace,
// also behind a UTF-8 byte-order mark): a cheap check for choosing a reader.
bool looksLikeJsonOrGzip(const std::string& path);

// A document cut short (a tracer stopped mid-write, a partial copy) ends inside a value.
// Cuts it back to the end of the last complete element of an array or object at most two
// levels deep (an event of "traceEvents") and closes what is still open, so the events
// before the cut parse. Returns the byte offset of the cut, or nullopt when nothing
// complete precedes it. O(n), scanning strings and escapes; only run on damaged input.
std::optional<size_t> closeTruncatedJson(JsonInput& input);

// Replaces each byte of an invalid UTF-8 sequence with '?'; returns how many were replaced.
size_t repairUtf8(char* bytes, size_t size);

// Rewrites each escaped UTF-16 surrogate that has no partner ("\ud800" alone, or "\udc00"
// first) to "\ufffd", in place (same length): the JSON parser rejects a string holding one,
// which would cost its whole event (a trace cut mid-name, a name made by hand). Returns how
// many were rewritten.
size_t repairLoneSurrogates(char* bytes, size_t size);

} // namespace spanscope::model::io
