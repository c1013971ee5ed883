#include "json_input.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <libdeflate.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace spanscope::model::io {

namespace {

using Buffer = JsonInput::Buffer;

struct Fd
{
    int fd = -1;
    ~Fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

Error fileError(ErrorCode code, const std::string& path, std::string message)
{
    return Error{code, std::move(message), path, {}};
}

// Reads the whole file; `progress` covers the read.
Result<Buffer> readAll(const std::string& path, const ProgressRange& progress)
{
    Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (file.fd < 0)
        return fileError(ErrorCode::NotFound, path,
                         std::string("cannot open: ") + std::strerror(errno));
    struct stat info
    {
    };
    if (::fstat(file.fd, &info) != 0 || !S_ISREG(info.st_mode))
        return fileError(ErrorCode::Io, path, "is not a regular file");
    Buffer data;
    data.reserve(size_t(info.st_size) + JsonInput::kPadding); // no copy when padded later
    data.resize(size_t(info.st_size));
    size_t done = 0;
    while (done < data.size()) {
        const size_t chunk = std::min<size_t>(data.size() - done, size_t(64) << 20);
        const ssize_t got = ::read(file.fd, data.data() + done, chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return fileError(ErrorCode::Io, path,
                             std::string("cannot read: ") + std::strerror(errno));
        if (got == 0)
            break; // shrank while reading
        done += size_t(got);
        progress.report(double(done) / double(data.size()));
        if (progress.cancelled())
            return fileError(ErrorCode::Cancelled, path, "loading was cancelled");
    }
    data.resize(done);
    return data;
}

bool isGzip(const Buffer& data)
{
    return data.size() >= 2 && uint8_t(data[0]) == 0x1f && uint8_t(data[1]) == 0x8b;
}

// Every member of a gzip file inflated into `out`. libdeflate does whole buffers fast; a
// member it cannot decode (truncated or damaged) is inflated again with zlib, which
// delivers everything before the damage. Returns a warning when something was cut off.
Result<std::string> inflateAll(const std::string& path, const Buffer& in, Buffer& out,
                               uint64_t maxBytes)
{
    libdeflate_decompressor* decompressor = libdeflate_alloc_decompressor();
    if (!decompressor)
        return fileError(ErrorCode::Io, path, "out of memory for the gzip decoder");
    size_t inPos = 0, outPos = 0;
    std::string warning;
    while (inPos + 18 <= in.size() && uint8_t(in[inPos]) == 0x1f &&
           uint8_t(in[inPos + 1]) == 0x8b) {
        // The member's trailer holds its size mod 2^32 only if this is the last member;
        // use it as the first guess and grow on demand.
        uint32_t trailer = 0;
        std::memcpy(&trailer, in.data() + in.size() - 4, 4);
        // Deflate expands at most ~1032:1; a larger "size" is a damaged or cut-off trailer.
        const size_t compressed = in.size() - inPos;
        size_t guess =
            trailer > 0 && trailer <= compressed * 1032 ? size_t(trailer) + 1 : compressed * 4;
        libdeflate_result result = LIBDEFLATE_INSUFFICIENT_SPACE;
        size_t consumed = 0, produced = 0;
        while (true) {
            if (outPos + guess > maxBytes)
                guess = size_t(maxBytes - outPos);
            // Room for simdjson's padding too: growing the buffer afterwards would copy it.
            out.resize(outPos + guess + JsonInput::kPadding);
            const BackgroundPrefault prefault(out.data() + outPos, guess);
            result =
                libdeflate_gzip_decompress_ex(decompressor, in.data() + inPos, in.size() - inPos,
                                              out.data() + outPos, guess, &consumed, &produced);
            if (result != LIBDEFLATE_INSUFFICIENT_SPACE || outPos + guess >= maxBytes)
                break;
            guess *= 2;
        }
        if (result == LIBDEFLATE_SUCCESS) {
            inPos += consumed;
            outPos += produced;
            continue;
        }
        if (result == LIBDEFLATE_INSUFFICIENT_SPACE) {
            libdeflate_free_decompressor(decompressor);
            return fileError(ErrorCode::Io, path,
                             "inflates to more than " + std::to_string(maxBytes >> 20) +
                                 " MiB, more than can be read");
        }
        // Damaged or truncated: salvage with zlib's streaming inflate.
        z_stream stream{};
        if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK)
            break;
        stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + inPos));
        stream.avail_in = uInt(std::min<size_t>(in.size() - inPos, UINT32_MAX));
        int status = Z_OK;
        while (status == Z_OK) {
            if (out.size() - outPos < (size_t(1) << 20)) {
                if (out.size() >= maxBytes)
                    break;
                out.resize(std::min<uint64_t>(maxBytes, out.size() * 2 + (size_t(1) << 20)));
            }
            stream.next_out = reinterpret_cast<Bytef*>(out.data() + outPos);
            stream.avail_out = uInt(std::min<size_t>(out.size() - outPos, UINT32_MAX));
            const uInt before = stream.avail_out;
            status = inflate(&stream, Z_NO_FLUSH);
            outPos += before - stream.avail_out;
        }
        const uint64_t damagedAt = inPos + stream.total_in;
        inflateEnd(&stream);
        warning = "the gzip data is damaged or cut short at compressed byte " +
                  std::to_string(damagedAt) + "; what came before it was read";
        inPos = in.size();
        break;
    }
    libdeflate_free_decompressor(decompressor);
    if (outPos == 0 && !warning.empty())
        return fileError(ErrorCode::Corrupt, path,
                         "the gzip data is damaged; nothing could be inflated");
    out.reserve(outPos + JsonInput::kPadding);
    out.resize(outPos);
    return warning;
}

} // namespace

