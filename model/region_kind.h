#pragma once
// What a region's calls are: CPU ranges (every HDF5 and NVTX region), or GPU work. A name
// may exist as more than one kind (a CPU range and a kernel both called "gemm" are two
// regions), so regions are keyed by (name, kind) wherever they are matched.

#include <cstdint>
#include <optional>
#include <string_view>

namespace spanscope::model {

enum class RegionKind : uint8_t {
    Cpu,      // a range on a CPU thread, task or NVTX lane
    Kernel,   // a GPU kernel
    Memcpy,   // a GPU copy
    Memset,   // a GPU memset
    GpuRange, // an annotation on a GPU stream (PyTorch's gpu_user_annotation)
};

// "cpu", "kernel", "memcpy", "memset", "gpu_range": the names the CLI's JSON uses.
const char* regionKindName(RegionKind kind);
std::optional<RegionKind> regionKindFromName(std::string_view name);
// Kernels, copies and memsets: work a GPU did (GPU ranges only annotate it).
inline bool isGpuActivity(RegionKind kind)
{
    return kind == RegionKind::Kernel || kind == RegionKind::Memcpy || kind == RegionKind::Memset;
}

} // namespace spanscope::model
