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

} // namespace spanscope::bench
