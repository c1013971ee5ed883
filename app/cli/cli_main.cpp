// spanscope-cli: headless summaries for scripts and CI.

#include "compare_command.h"
#include "export_command.h"
#include "huge_pages.h"
#include "summary_command.h"

#include <cerrno>
#include <cstring>
#include <iostream>
#include <unistd.h>
#include <string>
#include <vector>

namespace {

const char* kUsage = "usage: spanscope-cli COMMAND [ARGS]\n"
                     "\n"
                     "commands:\n"
                     "  summary FILE... [--format text|json|csv] [--per-thread]\n"
                     "                                              statistics of region files and traces\n"
                     "  compare BASELINE CANDIDATE... [--format text|json|csv] [--threshold PCT]\n"
                     "          [--metric mean|p50|p95|total] [--region REGEX] [--per-rank]\n"
                     "                                              regions compared across runs;\n"
                     "                                              exit 1 on a significant slowdown\n"
                     "  render FILE --output OUT.png [--width W] [--height H] [--from NS] [--to NS]\n"
                     "         [--lanes REGEX]                     the timeline as an image\n"
                     "  export [--format chrome] --output OUT.json[.gz] FILE\n"
                     "                                              any capture as Chrome trace JSON\n"
                     "                                              (Perfetto UI, chrome://tracing)\n"
                     "\n"
                     "exit codes: 0 success, 1 a file could not be read (compare: or a region got\n"
                     "significantly slower), 2 usage error\n";

// `render` is spanscope-render, next to this executable (see render_main.cpp).
int runRenderProgram(char** argv)
{
    char self[4096];
    const ssize_t length = ::readlink("/proc/self/exe", self, sizeof self - 1);
    std::string path = length > 0 ? std::string(self, size_t(length)) : std::string(argv[0]);
    path = path.substr(0, path.find_last_of('/') + 1) + "spanscope-render";
    if (::access(path.c_str(), X_OK) != 0) {
        std::cerr << "spanscope-cli: rendering needs " << path
                  << ", which this build or installation does not have (built without the GUI?)\n";
        return 2;
    }
    ::execv(path.c_str(), argv + 1); // argv[1] is "render": it becomes the program's argv[0]
    std::cerr << "spanscope-cli: cannot run " << path << ": " << std::strerror(errno) << "\n";
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    spanscope::app::cli::restartWithHugePagesForLargeInputs(argc, argv, args);
    if (args.empty()) {
        std::cerr << kUsage;
        return 2;
    }
    const std::string command = args.front();
    args.erase(args.begin());
    if (command == "-h" || command == "--help" || command == "help") {
        std::cout << kUsage;
        return 0;
    }
    if (command == "summary")
        return spanscope::app::cli::runSummary(args, std::cout, std::cerr);
    if (command == "compare")
        return spanscope::app::cli::runCompare(args, std::cout, std::cerr);
    if (command == "export")
        return spanscope::app::cli::runExport(args, std::cout, std::cerr);
    if (command == "render")
        return runRenderProgram(argv);
    std::cerr << "spanscope-cli: unknown command '" << command << "'\n" << kUsage;
    return 2;
}
