// spanscope-render: `spanscope-cli render` in its own executable, so that the CLI's other
// commands start without loading Qt's GUI libraries (~35 ms a start). spanscope-cli
// execs it for `render`; it may also be run on its own with the same arguments.

#include "render_command.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args.front() == "render")
        args.erase(args.begin());
    return spanscope::app::cli::runRender(args, std::cout, std::cerr);
}
