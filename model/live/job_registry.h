#pragma once
// Jobs started with `spanscope-run --wait -- COMMAND` wait, before the command runs, for a
// viewer to attach (File > Attach). Each waiting job is a pair of entries in a per-user
// directory (registryDirectory(), mode 0700):
//   <pid>.job   text, one "key=value" per line: pid, command, cwd, since (unix seconds);
//               values escaped (\\ and \n) so hostile command lines stay one line
//   <pid>.sock  a Unix socket spanscope-run listens on
// Attaching: the viewer connects to <pid>.sock and sends "spanscope-attach 1 SOCKET\n",
// SOCKET being where the viewer listens for the collector (live_ingest.h); spanscope-run
// answers "ok PID\n", removes its entries and runs the command streaming to SOCKET (PID is
// the job's process id), or answers "error MESSAGE\n".

#include "../result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spanscope::model::live {

// $SPANSCOPE_JOBS_DIR, else $XDG_RUNTIME_DIR/spanscope-jobs, else /tmp/spanscope-jobs-<uid>.
std::string registryDirectory();

struct WaitingJob
{
    int pid = 0;
    std::string command; // the command line, for people
    std::string workingDirectory;
    int64_t waitingSince = 0; // unix seconds
    std::string controlSocket;
};

// The jobs waiting now, oldest first. Entries whose spanscope-run is gone are removed.
// A missing directory is no jobs; one that cannot be read, or is not private, an error.
Result<std::vector<WaitingJob>> listWaitingJobs();

// Viewer side of the handshake: asks the job to start streaming to `viewerSocket`. Returns
// the job's pid. Fails with a message naming the job when it is gone, refuses or does not
// answer within `timeoutMs`.
Result<int> attachToJob(const WaitingJob& job, const std::string& viewerSocket,
                        int timeoutMs = 3000);

// spanscope-run's side: publishes the entries and waits for a viewer.
class WaitingJobEntry
{
public:
    WaitingJobEntry() = default;
    WaitingJobEntry(const WaitingJobEntry&) = delete;
    WaitingJobEntry& operator=(const WaitingJobEntry&) = delete;
    ~WaitingJobEntry(); // removes the entries

    // Creates the entries for this process (getpid()).
    Status publish(const std::string& command, const std::string& workingDirectory);
    // Waits until a viewer attaches and returns its socket path; answers it "ok". Returns an
    // empty string when `keepWaiting` returns false (checked every 200 ms), e.g. on Ctrl-C.
    // Malformed requests are answered with an error and ignored.
    std::string waitForViewer(bool (*keepWaiting)());
    void remove();

    const std::string& controlSocket() const { return m_socket; }

private:
    std::string m_socket, m_info;
    int m_listen = -1;
};

// "\\" and newline escaped as \\ and \n (one line per value), and back.
std::string escapeEntryValue(const std::string& value);
std::string unescapeEntryValue(const std::string& value);

} // namespace spanscope::model::live
