// spanscope-cli: headless summaries for scripts and CI.

#include "summary_command.h"

#include <iostream>
#include <string>
#include <vector>

namespace {

const char* kUsage = "usage: spanscope-cli COMMAND [ARGS]\n"
                     "\n"
                     "commands:\n"
                     "  summary FILE... [--format text|json|csv]   statistics of region files\n"
                     "\n"
                     "exit codes: 0 success, 1 a file could not be read, 2 usage error\n";

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
    std::cerr << "spanscope-cli: unknown command '" << command << "'\n" << kUsage;
    return 2;
}
