// CUPTI activity records -> spanscope wire records (protocol version 4). Pure: no CUPTI
// call, no global state, so tests feed it records built from the CUDA headers and check
// what comes out, without a GPU.
#pragma once

#include "protocol/spanscope_protocol.h"

#include <cupti_activity.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace spanscope::collector::cuda {

// What translateActivity() needs from its caller (the injection, or a test).
class ActivityOut
{
public:
    virtual ~ActivityOut() = default;
    // String id of `text` (interned for the stream).
    virtual std::uint32_t intern(std::string_view text) = 0;
    // String id of a kernel's name as CUPTI gives it (mangled): the injection caches them.
    virtual std::uint32_t kernelName(const char* mangled);
    // String id of a runtime (CudaApiKind::Runtime) or driver API function's name.
    virtual std::uint32_t apiName(protocol::CudaApiKind api, std::uint32_t cbid) = 0;
    // A CUPTI timestamp (ns) on CLOCK_MONOTONIC.
    virtual std::int64_t hostNs(std::uint64_t cuptiNs) = 0;
    // One finished record (every field set; its header tells type and size).
    virtual void write(const void* record, std::size_t size) = 0;
};

// Translates one activity record. Returns false (nothing emitted) for kinds spanscope does
// not carry.
bool translateActivity(const CUpti_Activity& activity, ActivityOut& out);

// "void gemm<float>(int)" for "_Z4gemmIfEvi"; names that are not mangled come back as they are.
std::string demangle(const char* name);
// "cudaLaunchKernel" for "cudaLaunchKernel_v7000": CUPTI's callback names carry the
// version the function was introduced in.
std::string_view withoutVersionSuffix(std::string_view name);

} // namespace spanscope::collector::cuda