std::optional<size_t> closeTruncatedJson(JsonInput& input)
{
    const char* text = input.data();
    std::vector<char> stack;
    std::vector<char> kept;    // the open brackets at the last complete element
    std::optional<size_t> cut; // just past that element
    bool inString = false, escaped = false;
    for (size_t i = 0; i < input.size; ++i) {
        const char c = text[i];
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            stack.push_back(c);
        } else if (c == '}' || c == ']') {
            if (stack.empty())
                return std::nullopt; // not truncation: the brackets do not match
            stack.pop_back();
            if (!stack.empty() && stack.size() <= 2) {
                cut = i + 1;
                kept = stack;
            }
        }
    }
    if (!cut || (stack.empty() && !inString))
        return std::nullopt;
    // Room for the closers: the cut drops at least the unfinished element, and the
    // padding holds the rest.
    size_t end = *cut;
    char* data = input.data();
    for (auto it = kept.rbegin(); it != kept.rend(); ++it)
        data[end++] = *it == '{' ? '}' : ']';
    std::memset(data + end, ' ', std::min<size_t>(JsonInput::kPadding, input.capacity() - end));
    input.size = end;
    return *cut;
}

size_t repairUtf8(char* bytes, size_t size)
{
    size_t replaced = 0;
    auto* s = reinterpret_cast<unsigned char*>(bytes);
    size_t i = 0;
    while (i < size) {
        const unsigned char c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        size_t length = 0;
        uint32_t minimum = 0;
        uint32_t code = 0;
        if ((c & 0xE0) == 0xC0)
            length = 2, minimum = 0x80, code = c & 0x1F;
        else if ((c & 0xF0) == 0xE0)
            length = 3, minimum = 0x800, code = c & 0x0F;
        else if ((c & 0xF8) == 0xF0)
            length = 4, minimum = 0x10000, code = c & 0x07;
        bool valid = length > 0 && i + length <= size;
        for (size_t k = 1; valid && k < length; ++k) {
            if ((s[i + k] & 0xC0) != 0x80)
                valid = false;
            else
                code = (code << 6) | (s[i + k] & 0x3F);
        }
        if (valid && (code < minimum || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)))
            valid = false;
        if (valid) {
            i += length;
        } else {
            s[i++] = '?';
            ++replaced;
        }
    }
    return replaced;
}

namespace {

// The value of 4 hex digits at `p`, or -1 when [p, end) does not start with 4 of them.
int hex4(const char* p, const char* end)
{
    if (end - p < 4)
        return -1;
    int value = 0;
    for (int i = 0; i < 4; ++i) {
        const char c = p[i];
        const int digit = c >= '0' && c <= '9'   ? c - '0'
                          : c >= 'a' && c <= 'f' ? c - 'a' + 10
                          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                 : -1;
        if (digit < 0)
            return -1;
        value = value * 16 + digit;
    }
    return value;
}

} // namespace

