// spanscope-cli-core: the CLI's commands but `render`, headless, for scripts and CI. Users
// run it as spanscope-cli (cli_launcher.cpp), which starts it with the right settings.

#include "compare_command.h"
#include "export_command.h"
#include "summary_command.h"
#include "spanscope_version.h"

#include <iostream>
#include <string>
#include <vector>

namespace {

const char* kUsage =
    "Usage: spanscope-cli COMMAND [ARGS]\n"
    "\n"
    "Statistics, comparisons, timeline images and Chrome trace export of region files,\n"
    "captures and traces, for scripts and CI.\n"
    "\n"
    "Commands:\n"
    "  summary FILE...\n"
    "      statistics of region files and traces, per region and rank\n"
    "      [--format text|json|csv] [--per-thread]\n"
    "  compare BASELINE CANDIDATE...\n"
    "      regions compared across runs; exit 1 on a significant slowdown\n"
    "      [--format text|json|csv] [--threshold PCT] [--metric mean|p50|p95|total|allocs|bytes]\n"
    "      [--region REGEX] [--per-rank]\n"
    "  render FILE --output OUT.png\n"
    "      the timeline as an image\n"
    "      [--width W] [--height H] [--from NS] [--to NS] [--lanes REGEX]\n"
    "  export --output OUT.json[.gz] FILE\n"
    "      any capture as Chrome trace JSON (Perfetto UI, chrome://tracing)\n"
    "      [--format chrome]\n"
    "\n"
    "Options:\n"
    "  --help      this text\n"
    "  --version   the version of spanscope\n"
    "\n"
    "Exit status:\n"
    "  0 success, 1 a file could not be read (compare: or a region got significantly\n"
    "  slower), 2 usage error\n";

} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
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
    if (command == "-V" || command == "--version" || command == "version") {
        std::cout << "spanscope-cli " SPANSCOPE_VERSION "\n";
        return 0;
    }
    if (command == "summary")
        return spanscope::app::cli::runSummary(args, std::cout, std::cerr);
    if (command == "compare")
        return spanscope::app::cli::runCompare(args, std::cout, std::cerr);
    if (command == "export")
        return spanscope::app::cli::runExport(args, std::cout, std::cerr);
    if (command == "render") {
        std::cerr << "spanscope-cli: render runs in spanscope-render; start it as `spanscope-cli render`\n";
        return 2;
    }
    std::cerr << "spanscope-cli: unknown command '" << command << "'\n" << kUsage;
    return 2;
}
