#include "forked_job.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace spanscope::model::io {

namespace {

// The child talks to its parent through a pipe, in records of one type byte and a
// payload: 'P' + double (progress 0..1); 'E' + int32 code + uint32 length + message '\0'
// object (the job failed). Exit status 0 without an 'E' record: the job succeeded.
bool sendAll(int fd, const void* data, size_t size)
{
    const char* bytes = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t sent = ::write(fd, bytes, size);
        if (sent < 0 && errno == EINTR)
            continue;
        if (sent <= 0)
            return false;
        bytes += sent;
        size -= size_t(sent);
    }
    return true;
}

void sendProgress(int fd, double fraction)
{
    char record[1 + sizeof(double)] = {'P'};
    std::memcpy(record + 1, &fraction, sizeof fraction);
    sendAll(fd, record, sizeof record);
}

void sendError(int fd, const Error& error)
{
    const std::string text = error.message + '\0' + error.object;
    const int32_t code = int32_t(error.code);
    const uint32_t length = uint32_t(text.size());
    std::string record(1, 'E');
    record.append(reinterpret_cast<const char*>(&code), sizeof code);
    record.append(reinterpret_cast<const char*>(&length), sizeof length);
    record += text;
    sendAll(fd, record.data(), record.size());
}

// Consumes the complete records at the front of `buffer`.
void receiveRecords(std::string& buffer, const ProgressRange& progress, const std::string& path,
                    std::optional<Error>& error)
{
    size_t used = 0;
    while (used < buffer.size()) {
        const char type = buffer[used];
        if (type == 'P') {
            if (buffer.size() - used < 1 + sizeof(double))
                break;
            double fraction = 0;
            std::memcpy(&fraction, buffer.data() + used + 1, sizeof fraction);
            progress.report(fraction);
            used += 1 + sizeof(double);
            continue;
        }
        const size_t header = 1 + sizeof(int32_t) + sizeof(uint32_t);
        if (type != 'E') {
            error = Error{ErrorCode::Io, "the writing process sent garbage", path, {}};
            used = buffer.size();
            break;
        }
        if (buffer.size() - used < header)
            break;
        int32_t code = 0;
        uint32_t length = 0;
        std::memcpy(&code, buffer.data() + used + 1, sizeof code);
        std::memcpy(&length, buffer.data() + used + 1 + sizeof code, sizeof length);
        if (buffer.size() - used < header + length)
            break;
        const std::string text = buffer.substr(used + header, length);
        const size_t nul = text.find('\0');
        error = Error{ErrorCode(code), text.substr(0, nul), path,
                      nul == std::string::npos ? std::string() : text.substr(nul + 1)};
        used += header + length;
    }
    buffer.erase(0, used);
}

} // namespace

Status runInChild(const std::string& path, const ProgressRange& progress, const ChildJob& job, bool& forked)
{
    forked = false;
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return Ok{};
    const pid_t child = ::fork();
    if (child < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return Ok{};
    }
    forked = true;
    if (child == 0) {
        ::close(fds[0]);
        for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
            std::signal(signal, SIG_DFL);
        std::signal(SIGPIPE, SIG_IGN);
        double reported = -1.0;
        const auto toParent = [&](double fraction) {
            if (fraction - reported >= 0.005) {
                reported = fraction;
                sendProgress(fds[1], fraction);
            }
        };
        Status status = Error{ErrorCode::Io, "not enough memory to write the file", path, {}};
        try {
            status = job(toParent);
        } catch (...) {
        }
        if (!status)
            sendError(fds[1], status.error());
        _exit(status ? 0 : 1); // no atexit handlers: libhdf5 must not tear down here
    }
    ::close(fds[1]);
    std::string buffer;
    std::optional<Error> error;
    bool cancelled = false;
    while (true) {
        if (progress.cancelled()) {
            ::kill(child, SIGKILL);
            cancelled = true;
            break;
        }
        pollfd readable{fds[0], POLLIN, 0};
        const int ready = ::poll(&readable, 1, 50);
        if (ready == 0 || (ready < 0 && errno == EINTR))
            continue;
        char chunk[4096];
        const ssize_t got = ready < 0 ? 0 : ::read(fds[0], chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break; // the child has finished (or died)
        buffer.append(chunk, size_t(got));
        receiveRecords(buffer, progress, path, error);
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (cancelled)
        return Error{ErrorCode::Cancelled, "saving was cancelled", path, {}};
    if (error)
        return *error;
    if (WIFSIGNALED(status))
        return Error{ErrorCode::Io,
                     std::string("the HDF5 library crashed while writing (") +
                         strsignal(WTERMSIG(status)) + ")",
                     path,
                     {}};
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return Error{ErrorCode::Io,
                     "the writing process failed (exit status " +
                         std::to_string(WEXITSTATUS(status)) + ")",
                     path,
                     {}};
    return Ok{};
}

} // namespace spanscope::model::io
