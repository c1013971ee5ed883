// spanscope-run: starts a job with the NVTX collector injected.
//
//   spanscope-run --output FILE.h5 -- COMMAND ARGS...
//       records the job to a temporary .sps stream next to FILE.h5, waits for it, then
//       assembles the NVTX ranges and saves them as a capture file (writeCaptureFile).
//   spanscope-run --connect SOCKET -- COMMAND ARGS...
//       runs the job streaming to a viewer listening on the Unix socket SOCKET
//       (SPANSCOPE_SOCKET); nothing is saved here.
//
// The collector library is $SPANSCOPE_COLLECTOR or <dir of this binary>/../lib/
// libspanscope-collector.so. Exit status: the job's (128 + signal if it was killed);
// 2 for bad usage or when the job cannot be started; 1 if the capture cannot be saved.
#include "model/io/capture_writer.h"
#include "model/live/nvtx_assembler.h"

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

constexpr const char* kUsage =
    "usage: spanscope-run (--output FILE.h5 | --connect SOCKET) -- COMMAND [ARGS...]\n"
    "  --output FILE.h5   record the job's NVTX ranges and save them as a capture file\n"
    "  --connect SOCKET   stream the job's NVTX ranges to a viewer listening on SOCKET\n";

int usage(const char* problem)
{
    std::fprintf(stderr, "spanscope-run: %s\n%s", problem, kUsage);
    return 2;
}

std::string collectorPath()
{
    if (const char* env = std::getenv("SPANSCOPE_COLLECTOR"); env && *env)
        return env;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec)
        return {};
    return (self.parent_path() / ".." / "lib" / "libspanscope-collector.so").lexically_normal();
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

// Decodes `sps` into a capture and saves it; prints the summary line. Returns false if the
// capture could not be saved.
bool saveCapture(const std::string& sps, const std::string& output, const std::string& command)
{
    model::live::NvtxAssemblerOptions options;
    options.commandLine = command;
    model::live::NvtxAssembler assembler(options);
    protocol::Decoder decoder(assembler);
    std::string streamError;
    if (std::FILE* f = std::fopen(sps.c_str(), "rb")) {
        std::vector<char> buffer(1 << 20);
        std::size_t n;
        while ((n = std::fread(buffer.data(), 1, buffer.size(), f)) > 0)
            if (!decoder.feed(buffer.data(), n))
                break;
        std::fclose(f);
        if (!decoder.finish() && decoder.bytesDecoded() > 0)
            streamError = decoder.error();
    }
    assembler.finish(streamError);
    const auto capture = assembler.snapshot();
    if (auto saved = model::io::writeCaptureFile(*capture, output); !saved) {
        std::fprintf(stderr, "spanscope-run: cannot save the capture: %s\n",
                     saved.error().toString().c_str());
        return false;
    }
    const auto counts = assembler.counts();
    std::printf("spanscope-run: %s: %llu calls in %zu regions, %zu threads, %llu marks, "
                "%llu dropped, %llu anomalies, %zu warnings\n",
                output.c_str(), (unsigned long long)counts.calls, capture->regionNames.size(),
                capture->threads.size(), (unsigned long long)counts.marks,
                (unsigned long long)counts.droppedRecords, (unsigned long long)counts.anomalies(),
                capture->warnings.size());
    for (const auto& warning : capture->warnings)
        std::printf("spanscope-run: warning: %s\n", warning.message.c_str());
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    std::string output, socket;
    int i = 1;
    for (; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--") {
            ++i;
            break;
        }
        if ((arg == "--output" || arg == "--connect") && i + 1 < argc) {
            (arg == "--output" ? output : socket) = argv[++i];
        } else if (arg == "-h" || arg == "--help") {
            std::printf("%s", kUsage);
            return 0;
        } else {
            return usage(("unexpected argument '" + arg + "'").c_str());
        }
    }
    if (i >= argc)
        return usage("no command given (put it after --)");
    if (output.empty() == socket.empty())
        return usage("give exactly one of --output and --connect");

    const std::string collector = collectorPath();
    std::error_code ec;
    if (collector.empty() || !fs::exists(collector, ec)) {
        std::fprintf(stderr,
                     "spanscope-run: the collector library %s does not exist (set "
                     "SPANSCOPE_COLLECTOR to its path)\n",
                     collector.c_str());
        return 2;
    }
    if (const char* existing = std::getenv("NVTX_INJECTION64_PATH"); existing && *existing) {
        std::error_code e1;
        if (!fs::equivalent(existing, collector, e1)) {
            std::fprintf(stderr,
                         "spanscope-run: NVTX_INJECTION64_PATH is already set to %s; NVTX loads "
                         "only one tool, and spanscope-run does not chain to another. Unset it "
                         "to record with spanscope.\n",
                         existing);
            return 2;
        }
    }
    ::setenv("NVTX_INJECTION64_PATH", collector.c_str(), 1);
    char** command = argv + i;

    if (!socket.empty()) {
        // The viewer owns the socket; this process becomes the job.
        ::unsetenv("SPANSCOPE_OUTPUT");
        ::setenv("SPANSCOPE_SOCKET", socket.c_str(), 1);
        ::execvp(command[0], command);
        std::fprintf(stderr, "spanscope-run: cannot run %s: %s\n", command[0],
                     std::strerror(errno));
        return 2;
    }

    // Absolute: the job may change directory before its first NVTX call opens the stream.
    const fs::path target = fs::absolute(output);
    const fs::path directory = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string sps = (directory / (target.filename().string() + ".sps-XXXXXX")).string();
    const int fd = ::mkstemp(sps.data());
    if (fd < 0) {
        std::fprintf(stderr, "spanscope-run: cannot create a temporary file in %s: %s\n",
                     directory.c_str(), std::strerror(errno));
        return 2;
    }
    ::close(fd);
    ::unsetenv("SPANSCOPE_SOCKET");
    ::setenv("SPANSCOPE_OUTPUT", sps.c_str(), 1);

    // Ctrl-C reaches the job (same process group); we stay to save what it recorded.
    std::signal(SIGINT, SIG_IGN);
    std::signal(SIGQUIT, SIG_IGN);
    const pid_t child = ::fork();
    if (child < 0) {
        std::fprintf(stderr, "spanscope-run: cannot fork: %s\n", std::strerror(errno));
        ::unlink(sps.c_str());
        return 2;
    }
    if (child == 0) {
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGQUIT, SIG_DFL);
        ::execvp(command[0], command);
        std::fprintf(stderr, "spanscope-run: cannot run %s: %s\n", command[0],
                     std::strerror(errno));
        ::_exit(127);
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    const int jobExit = WIFEXITED(status)     ? WEXITSTATUS(status)
                        : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                              : 1;
    const bool saved = saveCapture(sps, output, commandLine(command));
    ::unlink(sps.c_str());
    if (!saved)
        return jobExit != 0 ? jobExit : 1;
    return jobExit;
}
