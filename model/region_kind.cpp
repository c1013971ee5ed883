#include "region_kind.h"

namespace spanscope::model {

namespace {
constexpr RegionKind kAll[] = {RegionKind::Cpu, RegionKind::Kernel, RegionKind::Memcpy, RegionKind::Memset,
                               RegionKind::GpuRange};
}

const char* regionKindName(RegionKind kind)
{
    switch (kind) {
    case RegionKind::Cpu: return "cpu";
    case RegionKind::Kernel: return "kernel";
    case RegionKind::Memcpy: return "memcpy";
    case RegionKind::Memset: return "memset";
    case RegionKind::GpuRange: return "gpu_range";
    }
    return "cpu";
}

std::optional<RegionKind> regionKindFromName(std::string_view name)
{
    for (const RegionKind kind : kAll)
        if (name == regionKindName(kind))
            return kind;
    return std::nullopt;
}

} // namespace spanscope::model
