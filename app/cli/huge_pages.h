#pragma once
// Large inputs make the parser touch hundreds of megabytes of fresh memory; on virtual
// machines each 4 KiB page fault costs microseconds, and faulting half a gigabyte can
// take longer than the parsing. glibc backs its large allocations with transparent huge
// pages when its `glibc.malloc.hugetlb` tunable is set, but tunables are read only when a
// program starts: so the CLI restarts itself once with the tunable set (about 10 ms: the CLI loads no Qt) when
// an input is large enough for that to pay. Never in sanitizer builds (their allocator
// is not glibc's). The CLI starts no other program, so the setting affects it alone.

#include <string>
#include <vector>

namespace spanscope::app::cli {

// Returns only if no restart happened (small inputs, already restarted, or exec failed).
void restartWithHugePagesForLargeInputs(int argc, char** argv, const std::vector<std::string>& args);

} // namespace spanscope::app::cli
