#pragma once
// `--kernel-class NAME=REGEX`, as summary and compare take it (model/analysis/kernel_classes.h):
// repeatable; each changes a class or adds a label before the GPU analyses run.

#include "model/analysis/kernel_classes.h"

#include <ostream>
#include <string>
#include <vector>

namespace spanscope::app::cli {

// If args[i] is --kernel-class (with its value next, or as --kernel-class=SPEC), applies it
// to `classes`, advances i past the value and returns true; on a bad spec writes why to
// `err` (naming `command`) and sets `failed`. Returns false for any other argument.
bool takeKernelClassOption(const std::vector<std::string>& args, size_t& i, model::analysis::KernelClasses& classes,
                           const char* command, std::ostream& err, bool& failed);

} // namespace spanscope::app::cli
