// spanscope-cli: picks the program that runs a command and starts it in place (execv).
//  - `render` runs in spanscope-render (it needs Qt's GUI libraries, ~35 ms to load);
//  - everything else runs in spanscope-cli-core, and for inputs of 4 MiB or more with
//    glibc's malloc backing large allocations with transparent huge pages
//    (launch_settings.h).
//
// Why a separate launcher: loading a large trace touches hundreds of megabytes of fresh
// memory, and on virtual machines each 4 KiB page fault costs microseconds (faulting 50 MB
// page by page takes ~150 ms, longer than inflating it). glibc reads its tunables only when
// a program starts; this program links nothing but the C++ runtime and starts in ~3 ms,
// so choosing the settings here costs far less than the core restarting itself.
//
// The tunable is inherited only by the core; the CLI never starts a profiled job. Not set
// in sanitizer builds, whose allocator is their own, or with SPANSCOPE_NO_HUGE_PAGES set.

#include "app/install_paths.h"
#include "launch_settings.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <unistd.h>

namespace {

void useHugePagesForLargeInputs(int argc, char** argv)
{
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    if (std::getenv("SPANSCOPE_NO_HUGE_PAGES"))
        return;
    if (const auto tunables = spanscope::app::cli::hugePageTunables(argc, argv, std::getenv("GLIBC_TUNABLES")))
        ::setenv("GLIBC_TUNABLES", tunables->c_str(), 1); // on failure the core runs without
#else
    (void)argc, (void)argv;
#endif
}

} // namespace

int main(int argc, char** argv)
{
    const bool render = argc > 1 && std::strcmp(argv[1], "render") == 0;
    const char* name = render ? "spanscope-render" : "spanscope-cli-core";
    const std::vector<std::string> candidates =
        spanscope::app::helperProgramCandidates(spanscope::app::ownDirectory(), name);
    const std::string program = spanscope::app::firstExisting(candidates, true);
    if (program.empty()) {
        std::fprintf(stderr, "spanscope-cli: %s, which runs %s, is not in %s%s%s\n", name,
                     render ? "`render` (built with the GUI only)" : "every command",
                     candidates.empty() ? "this installation" : candidates.front().c_str(),
                     candidates.size() > 1 ? " nor " : "",
                     candidates.size() > 1 ? candidates.back().c_str() : "");
        return 2;
    }
    if (!render)
        useHugePagesForLargeInputs(argc, argv);
    // render: argv[1] ("render") becomes the program's argv[0]; otherwise the core sees
    // exactly what was typed, under the name the user typed.
    ::execv(program.c_str(), render ? argv + 1 : argv);
    std::fprintf(stderr, "spanscope-cli: cannot run %s: %s\n", program.c_str(), std::strerror(errno));
    return 2;
}
