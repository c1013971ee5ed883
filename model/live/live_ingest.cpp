#include "live_ingest.h"

#include "job_registry.h"
#include "unix_socket.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace spanscope::model::live {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kReadChunk = 1 << 20; // bytes per read(); a busy stream is read until empty
constexpr int kChunksPerRound = 8;
constexpr int kPidCheckMs = 200;

double secondsSince(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

// The process has exited: gone, or a zombie its parent has not reaped yet (an attached job
// is not our child, and a zombie still answers kill(pid, 0)).
bool processGone(int pid)
{
    if (::kill(pid, 0) != 0)
        return errno == ESRCH;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line))
        return false;
    const auto paren = line.rfind(')'); // the name may hold anything, even ") Z"
    return paren != std::string::npos && paren + 2 < line.size() &&
           (line[paren + 2] == 'Z' || line[paren + 2] == 'X');
}

std::string defaultSocketParent()
{
    if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && *runtime)
        return runtime;
    return "/tmp";
}

} // namespace

Result<std::unique_ptr<LiveIngest>> LiveIngest::start(LiveIngestOptions options, Publish publish)
{
    std::unique_ptr<LiveIngest> ingest(new LiveIngest);
    ingest->m_options = std::move(options);
    ingest->m_publish = std::move(publish);
    ingest->m_jobPid = ingest->m_options.jobPid;
    const std::string parent = ingest->m_options.socketParent.empty()
                                   ? defaultSocketParent()
                                   : ingest->m_options.socketParent;
    std::string directory = parent + "/spanscope-live-XXXXXX";
    if (!::mkdtemp(directory.data()))
        return Error{ErrorCode::Io,
                     std::string("cannot create a directory for the live socket: ") +
                         std::strerror(errno),
                     parent,
                     {}};
    ingest->m_directory = directory;
    ingest->m_socketPath = directory + "/collector.sock";
    std::string error;
    ingest->m_listen = listenUnix(ingest->m_socketPath, error);
    if (ingest->m_listen < 0)
        return Error{ErrorCode::Io, error, ingest->m_socketPath, {}};
    ::fcntl(ingest->m_listen, F_SETFL, ::fcntl(ingest->m_listen, F_GETFL) | O_NONBLOCK);
    ingest->m_wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (ingest->m_wake < 0)
        return Error{ErrorCode::Io, std::string("eventfd: ") + std::strerror(errno), {}, {}};
    ingest->m_job = std::make_unique<JobAssembler>(ingest->m_options.assembler);
    LiveIngest* self = ingest.get();
    ingest->m_analysis = std::thread([self] { self->analysisLoop(); });
    ingest->m_ingest = std::thread([self] { self->ingestLoop(); });
    return ingest;
}

LiveIngest::~LiveIngest()
{
    detach();
    if (m_ingest.joinable())
        m_ingest.join();
    {
        std::lock_guard lock(m_mutex);
        m_stopAnalysis = true;
    }
    m_changed.notify_all();
    if (m_analysis.joinable())
        m_analysis.join();
    if (m_listen >= 0)
        ::close(m_listen);
    if (m_wake >= 0)
        ::close(m_wake);
    if (!m_socketPath.empty())
        ::unlink(m_socketPath.c_str());
    if (!m_directory.empty())
        ::rmdir(m_directory.c_str());
}

void LiveIngest::wakeIngest()
{
    const uint64_t one = 1;
    if (m_wake >= 0) {
        [[maybe_unused]] auto n = ::write(m_wake, &one, sizeof one);
    }
}

void LiveIngest::jobExited()
{
    m_jobExited = true;
    wakeIngest();
}

void LiveIngest::detach()
{
    m_detach = true;
    wakeIngest();
}

void LiveIngest::submit(bool final, const std::string& endReason)
{
    const auto started = Clock::now();
    auto pending = std::make_unique<Pending>();
    pending->frozen = m_job->freeze();
    pending->counts = m_job->counts();
    pending->processes = m_job->streamCount();
    pending->openProcesses = m_openStreams;
    pending->bytes = m_bytes;
    pending->final = final;
    pending->endReason = endReason;
    pending->freezeSeconds = secondsSince(started);
    std::unique_lock lock(m_mutex);
    if (final) // the last word must not be replaced by anything
        m_changed.wait(lock, [&] { return !m_pending || !m_pending->final; });
    m_pending = std::move(pending); // a snapshot not yet picked up is superseded
    m_changed.notify_all();
}

