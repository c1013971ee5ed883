// A shared library with its own copy of NVTX (hidden visibility keeps NVTX's link-once globals
// private to it), so a job using it calls InitializeInjectionNvtx2 a second time.
#include "nvtx_workload_counts.h"

#include <nvtx3/nvtx3.hpp>

namespace {
struct TestDomain
{
    static constexpr const char* name{spanscope::test::kDomainName};
};
} // namespace

extern "C" __attribute__((visibility("default"))) void spanscopeSecondLibraryWork()
{
    nvtx3::scoped_range_in<TestDomain> range{"second-library"};
    nvtxRangePushA("second-core");
    nvtxRangePop();
}
