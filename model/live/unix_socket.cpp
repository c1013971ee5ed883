#include "unix_socket.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace spanscope::model::live {

namespace {

bool makeAddress(const std::string& path, sockaddr_un& address, std::string& error)
{
    address = {};
    address.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof(address.sun_path)) {
        error = "the socket path " + path + " is empty or longer than " +
                std::to_string(sizeof(address.sun_path) - 1) + " bytes";
        return false;
    }
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    return true;
}

// A stream socket and the address of `path` for it, or -1.
int openSocket(const std::string& path, sockaddr_un& address, std::string& error)
{
    if (!makeAddress(path, address, error))
        return -1;
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        error = std::string("cannot create a socket: ") + std::strerror(errno);
    return fd;
}

} // namespace

int listenUnix(const std::string& path, std::string& error, int backlog)
{
    sockaddr_un address;
    const int fd = openSocket(path, address, error);
    if (fd < 0)
        return -1;
    ::unlink(path.c_str());
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(fd, backlog) != 0) {
        error = "cannot listen on " + path + ": " + std::strerror(errno);
        ::close(fd);
        return -1;
    }
    return fd;
}

int connectUnix(const std::string& path, std::string& error)
{
    sockaddr_un address;
    const int fd = openSocket(path, address, error);
    if (fd < 0)
        return -1;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        error = "cannot connect to " + path + ": " + std::strerror(errno);
        ::close(fd);
        return -1;
    }
    return fd;
}

bool ensurePrivateDirectory(const std::string& path, std::string& error)
{
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
        error = "cannot create the directory " + path + ": " + std::strerror(errno);
        return false;
    }
    struct stat info;
    if (::lstat(path.c_str(), &info) != 0) {
        error = "cannot read the directory " + path + ": " + std::strerror(errno);
        return false;
    }
    if (!S_ISDIR(info.st_mode) || info.st_uid != ::getuid() || (info.st_mode & 0022) != 0) {
        error = path + " is not a private directory of this user (another user could plant "
                       "jobs there); remove it or set SPANSCOPE_JOBS_DIR";
        return false;
    }
    return true;
}

bool readLine(int fd, std::string& line, int timeoutMs, std::string& error, size_t maxBytes)
{
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
    line.clear();
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        pollfd p{fd, POLLIN, 0};
        const int ready = left > 0 ? ::poll(&p, 1, int(left)) : 0;
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0) {
            error = ready == 0 ? "no answer within " + std::to_string(timeoutMs) + " ms"
                               : std::string("poll: ") + std::strerror(errno);
            return false;
        }
        char c;
        const ssize_t n = ::read(fd, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            error = n == 0 ? "the other side closed the connection"
                           : std::string("read: ") + std::strerror(errno);
            return false;
        }
        if (c == '\n')
            return true;
        if (line.size() >= maxBytes) {
            error = "the line is longer than " + std::to_string(maxBytes) + " bytes";
            return false;
        }
        line += c;
    }
}

bool writeAll(int fd, const std::string& text)
{
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += size_t(n);
    }
    return true;
}

} // namespace spanscope::model::live
