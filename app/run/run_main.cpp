// spanscope-run: starts a job with the NVTX collector injected.
//
// A CUDA job's kernels, copies, memsets, API calls and device memory are recorded too: the
// collector is also its CUDA injection (CUDA_INJECTION64_PATH; --no-cuda leaves it out).
//
//   spanscope-run --output FILE.h5 -- COMMAND ARGS...
//       records every process of the job that uses NVTX to its own .sps stream in a
//       temporary directory next to FILE.h5 (SPANSCOPE_OUTPUT_DIR), waits for the job, then
//       assembles the streams (one rank per process) and saves them as a capture file.
//   spanscope-run --connect SOCKET -- COMMAND ARGS...
//       runs the job streaming to a viewer listening on the Unix socket SOCKET
//       (SPANSCOPE_SOCKET); nothing is saved here.
//   spanscope-run --wait -- COMMAND ARGS...
//       lists the job as waiting for a viewer (model/live/job_registry.h) and runs it,
//       streaming, once a viewer attaches (File > Attach in spanscope). Ctrl-C while it
//       waits withdraws it.
//
// The collector library is $SPANSCOPE_COLLECTOR, or found from this program's own folder,
// installed or in the build tree (app/install_paths.h). Exit status: the job's (128 + signal if it was killed);
// 2 for bad usage or when the job cannot be started; 1 if the capture cannot be saved;
// 130 when a waiting job is withdrawn.
#include "app/install_paths.h"
#include "model/io/capture_writer.h"
#include "model/live/job_assembler.h"
#include "model/live/job_registry.h"
#include "spanscope_version.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using namespace spanscope;