void LiveIngest::ingestLoop()
{
    struct Connection
    {
        int fd;
        size_t stream;
    };
    std::vector<Connection> connections;
    std::vector<char> buffer(kReadChunk);
    std::vector<pollfd> fds;
    uint64_t shownVersion = 0;
    double freezeCost = 0; // seconds the last freeze took on this thread
    auto nextSnapshot = Clock::now();
    auto nextPidCheck = Clock::now();
    std::string endReason;

    auto closeConnection = [&](size_t k) {
        ::close(connections[k].fd);
        m_job->finishStream(connections[k].stream);
        connections.erase(connections.begin() + std::ptrdiff_t(k));
    };

    for (;;) {
        fds.clear();
        fds.push_back({m_wake, POLLIN, 0});
        fds.push_back({m_listen, POLLIN, 0});
        for (const auto& c : connections)
            fds.push_back({c.fd, POLLIN, 0});
        // Nothing new to show: sleep until data comes (or the next pid check).
        const auto untilSnapshot =
            std::chrono::duration_cast<std::chrono::milliseconds>(nextSnapshot - Clock::now());
        const int timeout = m_job->version() == shownVersion
                                ? kPidCheckMs
                                : int(std::clamp<int64_t>(untilSnapshot.count(), 1, kPidCheckMs));
        if (::poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) {
            endReason = std::string("reading stopped: poll failed: ") + std::strerror(errno);
            break;
        }
        if (fds[0].revents & POLLIN) {
            uint64_t value;
            [[maybe_unused]] auto n = ::read(m_wake, &value, sizeof value);
        }
        if (m_detach) {
            for (const auto& c : connections) {
                ::close(c.fd);
                m_job->detachStream(c.stream);
            }
            connections.clear();
            endReason = "detached: the job carries on without capture";
            break;
        }
        // Accepted every round, not only when poll says so: a job that connected and exited
        // at once must not be missed when its exit is noticed in the same round.
        {
            for (int fd;
                 (fd = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0;) {
                const size_t stream = m_job->addStream("process connection " +
                                                       std::to_string(m_job->streamCount() + 1));
                connections.push_back({fd, stream});
            }
        }
        for (size_t k = 0; k < connections.size();) {
            // fds[2 + k] matches connections[k] only for connections polled this round.
            const bool polled = k + 2 < fds.size() && fds[k + 2].fd == connections[k].fd;
            if (polled && !(fds[k + 2].revents & (POLLIN | POLLHUP | POLLERR))) {
                ++k;
                continue;
            }
            bool closed = false;
            // A few chunks per stream and round: one busy process must not starve the others
            // or the snapshots.
            for (int chunk = 0; chunk < kChunksPerRound; ++chunk) {
                const ssize_t n = ::read(connections[k].fd, buffer.data(), buffer.size());
                if (n > 0) {
                    m_bytes += uint64_t(n);
                    if (!m_job->feed(connections[k].stream, buffer.data(), size_t(n))) {
                        closed = true; // malformed: what decoded is kept, the rest ignored
                        break;
                    }
                    if (size_t(n) < buffer.size())
                        break;
                } else if (n < 0 && errno == EINTR) {
                    continue;
                } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                    break;
                } else {
                    closed = true; // EOF: the process exited or closed its collector
                    break;
                }
            }
            if (closed)
                closeConnection(k);
            else
                ++k;
        }
        m_openStreams = connections.size();

        const int pid = m_jobPid.load();
        if (pid > 0 && Clock::now() >= nextPidCheck) {
            nextPidCheck = Clock::now() + std::chrono::milliseconds(kPidCheckMs);
            if (processGone(pid))
                m_jobExited = true;
        }
        if (m_jobExited && connections.empty()) {
            // Its last bytes were read to EOF above. A process that never connected sent nothing.
            m_job->jobEnded();
            endReason = "the job ended";
            break;
        }
        if (Clock::now() >= nextSnapshot && m_job->version() != shownVersion) {
            bool busy;
            {
                std::lock_guard lock(m_mutex);
                busy = m_analysing || m_pending;
            }
            if (!busy) {
                const auto started = Clock::now();
                shownVersion = m_job->version();
                submit(false, {});
                freezeCost = secondsSince(started);
            }
            const auto interval = std::max(std::chrono::milliseconds(m_options.intervalMs),
                                           std::chrono::milliseconds(int64_t(freezeCost * 4000)));
            nextSnapshot = Clock::now() + interval;
        }
    }
    for (const auto& c : connections)
        ::close(c.fd);
    m_openStreams = 0;
    // A process of the job that starts its collector later finds nobody listening and
    // runs without capture, instead of writing into a socket nobody reads.
    ::close(m_listen);
    m_listen = -1;
    ::unlink(m_socketPath.c_str());
    submit(true, endReason);
}

void LiveIngest::analysisLoop()
{
    for (;;) {
        std::unique_ptr<Pending> pending;
        {
            std::unique_lock lock(m_mutex);
            m_changed.wait(lock, [&] { return m_pending || m_stopAnalysis; });
            if (!m_pending)
                return;
            pending = std::move(m_pending);
            m_analysing = true;
        }
        m_changed.notify_all();
        const auto started = Clock::now();
        auto update = std::make_shared<LiveUpdate>();
        auto analyzed = analyzeCapture(pending->frozen->build(), ProgressRange(nullptr, 0, 1), liveUpdateOptions());
        if (analyzed)
            update->loaded = std::move(*analyzed);
        update->counts = pending->counts;
        update->processes = pending->processes;
        update->openProcesses = pending->openProcesses;
        update->bytesReceived = pending->bytes;
        update->final = pending->final;
        update->endReason = pending->endReason;
        update->analysisSeconds = pending->freezeSeconds + secondsSince(started);
        if (update->final)
            m_finished = true;
        m_publish(std::move(update));
        {
            std::lock_guard lock(m_mutex);
            m_analysing = false;
        }
        m_changed.notify_all();
        if (pending->final)
            return;
    }
}

} // namespace spanscope::model::live
