#include "nccl_kernel.h"

#include <algorithm>
#include <cctype>

namespace spanscope::model::analysis {

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

std::vector<std::string> split(std::string_view s, char separator)
{
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); ++i)
        if (i == s.size() || s[i] == separator) {
            parts.emplace_back(s.substr(start, i - start));
            start = i + 1;
        }
    return parts;
}

bool isOneOf(const std::string& token, std::initializer_list<const char*> names)
{
    for (const char* name : names)
        if (token == name)
            return true;
    return false;
}

bool isReduction(const std::string& token)
{
    return isOneOf(token, {"Sum", "Prod", "Max", "Min", "PreMulSum", "SumPostDiv", "Avg", "MinMax"});
}

bool isAlgorithm(const std::string& token)
{
    return isOneOf(token, {"RING", "TREE", "COLLNET", "COLLNETDIRECT", "COLLNETCHAIN", "NVLS", "NVLSTREE", "PAT"});
}

bool isProtocol(const std::string& token)
{
    return isOneOf(token, {"LL", "LL128", "SIMPLE"});
}

} // namespace

bool isNcclKernelName(std::string_view name)
{
    const std::string l = lower(name.substr(0, 4));
    return l == "nccl" || l == "rccl";
}

std::optional<uint32_t> dataTypeBytes(std::string_view type)
{
    std::string t = lower(type);
    if (t.rfind("torch.", 0) == 0)
        t = t.substr(6);
    // NCCL's own short names come too: i8, u8, f16, bf16, f32, f64, f8e4m3, ...
    for (const char* one : {"int8_t", "uint8_t", "int8", "uint8", "i8", "u8", "char", "byte", "bool", "float8", "fp8",
                            "f8", "__nv_fp8"})
        if (t.rfind(one, 0) == 0)
            return 1;
    for (const char* two : {"half", "float16", "fp16", "f16", "__half", "bfloat16", "bf16", "__nv_bfloat16", "int16",
                            "short"})
        if (t == two)
            return 2;
    for (const char* four : {"float", "float32", "fp32", "f32", "int", "int32", "i32", "int32_t", "uint32_t", "uint32",
                             "u32"})
        if (t == four)
            return 4;
    for (const char* eight : {"double", "float64", "fp64", "f64", "long", "int64", "i64", "int64_t", "uint64_t",
                              "uint64", "u64"})
        if (t == eight)
            return 8;
    return std::nullopt;
}

std::optional<NcclKernelInfo> ncclKernelInfo(std::string_view name, const std::vector<ArgsField>& kernelArgs,
                                             const std::vector<std::vector<ArgsField>>& launchArgs)
{
    if (!isNcclKernelName(name))
        return std::nullopt;
    NcclKernelInfo info;
    // The prefix, then the collective, then in any order (NCCL has written both
    // ncclKernel_AllReduce_RING_LL_Sum_float and ncclDevKernel_AllReduce_Sum_f32_RING_LL)
    // the algorithm, protocol and reduction, known by name, and what is left is the type
    // ("int8_t", "__nv_bfloat16": underscores are the type's). NCCL 2.19's one
    // ncclDevKernel_Generic names nothing: its collective is what the profiler recorded.
    const std::string_view base = name.substr(0, name.find('('));
    const std::vector<std::string> tokens = split(base, '_');
    if (tokens.size() > 1 && tokens[1] != "Generic")
        info.collective = tokens[1];
    for (size_t i = 2; i < tokens.size(); ++i) {
        if (info.algorithm.empty() && isAlgorithm(tokens[i]))
            info.algorithm = tokens[i];
        else if (info.protocol.empty() && isProtocol(tokens[i]))
            info.protocol = tokens[i];
        else if (info.reduction.empty() && isReduction(tokens[i]))
            info.reduction = tokens[i];
        else
            info.dataType += (info.dataType.empty() ? "" : "_") + tokens[i];
    }
    // What the profiler recorded, on the kernel first, else on the operations around its launch.
    std::vector<const std::vector<ArgsField>*> sources{&kernelArgs};
    for (const auto& args : launchArgs)
        sources.push_back(&args);
    bool collectiveRecorded = false, typeRecorded = false, sizeRecorded = false, groupRecorded = false;
    for (const auto* args : sources) {
        if (!collectiveRecorded)
            if (const auto collective = argsText(*args, "Collective name"); collective && !collective->empty()) {
                info.collective = *collective;
                collectiveRecorded = true;
            }
        if (!typeRecorded)
            if (const auto type = argsText(*args, "dtype"); type && !type->empty()) {
                info.dataType = *type;
                typeRecorded = true;
            }
        if (!sizeRecorded) {
            const auto in = argsInteger(*args, "In msg nelems"), out = argsInteger(*args, "Out msg nelems");
            if ((in && *in >= 0) || (out && *out >= 0)) {
                info.elements = uint64_t(std::max(in.value_or(0), out.value_or(0)));
                sizeRecorded = true;
            }
        }
        if (!groupRecorded)
            if (const auto group = argsInteger(*args, "Group size"); group && *group > 0) {
                info.groupSize = *group;
                groupRecorded = true;
            }
    }
    info.typeBytes = dataTypeBytes(info.dataType);
    return info;
}

} // namespace spanscope::model::analysis
