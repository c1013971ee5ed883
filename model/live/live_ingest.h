#pragma once
// The viewer's side of a live capture: listens on a private Unix socket for the collector
// (SPANSCOPE_SOCKET of a job started by spanscope-run --connect, or attached through the
// job registry), decodes every process's stream into a JobAssembler on an ingest thread,
// and publishes analysed snapshots (capture, summary, timeline index) from an analysis
// thread about every `intervalMs`.
//
// Why two threads: the ingest thread must keep reading so the collector's socket never
// fills (the collector drops and counts when it does); the analysis (nesting, statistics,
// timeline index) of a big capture takes longer than one interval. The ingest thread only
// freezes a copy of the assembled state (JobAssembler::freeze, sharing its storage); the analysis
// thread builds the capture from it and analyses it, and the newest frozen state waits for
// it (older ones are dropped). The interval stretches to 4x the last freeze's cost, so
// freezing takes at most a fifth of the ingest thread's time.
//
// The end: when the job exits (jobExited(), or the watched pid disappears) and every
// stream has been read to its end, or on detach(), a final update is published and the
// threads stop. A detached job carries on without capture (its collector sees the socket
// close). Everything that arrived stays in the final update.

#include "../capture_loader.h"
#include "../result.h"
#include "job_assembler.h"
#include "nvtx_assembler.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace spanscope::model::live {

struct LiveUpdate
{
    LoadedCapture loaded; // always with a timeline index
    NvtxCounts counts;
    size_t processes = 0;     // streams that connected so far
    size_t openProcesses = 0; // streams still connected
    uint64_t bytesReceived = 0;
    bool final = false;         // nothing more will come
    std::string endReason;      // final only, e.g. "the job ended"
    double analysisSeconds = 0; // freeze, build and analysis of this update
};

struct LiveIngestOptions
{
    NvtxAssemblerOptions assembler;
    int intervalMs = 100; // target time between updates
    int jobPid = 0;       // a process to watch; its exit counts as jobExited(). 0 = none
    // Where the socket goes: a fresh private directory is made inside (default: the
    // registry's parent, $XDG_RUNTIME_DIR or /tmp).
    std::string socketParent;
};

// How a live capture's snapshots are analysed: with the timeline index.
inline LoadOptions liveUpdateOptions()
{
    LoadOptions options;
    options.timeline = true;
    return options;
}

class LiveIngest
{
public:
    // Called on the analysis thread; must be quick (hand the update to the GUI thread).
    using Publish = std::function<void(std::shared_ptr<const LiveUpdate>)>;

    // Listens and starts the threads.
    static Result<std::unique_ptr<LiveIngest>> start(LiveIngestOptions options, Publish publish);
    ~LiveIngest(); // detaches if still running, joins, removes the socket

    const std::string& socketPath() const { return m_socketPath; }
    // Thread-safe.
    void watchPid(int pid) { m_jobPid.store(pid); }
    void jobExited();
    void detach();
    bool finished() const { return m_finished.load(); }

private:
    LiveIngest() = default;
    void wakeIngest();
    void ingestLoop();
    void analysisLoop();
    // Hands a snapshot to the analysis thread; waits for it to be free if `final`.
    void submit(bool final, const std::string& endReason);

    LiveIngestOptions m_options;
    Publish m_publish;
    std::string m_directory, m_socketPath;
    int m_listen = -1;
    int m_wake = -1; // eventfd: detach / job exit / destruction wake the ingest thread
    std::atomic<int> m_jobPid{0};
    std::atomic<bool> m_jobExited{false}, m_detach{false}, m_finished{false};
    std::unique_ptr<JobAssembler> m_job; // ingest thread only
    uint64_t m_bytes = 0;                // ingest thread only
    size_t m_openStreams = 0;            // ingest thread only

    std::mutex m_mutex; // guards the hand-over below
    std::condition_variable m_changed;
    struct Pending
    {
        std::shared_ptr<const JobAssembler::JobSnapshot> frozen;
        NvtxCounts counts;
        size_t processes = 0, openProcesses = 0;
        uint64_t bytes = 0;
        bool final = false;
        std::string endReason;
        double freezeSeconds = 0;
    };
    std::unique_ptr<Pending> m_pending; // waiting for the analysis thread
    bool m_analysing = false;
    bool m_stopAnalysis = false;

    std::thread m_ingest, m_analysis;
};

} // namespace spanscope::model::live