size_t repairLoneSurrogates(char* bytes, size_t size)
{
    size_t replaced = 0;
    const char* end = bytes + size;
    // Valid JSON has backslashes only inside strings, each starting an escape: stepping
    // from escape to escape needs no string state (and JSON that is not valid fails to
    // parse whatever this does).
    for (char* p = bytes; (p = static_cast<char*>(std::memchr(p, '\\', size_t(end - p))));) {
        if (end - p < 2)
            break;
        if (p[1] != 'u') {
            p += 2; // \\, \", \n, ...: the escaped character is not a new escape
            continue;
        }
        const int code = hex4(p + 2, end);
        if (code < 0xD800 || code > 0xDFFF) { // not a surrogate (or not an escape at all)
            p += 2;
            continue;
        }
        if (code <= 0xDBFF && end - p >= 12 && p[6] == '\\' && p[7] == 'u') {
            const int low = hex4(p + 8, end);
            if (low >= 0xDC00 && low <= 0xDFFF) {
                p += 12; // a pair: one character past U+FFFF
                continue;
            }
        }
        std::memcpy(p + 2, "fffd", 4);
        ++replaced;
        p += 6;
    }
    return replaced;
}

bool looksLikeJsonOrGzip(const std::string& path)
{
    Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (file.fd < 0)
        return false;
    unsigned char head[64];
    const ssize_t got = ::read(file.fd, head, sizeof head);
    if (got >= 2 && head[0] == 0x1f && head[1] == 0x8b)
        return true;
    ssize_t i = 0;
    if (got >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF)
        i = 3;
    while (i < got && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
        ++i;
    return i < got && (head[i] == '{' || head[i] == '[');
}

Result<JsonInput> readJsonInput(const std::string& path, const ProgressRange& progress,
                                uint64_t maxBytes)
{
    auto read = readAll(path, progress.sub(0.0, 0.3));
    if (!read)
        return read.error();
    Buffer& raw = read.value();
    JsonInput input;
    input.fileBytes = raw.size();
    if (raw.empty())
        return fileError(ErrorCode::Corrupt, path, "the file is empty");
    Buffer inflated;
    const Buffer* json = &raw;
    if (isGzip(raw)) {
        input.compressed = true;
        auto inflatedWarning = inflateAll(path, raw, inflated, maxBytes);
        if (!inflatedWarning)
            return inflatedWarning.error();
        if (!inflatedWarning.value().empty())
            input.warnings.push_back(inflatedWarning.value());
        raw.clear();
        raw.shrink_to_fit();
        json = &inflated;
    } else if (raw.size() > maxBytes) {
        return fileError(ErrorCode::Io, path,
                         "is larger than " + std::to_string(maxBytes >> 20) + " MiB of JSON");
    }
    progress.report(0.9);
    input.buffer = std::move(json == &raw ? raw : inflated);
    if (input.buffer.size() >= 3 && uint8_t(input.buffer[0]) == 0xEF &&
        uint8_t(input.buffer[1]) == 0xBB && uint8_t(input.buffer[2]) == 0xBF)
        input.begin = 3; // byte-order mark
    input.size = input.buffer.size() - input.begin;
    input.buffer.resize(input.buffer.size() + JsonInput::kPadding, ' ');
    // "1 invalid UTF-8 byte is shown as '?'", "2 invalid UTF-8 bytes are ...".
    const auto shownAs = [](size_t n, const char* noun, const char* detail, const char* as) {
        return std::to_string(n) + " " + noun + (n == 1 ? "" : "s") + detail +
               (n == 1 ? " is" : " are") + " shown as " + as;
    };
    if (!simdjson::validate_utf8(input.data(), input.size))
        if (const size_t replaced = repairUtf8(input.data(), input.size))
            input.warnings.push_back(shownAs(replaced, "invalid UTF-8 byte", "", "'?'"));
    if (const size_t replaced = repairLoneSurrogates(input.data(), input.size))
        input.warnings.push_back(
            shownAs(replaced, "unpaired UTF-16 surrogate escape", " (\\ud800-\\udfff)", "U+FFFD"));
    progress.report(1.0);
    return input;
}

} // namespace spanscope::model::io
