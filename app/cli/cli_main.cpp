// spanscope-cli-core: the CLI's commands but `render`, headless, for scripts and CI. Users
// run it as spanscope-cli (cli_launcher.cpp), which starts it with the right settings.

#include "compare_command.h"
#include "export_command.h"
#include "summary_command.h"

#include <iostream>
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
