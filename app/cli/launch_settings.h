#pragma once
// What spanscope-cli (cli_launcher.cpp) starts its core program with. Plain C++ with no
// dependencies: the launcher links nothing else.

#include <cstdint>
#include <optional>
#include <string>

namespace spanscope::app::cli {

// Bytes a reader will hold for this file: its size, or for gzip what its trailer says it
// inflates to (mod 4 GiB, enough to tell large from small). 0 for what is not a file.
uint64_t inputBytes(const char* path);

// The GLIBC_TUNABLES value to start the core with so that glibc's malloc backs large
// allocations with transparent huge pages, when some argument names a file of 4 MiB or
// more to parse; nullopt to leave the environment as it is (small inputs, or the user has
// set glibc.malloc.hugetlb already). `current` is GLIBC_TUNABLES now (may be null); the
// setting is appended to what it holds.
std::optional<std::string> hugePageTunables(int argc, const char* const* argv, const char* current);

} // namespace spanscope::app::cli