namespace {

// Sets the injection variable `name` to the collector, unless it already names another
// tool: then says so (with `advice`) and returns false.
bool injectInto(const char* name, const std::string& collector, const char* advice)
{
    if (const char* existing = std::getenv(name); existing && *existing) {
        std::error_code ignored;
        if (!fs::equivalent(existing, collector, ignored)) {
            std::fprintf(stderr, "spanscope-run: %s is already set to %s; %s\n", name, existing, advice);
            return false;
        }
    }
    ::setenv(name, collector.c_str(), 1);
    return true;
}

constexpr const char* kUsage =
    "Usage: spanscope-run (--output FILE.h5 | --connect SOCKET | --wait) [--lossless]\n"
    "                     [--queue-cap MIB] [--alloc] [--no-cuda] -- COMMAND [ARGS...]\n"
    "\n"
    "Runs COMMAND with spanscope's NVTX collector injected into it and every process it\n"
    "starts, and records or streams their NVTX ranges and, for CUDA programs, their\n"
    "kernels, copies, memsets, CUDA API calls and device memory (through CUPTI).\n"
    "\n"
    "Options:\n"
    "  --output FILE.h5   record the job's NVTX ranges and save them as a capture file\n"
    "  --connect SOCKET   stream the job's NVTX ranges to a viewer listening on SOCKET\n"
    "  --wait             wait for a viewer to attach (File > Attach), then run and stream\n"
    "  --lossless         keep every range: queue in memory (up to the cap) rather than drop\n"
    "                     when the job records faster than the viewer or file takes them\n"
    "  --queue-cap MIB    most memory the queue of each process may hold (default 64 MiB,\n"
    "                     1024 MiB with --lossless); past it ranges are dropped and counted\n"
    "  --alloc            also count the job's allocations (libspanscope-alloc preloaded):\n"
    "                     allocations and bytes per range, the heap in use; the job runs\n"
    "                     its collector from the start even without NVTX calls\n"
    "  --no-cuda          record NVTX only: do not inject into CUDA (CUDA_INJECTION64_PATH)\n"
    "  --help             this text\n"
    "  --version          the version of spanscope\n"
    "\n"
    "With --output, Ctrl-C, SIGTERM and SIGHUP end the job, and what it recorded is saved.\n"
    "\n"
    "Exit status:\n"
    "  the job's (128 + signal if it was killed); 2 for bad usage or when the job cannot be\n"
    "  started; 1 if the capture cannot be saved; 130 when a waiting job is withdrawn\n";

int usage(const char* problem)
{
    std::fprintf(stderr, "spanscope-run: %s\n%s", problem, kUsage);
    return 2;
}

std::string commandLine(char** argv)
{
    std::string line;
    for (char** a = argv; *a; ++a) {
        if (!line.empty())
            line += ' ';
        line += *a;
    }
    return line;
}

// The job's .sps streams, oldest process first (by the collector's start stamp in Hello).
std::vector<std::string> streamsOf(const fs::path& directory)
{
    std::vector<std::pair<uint64_t, std::string>> found;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(directory, ec)) {
        if (entry.path().extension() != ".sps")
            continue;
        uint64_t started = UINT64_MAX;
        if (std::FILE* f = std::fopen(entry.path().c_str(), "rb")) {
            protocol::FrameHeader header;
            protocol::HelloPayload hello;
            if (std::fread(&header, sizeof header, 1, f) == 1 &&
                std::fread(&hello, sizeof hello, 1, f) == 1 &&
                std::memcmp(header.magic, protocol::kMagic, 4) == 0)
                started = hello.startTicks;
            std::fclose(f);
        }
        found.emplace_back(started, entry.path().string());
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> paths;
    for (auto& [started, path] : found)
        paths.push_back(std::move(path));
    return paths;
}

// Decodes every stream into one capture and saves it; prints the summary line. Returns false
// if the capture could not be saved.
bool saveCapture(const std::vector<std::string>& streams, const std::string& output,
                 const std::string& command)
{
    model::live::NvtxAssemblerOptions options;
    options.commandLine = command;
    model::live::JobAssembler job(options);
    for (const auto& path : streams) {
        const size_t stream = job.addStream(path);
        if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
            std::vector<char> buffer(1 << 20);
            std::size_t n;
            while ((n = std::fread(buffer.data(), 1, buffer.size(), f)) > 0)
                if (!job.feed(stream, buffer.data(), n))
                    break;
            std::fclose(f);
        }
        job.finishStream(stream);
    }
    job.jobEnded();
    const auto capture = job.snapshot();
    if (auto saved = model::io::writeCaptureFile(*capture, output); !saved) {
        std::fprintf(stderr, "spanscope-run: cannot save the capture: %s\n",
                     saved.error().toString().c_str());
        return false;
    }
    const auto counts = job.counts();
    std::printf("spanscope-run: %s: %llu calls in %zu regions, %zu %s, %zu threads, "
                "%llu marks, %llu dropped, %llu anomalies, %zu warnings\n",
                output.c_str(), (unsigned long long)counts.calls, capture->regionNames.size(),
                capture->ranks.size(), capture->ranks.size() == 1 ? "process" : "processes",
                capture->threads.size(), (unsigned long long)counts.marks,
                (unsigned long long)counts.droppedRecords, (unsigned long long)counts.anomalies(),
                capture->warnings.size());
    for (const auto& warning : capture->warnings)
        std::printf("spanscope-run: warning: %s\n", warning.message.c_str());
    return true;
}

volatile std::sig_atomic_t g_interrupted = 0;
// The job while spanscope-run records it; termination requests are passed on to it.
volatile std::sig_atomic_t g_job = 0;

// SIGTERM or SIGHUP (a scheduler's kill, a closed terminal) ends the job, not the recorder:
// spanscope-run passes it on and stays to save what the job recorded.
void forwardToJob(int signal)
{
    if (g_job > 0)
        ::kill(pid_t(g_job), signal);
}

