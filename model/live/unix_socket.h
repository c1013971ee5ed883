#pragma once
// The few POSIX Unix-socket and directory steps the live parts share. File descriptors are
// CLOEXEC; errors come back as messages naming the path.

#include <string>

namespace spanscope::model::live {

// A listening stream socket at `path` (an old socket file there is replaced). -1 on error.
int listenUnix(const std::string& path, std::string& error, int backlog = 16);
// A connected stream socket, or -1. Blocking.
int connectUnix(const std::string& path, std::string& error);
// Creates `path` (mode 0700) unless it exists; either way it must be a directory this user
// owns that nobody else can write. False with `error` otherwise.
bool ensurePrivateDirectory(const std::string& path, std::string& error);
// Reads one '\n'-terminated line of at most `maxBytes`, waiting at most `timeoutMs` in all.
// False on timeout, EOF or error (`error` says which).
bool readLine(int fd, std::string& line, int timeoutMs, std::string& error, size_t maxBytes = 4096);
// Writes all of `text` (MSG_NOSIGNAL: a peer that left is an error, not a SIGPIPE).
bool writeAll(int fd, const std::string& text);

} // namespace spanscope::model::live
