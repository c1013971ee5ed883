#include "crash_guard.h"

#include "reader_parts.h"

#include <csignal>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

namespace spanscope::model::io {

namespace {
constexpr int kProbeTimeoutMs = 60'000; // structure walks take milliseconds; this is a hang
// Exit statuses of an orderly probe. Anything else (a sanitizer's or the C runtime's own
// exit after a fault) counts as a crash.
constexpr int kProbeRead = 0;
constexpr int kProbeRejected = 42;
} // namespace

std::mutex& hdf5Mutex()
{
    static std::mutex mutex;
    return mutex;
}

// clang does not define GCC's __SANITIZE_* macros; it answers __has_feature instead.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SPANSCOPE_CLANG_SANITIZED 1
#endif
#endif
#ifndef SPANSCOPE_CLANG_SANITIZED
#define SPANSCOPE_CLANG_SANITIZED 0
#endif

Status probeStructureInChild(const std::string& path)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || SPANSCOPE_CLANG_SANITIZED
    // Sanitizer runtimes are not fork-safe: a child forked while another thread holds the
    // sanitizer allocator's lock blocks forever on its first malloc. Sanitized builds are
    // for testing our own code, so they read in-process.
    (void)path;
    return Ok{};
#endif
    const pid_t child = fork();
    if (child < 0)
        return Ok{}; // cannot isolate: read in-process as before
    if (child == 0) {
        // A crash must end the child by its signal, even where the host (or a sanitizer)
        // installed handlers that would turn it into an exit code.
        for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
            std::signal(signal, SIG_DFL);
        int status = kProbeRejected;
        try {
            status = readRegionStructure(path) ? kProbeRead : kProbeRejected;
        } catch (...) {
        }
        _exit(status); // no atexit handlers, no stdio flushing of the parent's buffers
    }
    int status = 0;
    for (int waited = 0;; ++waited) {
        const pid_t done = waitpid(child, &status, WNOHANG);
        if (done == child)
            break;
        if (done < 0)
            return Ok{};
        if (waited >= kProbeTimeoutMs) {
            kill(child, SIGKILL);
            waitpid(child, &status, 0);
            return Error{ErrorCode::Corrupt,
                         "HDF5 did not finish reading the file's structure within "
                             + std::to_string(kProbeTimeoutMs / 1000)
                             + " s; the file is damaged",
                         path,
                         {}};
        }
        usleep(1000);
    }
    if (WIFSIGNALED(status))
        return Error{ErrorCode::Corrupt,
                     std::string("the HDF5 library crashed reading the file's structure (")
                         + strsignal(WTERMSIG(status)) + "); the file is damaged",
                     path,
                     {}};
    if (WIFEXITED(status) && WEXITSTATUS(status) != kProbeRead && WEXITSTATUS(status) != kProbeRejected)
        return Error{ErrorCode::Corrupt,
                     "the HDF5 library crashed reading the file's structure (exit status "
                         + std::to_string(WEXITSTATUS(status)) + "); the file is damaged",
                     path,
                     {}};
    return Ok{};
}

} // namespace spanscope::model::io
