// What collector.cpp, collector_sender.cpp and collector_fork.cpp share, and nothing else
// sees.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

namespace spanscope::collector {

// Held while the collector starts, and across a fork (atForkPrepare to the handlers after
// it), so a fork never catches a start half done.
extern std::mutex g_startMutex;
// logOnce() has spoken in this process (a forked child may speak again).
extern std::atomic<bool> g_logged;

// Writes one line to stderr without raising SIGPIPE (collector.cpp).
void writeLine(const char* text);

template <typename T> void appendPod(std::string& out, const T& value)
{
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

} // namespace spanscope::collector
