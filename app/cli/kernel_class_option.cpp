#include "kernel_class_option.h"

namespace spanscope::app::cli {

bool takeKernelClassOption(const std::vector<std::string>& args, size_t& i, model::analysis::KernelClasses& classes,
                           const char* command, std::ostream& err, bool& failed)
{
    const std::string& arg = args[i];
    std::string spec;
    if (arg == "--kernel-class") {
        if (i + 1 >= args.size()) {
            err << "spanscope-cli " << command << ": --kernel-class needs NAME=REGEX\n";
            failed = true;
            return true;
        }
        spec = args[++i];
    } else if (arg.rfind("--kernel-class=", 0) == 0) {
        spec = arg.substr(15);
    } else {
        return false;
    }
    if (const auto problem = classes.add(spec)) {
        err << "spanscope-cli " << command << ": --kernel-class '" << spec << "': " << *problem << "\n";
        failed = true;
    }
    return true;
}

} // namespace spanscope::app::cli