// --wait: lists the job, waits for a viewer, then becomes the job streaming to it.
int waitForViewer(char** command)
{
    model::live::WaitingJobEntry entry;
    std::error_code ec;
    const std::string cwd = fs::current_path(ec).string();
    if (auto published = entry.publish(commandLine(command), cwd); !published) {
        std::fprintf(stderr, "spanscope-run: cannot list the job for viewers: %s\n",
                     published.error().toString().c_str());
        return 2;
    }
    struct sigaction action
    {
    };
    action.sa_handler = [](int) { g_interrupted = 1; };
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
    std::fprintf(stderr,
                 "spanscope-run: pid %d waiting for a viewer: in spanscope, File > Attach "
                 "(Ctrl-C withdraws it)\n",
                 int(::getpid()));
    const std::string socket = entry.waitForViewer([] { return g_interrupted == 0; });
    entry.remove();
    if (socket.empty()) {
        std::fprintf(stderr, "spanscope-run: withdrawn before a viewer attached\n");
        return 130;
    }
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    std::fprintf(stderr, "spanscope-run: a viewer attached; running %s\n", command[0]);
    ::setenv("SPANSCOPE_SOCKET", socket.c_str(), 1);
    ::execvp(command[0], command);
    std::fprintf(stderr, "spanscope-run: cannot run %s: %s\n", command[0], std::strerror(errno));
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    std::string output, socket, queueCap;
    bool wait = false, lossless = false, alloc = false, cuda = true;
    int i = 1;
    for (; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--") {
            ++i;
            break;
        }
        if ((arg == "--output" || arg == "--connect") && i + 1 < argc) {
            (arg == "--output" ? output : socket) = argv[++i];
        } else if (arg == "--wait") {
            wait = true;
        } else if (arg == "--lossless") {
            lossless = true;
        } else if (arg == "--no-cuda") {
            cuda = false;
        } else if (arg == "--alloc") {
            alloc = true;
        } else if (arg == "--queue-cap" && i + 1 < argc) {
            queueCap = argv[++i];
            char* end = nullptr;
            const unsigned long long mib = std::strtoull(queueCap.c_str(), &end, 10);
            if (queueCap.empty() || *end != '\0' || mib == 0 || mib > (1ull << 24))
                return usage(("--queue-cap takes a number of MiB from 1 to 16777216, not '" + queueCap + "'").c_str());
        } else if (arg == "-h" || arg == "--help") {
            std::printf("%s", kUsage);
            return 0;
        } else if (arg == "-V" || arg == "--version") {
            std::printf("spanscope-run %s\n", SPANSCOPE_VERSION);
            return 0;
        } else {
            return usage(("unexpected argument '" + arg + "'").c_str());
        }
    }
    if (i >= argc)
        return usage("no command given (put it after --)");
    if (int(!output.empty()) + int(!socket.empty()) + int(wait) != 1)
        return usage("give exactly one of --output, --connect and --wait");

    const std::vector<std::string> candidates = app::collectorCandidates(app::ownDirectory());
    const std::string collector = app::firstExisting(candidates, false);
    if (collector.empty()) {
        std::string tried;
        for (const std::string& path : candidates)
            tried += (tried.empty() ? "" : ", ") + path;
        std::fprintf(stderr,
                     "spanscope-run: the collector library is not installed: tried %s (set "
                     "SPANSCOPE_COLLECTOR to its path)\n",
                     tried.empty() ? "nothing (cannot read /proc/self/exe)" : tried.c_str());
        return 2;
    }
    // NVTX and the CUDA driver each load one tool; another tool's is not replaced.
    if (!injectInto("NVTX_INJECTION64_PATH", collector,
                    "NVTX loads only one tool, and spanscope-run does not chain to another. Unset "
                    "it to record with spanscope."))
        return 2;
    if (cuda && !injectInto("CUDA_INJECTION64_PATH", collector,
                            "the CUDA driver loads only one tool. Unset it to record CUDA activity "
                            "with spanscope, or pass --no-cuda to record NVTX only."))
        return 2;
    if (alloc) {
        const std::vector<std::string> allocCandidates = app::allocLibraryCandidates(app::ownDirectory());
        const std::string allocLibrary = app::firstExisting(allocCandidates, false);
        if (allocLibrary.empty()) {
            std::fprintf(stderr,
                         "spanscope-run: --alloc needs libspanscope-alloc.so, which is not installed "
                         "(set SPANSCOPE_ALLOC_LIBRARY to its path)\n");
            return 2;
        }
        // The interposer first, so its malloc is the job's; the collector with it, started
        // at load, so a job without NVTX calls streams its allocations too.
        std::string preload = allocLibrary + " " + collector;
        if (const char* existing = std::getenv("LD_PRELOAD"); existing && *existing)
            preload += std::string(" ") + existing;
        ::setenv("LD_PRELOAD", preload.c_str(), 1);
        ::setenv("SPANSCOPE_START_AT_LOAD", "1", 1);
    }
    char** command = argv + i;

    ::unsetenv("SPANSCOPE_OUTPUT");
    ::unsetenv("SPANSCOPE_OUTPUT_DIR");
    ::unsetenv("SPANSCOPE_SOCKET");
    // The collector's queue (collector/README.md); unset, the environment's own stand.
    if (lossless)
        ::setenv("SPANSCOPE_LOSSLESS", "1", 1);
    if (!queueCap.empty())
        ::setenv("SPANSCOPE_QUEUE_CAP_MB", queueCap.c_str(), 1);
    if (wait)
        return waitForViewer(command);
    if (!socket.empty()) {
        // The viewer owns the socket; this process becomes the job.
        ::setenv("SPANSCOPE_SOCKET", socket.c_str(), 1);
        ::execvp(command[0], command);
        std::fprintf(stderr, "spanscope-run: cannot run %s: %s\n", command[0],
                     std::strerror(errno));
        return 2;
    }

    // Absolute: the job may change directory before its first NVTX call opens its stream.
    const fs::path target = fs::absolute(output);
    const fs::path directory = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string streams = (directory / (target.filename().string() + ".sps-XXXXXX")).string();
    if (!::mkdtemp(streams.data())) {
        std::fprintf(stderr, "spanscope-run: cannot create a temporary directory in %s: %s\n",
                     directory.c_str(), std::strerror(errno));
        return 2;
    }
    ::setenv("SPANSCOPE_OUTPUT_DIR", streams.c_str(), 1);
    auto removeStreams = [&] {
        std::error_code ignored; // a leftover temporary folder is not worth failing for
        fs::remove_all(streams, ignored);
    };

    // Ctrl-C reaches the job (same process group); we stay to save what it recorded.
    std::signal(SIGINT, SIG_IGN);
    std::signal(SIGQUIT, SIG_IGN);
    // Held until the job's pid is known, so a request arriving meanwhile is not lost.
    sigset_t terminate, previous;
    sigemptyset(&terminate);
    sigaddset(&terminate, SIGTERM);
    sigaddset(&terminate, SIGHUP);
    ::sigprocmask(SIG_BLOCK, &terminate, &previous);
    const pid_t child = ::fork();
    if (child < 0) {
        std::fprintf(stderr, "spanscope-run: cannot fork: %s\n", std::strerror(errno));
        removeStreams();
        return 2;
    }
    if (child == 0) {
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGQUIT, SIG_DFL);
        ::sigprocmask(SIG_SETMASK, &previous, nullptr);
        ::execvp(command[0], command);
        std::fprintf(stderr, "spanscope-run: cannot run %s: %s\n", command[0],
                     std::strerror(errno));
        ::_exit(127);
    }
    g_job = child;
    struct sigaction forward
    {
    };
    forward.sa_handler = forwardToJob;
    ::sigaction(SIGTERM, &forward, nullptr);
    ::sigaction(SIGHUP, &forward, nullptr);
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    const int jobExit = WIFEXITED(status)     ? WEXITSTATUS(status)
                        : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                              : 1;
    const bool saved = saveCapture(streamsOf(streams), output, commandLine(command));
    removeStreams();
    if (!saved)
        return jobExit != 0 ? jobExit : 1;
    return jobExit;
}
