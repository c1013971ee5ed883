#pragma once
// Shared by the benchmarks: where generated inputs live, resident memory, timing.

#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace spanscope::bench {

// Generated inputs are cached here between runs ($SPANSCOPE_BENCH_DIR or /tmp).
inline std::string benchDir()
{
    const char* dir = std::getenv("SPANSCOPE_BENCH_DIR");
    std::string path = dir ? dir : "/tmp/spanscope-bench";
    std::string command = "mkdir -p '" + path + "'";
    if (std::system(command.c_str()) != 0)
        return "/tmp";
    return path;
}

// Resident set size of this process, bytes.
inline int64_t residentBytes()
{
    std::ifstream statm("/proc/self/statm");
    int64_t size = 0, resident = 0;
    statm >> size >> resident;
    return resident * int64_t(sysconf(_SC_PAGESIZE));
}

// Best wall time of `repeats` runs of f, in ns.
template <typename F>
double bestOf(int repeats, F&& f)
{
    double best = 1e300;
    for (int i = 0; i < repeats; ++i) {
        const auto begin = std::chrono::steady_clock::now();
        f();
        const auto end = std::chrono::steady_clock::now();
        best = std::min(best, double(std::chrono::duration_cast<std::chrono::nanoseconds>(end - begin).count()));
    }
    return best;
}

// Best wall time of 3 runs of a shell command, in ns; says on stderr when it fails.
inline double runCommand(const std::string& command)
{
    return bestOf(3, [&] {
        if (std::system(command.c_str()) != 0)
            std::fprintf(stderr, "failed: %s\n", command.c_str());
    });
}

// Lets `perf record` see only the measured work: with SPANSCOPE_BENCH_PERF_CTL=ctl.fifo,ack.fifo
// in the environment (perf record -D -1 --control fifo:ctl.fifo,ack.fifo), enable() and
// disable() switch perf's counting on and off around it, each waiting for perf's ack so no
// sample of the work before or after slips in. Without the variable they do nothing.
class PerfControl
{
public:
    PerfControl()
    {
        const char* fifos = std::getenv("SPANSCOPE_BENCH_PERF_CTL");
        if (!fifos)
            return;
        const std::string both = fifos;
        const size_t comma = both.find(',');
        if (comma == std::string::npos)
            return;
        m_control = std::fopen(both.substr(0, comma).c_str(), "w");
        m_ack = std::fopen(both.substr(comma + 1).c_str(), "r");
    }
    ~PerfControl()
    {
        if (m_control)
            std::fclose(m_control);
        if (m_ack)
            std::fclose(m_ack);
    }
    PerfControl(const PerfControl&) = delete;
    PerfControl& operator=(const PerfControl&) = delete;

    void enable() { send("enable\n"); }
    void disable() { send("disable\n"); }

private:
    void send(const char* command)
    {
        if (!m_control || !m_ack)
            return;
        std::fputs(command, m_control);
        std::fflush(m_control);
        char reply[16];
        if (!std::fgets(reply, sizeof reply, m_ack)) // "ack\n"
            m_control = nullptr;
    }

    std::FILE* m_control = nullptr;
    std::FILE* m_ack = nullptr;
};

} // namespace spanscope::bench
