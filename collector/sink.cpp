#include "sink.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace spanscope::collector {

Sink::~Sink()
{
    close();
}

void Sink::close()
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    m_pending.clear();
}

bool Sink::openFile(const char* path, std::string& error)
{
    m_fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (m_fd < 0) {
        error = std::string("cannot open SPANSCOPE_OUTPUT ") + path + ": " + std::strerror(errno);
        return false;
    }
    m_socket = false;
    return true;
}

bool Sink::openFileIn(const char* directory, const std::string& stem, std::string& error)
{
    // O_EXCL: a pid reused during a long job must not overwrite an earlier process's stream.
    for (int attempt = 0; attempt < 100; ++attempt) {
        std::string path = directory;
        path += '/';
        path += stem;
        if (attempt > 0) {
            path += '-';
            path += std::to_string(attempt);
        }
        path += ".sps";
        m_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (m_fd >= 0) {
            m_socket = false;
            return true;
        }
        if (errno != EEXIST) {
            error = "cannot create " + path + " in SPANSCOPE_OUTPUT_DIR: " + std::strerror(errno);
            return false;
        }
    }
    error = std::string("no free stream name in SPANSCOPE_OUTPUT_DIR ") + directory;
    return false;
}

bool Sink::connectSocket(const char* path, std::string& error)
{
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (std::strlen(path) >= sizeof(addr.sun_path)) {
        error = std::string("SPANSCOPE_SOCKET path too long: ") + path;
        return false;
    }
    std::strcpy(addr.sun_path, path);
    m_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (m_fd < 0) {
        error = std::string("socket: ") + std::strerror(errno);
        return false;
    }
    if (::connect(m_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        error =
            std::string("cannot connect to SPANSCOPE_SOCKET ") + path + ": " + std::strerror(errno);
        close();
        return false;
    }
    // Non-blocking from here on: a slow viewer must never stall the sender for long.
    ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) | O_NONBLOCK);
    m_socket = true;
    return true;
}

bool Sink::waitWritable(int waitMs)
{
    if (waitMs <= 0)
        return false;
    pollfd p{m_fd, POLLOUT, 0};
    return ::poll(&p, 1, waitMs) == 1 && (p.revents & POLLOUT);
}

// Finishes a partly sent frame. Returns true when nothing is pending any more.
bool Sink::flushPending(int waitMs)
{
    while (!m_pending.empty() && m_fd >= 0) {
        const ssize_t n = ::send(m_fd, m_pending.data(), m_pending.size(), MSG_NOSIGNAL);
        if (n > 0) {
            m_pending.erase(m_pending.begin(), m_pending.begin() + n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!waitWritable(waitMs))
                return false;
        } else {
            close(); // reader gone (EPIPE, ECONNRESET) or a real error
            return false;
        }
    }
    return m_pending.empty();
}

namespace {

// Drops the first `n` bytes from the parts [*parts, *parts + *count).
void advance(iovec*& parts, int& count, std::size_t n)
{
    while (count > 0 && n >= parts->iov_len) {
        n -= parts->iov_len;
        ++parts;
        --count;
    }
    if (count > 0) {
        parts->iov_base = static_cast<char*>(parts->iov_base) + n;
        parts->iov_len -= n;
    }
}

} // namespace

Sink::Result Sink::send(const iovec* frameParts, int count, int waitMs)
{
    if (m_fd < 0)
        return Result::Closed;
    constexpr int kMaxParts = 8;
    if (count > kMaxParts)
        return Result::Dropped;
    iovec storage[kMaxParts];
    std::size_t total = 0;
    for (int i = 0; i < count; ++i) {
        storage[i] = frameParts[i];
        total += frameParts[i].iov_len;
    }
    iovec* parts = storage;

    if (!m_socket) {
        while (count > 0) {
            const ssize_t n = ::writev(m_fd, parts, count);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                close();
                return Result::Closed;
            }
            advance(parts, count, std::size_t(n));
        }
        return Result::Sent;
    }

    if (!flushPending(waitMs))
        return m_fd < 0 ? Result::Closed : Result::Dropped;
    std::size_t sent = 0;
    while (count > 0) {
        msghdr msg{};
        msg.msg_iov = parts;
        msg.msg_iovlen = std::size_t(count);
        const ssize_t n = ::sendmsg(m_fd, &msg, MSG_NOSIGNAL);
        if (n > 0) {
            sent += std::size_t(n);
            advance(parts, count, std::size_t(n));
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (sent == 0) {
                if (waitWritable(waitMs))
                    continue;
                return Result::Dropped; // nothing of it left: drop it whole
            }
            // Part of it is out: the rest must follow before any other frame.
            m_pending.clear();
            m_pending.reserve(total - sent);
            for (int i = 0; i < count; ++i) {
                const char* p = static_cast<const char*>(parts[i].iov_base);
                m_pending.insert(m_pending.end(), p, p + parts[i].iov_len);
            }
            flushPending(waitMs);
            return m_fd < 0 ? Result::Closed : Result::Sent;
        } else {
            close();
            return Result::Closed;
        }
    }
    return Result::Sent;
}

} // namespace spanscope::collector
