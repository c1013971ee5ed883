#include "huge_pages.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace spanscope::app::cli {

namespace {

constexpr uint64_t kLargeInput = uint64_t(4) << 20; // bytes to parse (a restart costs ~10 ms)
constexpr const char* kTunable = "glibc.malloc.hugetlb=1";

// Bytes the reader will hold: the file's size, or for gzip what its trailer says it
// inflates to (mod 4 GiB, enough to tell large from small).
uint64_t inputBytes(const std::string& path)
{
    struct stat info{};
    if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode))
        return 0;
    uint64_t bytes = uint64_t(info.st_size);
    if (std::FILE* file = std::fopen(path.c_str(), "rb")) {
        unsigned char head[2] = {0, 0}, trailer[4] = {0, 0, 0, 0};
        if (std::fread(head, 1, 2, file) == 2 && head[0] == 0x1f && head[1] == 0x8b
            && std::fseek(file, -4, SEEK_END) == 0 && std::fread(trailer, 1, 4, file) == 4)
            bytes = std::max<uint64_t>(bytes, uint64_t(trailer[0]) | uint64_t(trailer[1]) << 8
                                                  | uint64_t(trailer[2]) << 16 | uint64_t(trailer[3]) << 24);
        std::fclose(file);
    }
    return bytes;
}

} // namespace

void restartWithHugePagesForLargeInputs(int argc, char** argv, const std::vector<std::string>& args)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    (void)argc, (void)argv, (void)args;
#else
    (void)argc;
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    if (std::getenv("SPANSCOPE_NO_HUGE_PAGES") || (tunables && std::strstr(tunables, "glibc.malloc.hugetlb")))
        return;
    bool large = false;
    for (const auto& arg : args)
        if (!arg.empty() && arg[0] != '-' && inputBytes(arg) >= kLargeInput)
            large = true;
    if (!large)
        return;
    std::string value = tunables && *tunables ? std::string(tunables) + ":" + kTunable : std::string(kTunable);
    if (::setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0)
        return;
    ::execv("/proc/self/exe", argv);
    // exec failed (no /proc): carry on without huge pages.
    if (tunables)
        ::setenv("GLIBC_TUNABLES", tunables, 1);
    else
        ::unsetenv("GLIBC_TUNABLES");
#endif
}

} // namespace spanscope::app::cli
