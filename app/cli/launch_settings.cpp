#include "launch_settings.h"

#include <cstdio>
#include <cstring>
#include <sys/stat.h>

namespace spanscope::app::cli {

namespace {
constexpr uint64_t kLargeInput = uint64_t(4) << 20; // bytes to parse
constexpr const char* kTunable = "glibc.malloc.hugetlb=1";
} // namespace

uint64_t inputBytes(const char* path)
{
    struct stat info{};
    if (::stat(path, &info) != 0 || !S_ISREG(info.st_mode))
        return 0;
    uint64_t bytes = uint64_t(info.st_size);
    if (std::FILE* file = std::fopen(path, "rb")) {
        unsigned char head[2] = {0, 0}, trailer[4] = {0, 0, 0, 0};
        if (std::fread(head, 1, 2, file) == 2 && head[0] == 0x1f && head[1] == 0x8b
            && std::fseek(file, -4, SEEK_END) == 0 && std::fread(trailer, 1, 4, file) == 4) {
            const uint64_t inflated = uint64_t(trailer[0]) | uint64_t(trailer[1]) << 8
                                      | uint64_t(trailer[2]) << 16 | uint64_t(trailer[3]) << 24;
            bytes = bytes > inflated ? bytes : inflated;
        }
        std::fclose(file);
    }
    return bytes;
}

std::optional<std::string> hugePageTunables(int argc, const char* const* argv, const char* current)
{
    if (current && std::strstr(current, "glibc.malloc.hugetlb"))
        return std::nullopt; // the user's choice stands
    bool large = false;
    for (int i = 1; i < argc && !large; ++i)
        large = argv[i][0] != '-' && inputBytes(argv[i]) >= kLargeInput;
    if (!large)
        return std::nullopt;
    return current && *current ? std::string(current) + ":" + kTunable : std::string(kTunable);
}

} // namespace spanscope::app::cli
