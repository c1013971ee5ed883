#pragma once
// What the Chrome trace writer (chrome_trace_writer.cpp) writes through: buffered output to a
// plain or gzip file that keeps its first failure, and exact decimal microseconds.

#include <cstdint>
#include <cstdio>
#include <string>
#include <zlib.h>

namespace spanscope::model::io::chrome {

// Buffered output to a plain or gzip file; the first failure is kept and reported.
class TraceOutput
{
public:
    TraceOutput(const std::string& path, bool gzip);
    ~TraceOutput() { close(); }
    TraceOutput(const TraceOutput&) = delete;
    TraceOutput& operator=(const TraceOutput&) = delete;

    std::string& buffer() { return m_buffer; }
    void flushIfFull()
    {
        if (m_buffer.size() >= (size_t(1) << 20))
            flush();
    }
    void flush();
    // Flushes and closes; false (with error()) on failure.
    bool close();
    const std::string& error() const { return m_error; }

private:
    gzFile m_gz = nullptr;
    std::FILE* m_file = nullptr;
    std::string m_buffer;
    std::string m_error;
};

// ns as exact decimal µs: 1500 -> "1.5", -2 -> "-0.002".
void appendMicros(std::string& out, int64_t ns);

} // namespace spanscope::model::io::chrome
