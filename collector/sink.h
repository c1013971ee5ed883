// Where the sender's frames go: a file (SPANSCOPE_OUTPUT), a file of its own in a directory
// (SPANSCOPE_OUTPUT_DIR, one per process of the job) or a Unix stream socket
// (SPANSCOPE_SOCKET). Sender thread only (and the exit flush, after the sender stopped).
//
// A frame is written whole or not at all, so the stream stays decodable: the socket is
// non-blocking; a frame that does not fit is dropped (the caller counts its records), and the
// unsent tail of a partly sent frame is finished before anything else. A socket whose reader
// left switches the sink off; the job carries on (send uses MSG_NOSIGNAL: no SIGPIPE).
#pragma once

#include <cstddef>
#include <string>
#include <sys/uio.h>
#include <vector>

namespace spanscope::collector {

class Sink
{
public:
    enum class Result { Sent, Dropped, Closed };

    ~Sink();

    // Returns false and fills `error` when the destination cannot be opened.
    bool openFile(const char* path, std::string& error);
    // Creates <directory>/<stem>.sps (or <stem>-N.sps if that exists).
    bool openFileIn(const char* directory, const std::string& stem, std::string& error);
    bool connectSocket(const char* path, std::string& error);

    // Sends one whole frame, gathered from `count` parts (no copy in the common case).
    // `waitMs` > 0 lets a socket wait that long for room each time it is full.
    Result send(const iovec* parts, int count, int waitMs = 0);
    bool closed() const { return m_fd < 0; }
    // Part of a frame is still to go (the reader made no room within the last wait): the
    // next send finishes it first.
    bool holdsPartOfAFrame() const { return !m_pending.empty(); }
    void close();

private:
    bool flushPending(int waitMs);
    bool waitWritable(int waitMs);

    int m_fd = -1;
    bool m_socket = false;
    std::vector<char> m_pending; // unsent tail of a partly sent frame
};

} // namespace spanscope::collector
