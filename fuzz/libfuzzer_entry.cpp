// libFuzzer's entry point for one target, chosen at compile time (SPANSCOPE_FUZZ_TARGET is
// one of the functions in fuzz_targets.h).
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return spanscope::fuzz::SPANSCOPE_FUZZ_TARGET(data, size);
}
