#include "trace_output.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace spanscope::model::io::chrome {

TraceOutput::TraceOutput(const std::string& path, bool gzip)
{
    if (gzip)
        m_gz = gzopen(path.c_str(), "wb1"); // fast: exporting 5 M events must not crawl
    else
        m_file = std::fopen(path.c_str(), "wb");
    if (!m_gz && !m_file)
        m_error = std::strerror(errno ? errno : EIO);
}

void TraceOutput::flush()
{
    if (m_buffer.empty() || !m_error.empty())
        return;
    if (m_gz) {
        if (gzwrite(m_gz, m_buffer.data(), unsigned(m_buffer.size())) != int(m_buffer.size()))
            m_error = "cannot write (gzip); the disk may be full";
    } else if (std::fwrite(m_buffer.data(), 1, m_buffer.size(), m_file) != m_buffer.size()) {
        m_error = std::string("cannot write: ") + std::strerror(errno);
    }
    m_buffer.clear();
}

bool TraceOutput::close()
{
    flush();
    if (m_gz) {
        if (gzclose(m_gz) != Z_OK && m_error.empty())
            m_error = "cannot finish the gzip stream; the disk may be full";
        m_gz = nullptr;
    }
    if (m_file) {
        if ((std::fflush(m_file) != 0 || ::fsync(::fileno(m_file)) != 0) && m_error.empty())
            m_error = std::string("cannot write: ") + std::strerror(errno);
        if (std::fclose(m_file) != 0 && m_error.empty())
            m_error = std::string("cannot close: ") + std::strerror(errno);
        m_file = nullptr;
    }
    return m_error.empty();
}

void appendMicros(std::string& out, int64_t ns)
{
    uint64_t magnitude = ns < 0 ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    if (ns < 0)
        out += '-';
    out += std::to_string(magnitude / 1000);
    unsigned fraction = unsigned(magnitude % 1000);
    if (fraction) {
        char digits[5] = {'.', char('0' + fraction / 100), char('0' + fraction / 10 % 10),
                          char('0' + fraction % 10), 0};
        int length = 4;
        while (digits[length - 1] == '0')
            --length;
        out.append(digits, size_t(length));
    }
}

} // namespace spanscope::model::io::chrome
