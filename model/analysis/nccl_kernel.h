#pragma once
// What an NCCL or RCCL kernel does, for a person inspecting one: its collective (AllReduce,
// AllGather, SendRecv, ...), algorithm, protocol, reduction and data type from the kernel's
// name (ncclKernel_AllReduce_RING_LL_Sum_float, ncclDevKernel_AllGather_RING_LL), overridden
// by what the profiler recorded (PyTorch's "Collective name", "dtype", "In msg nelems",
// "Out msg nelems", "Group size" on the kernel or on the operation that launched it); with
// the element count and size of the type, the bytes moved and the algorithm bandwidth (bytes
// over the kernel's duration). Pure functions; any thread.

#include "model/tables/args_fields.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spanscope::model::analysis {

struct NcclKernelInfo
{
    std::string collective, algorithm, protocol, reduction, dataType; // "" = unknown
    std::optional<uint64_t> elements;  // of the larger of the input and output messages
    std::optional<int64_t> groupSize;  // ranks in the communicator
    std::optional<uint32_t> typeBytes; // size of one element
    std::optional<uint64_t> bytes() const
    {
        // A hostile count cannot wrap: past 2^64 bytes the size is unknown.
        if (!elements || !typeBytes || *elements > UINT64_MAX / *typeBytes)
            return std::nullopt;
        return *elements * *typeBytes;
    }
    // Bytes per second over `durationNs`, the algorithm bandwidth.
    std::optional<double> bandwidth(int64_t durationNs) const
    {
        const auto b = bytes();
        return b && durationNs > 0 ? std::optional<double>(double(*b) / (double(durationNs) * 1e-9)) : std::nullopt;
    }
};

// Whether a kernel's name is NCCL's or RCCL's.
bool isNcclKernelName(std::string_view name);
// Null for other kernels. `kernelArgs`: the kernel's own args; `launchArgs`: those of the
// operations enclosing its launch, innermost first (any of them may carry the message size).
std::optional<NcclKernelInfo> ncclKernelInfo(std::string_view name, const std::vector<ArgsField>& kernelArgs,
                                             const std::vector<std::vector<ArgsField>>& launchArgs = {});
// Bytes of one element of a data type as NCCL, CUDA or PyTorch names it ("float", "half",
// "__nv_bfloat16", "BFloat16", "int8_t", "Long", ...), or nullopt.
std::optional<uint32_t> dataTypeBytes(std::string_view type);

} // namespace spanscope::model::analysis
