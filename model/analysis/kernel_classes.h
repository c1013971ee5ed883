#pragma once
// What kind of work each GPU activity is, for the utilization and the critical path:
// every copy and memset is memory work; a kernel is communication when its name matches the
// communication pattern (NCCL's and RCCL's kernels by default), memory when it matches the
// memory pattern (none by default), else compute. Users may change those two patterns and
// add labels of their own ("attention=flash|fmha"), which sort kernels into named
// sub-classes within their class. Patterns are ECMAScript regular expressions, matched
// anywhere in the kernel's name, ignoring case. Immutable once built; any thread.

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace spanscope::model::analysis {

enum class GpuWorkClass : uint8_t { Compute, Communication, Memory };
inline constexpr int kGpuWorkClasses = 3;
// "compute", "communication", "memory". Inline: reports format analyses without linking them.
inline const char* gpuWorkClassName(GpuWorkClass c)
{
    return c == GpuWorkClass::Communication ? "communication" : c == GpuWorkClass::Memory ? "memory" : "compute";
}

class KernelClasses
{
public:
    // The defaults: communication = "^(nccl|rccl)", memory = none, no labels.
    KernelClasses();

    // "NAME=REGEX". NAME "communication" or "memory" replaces that class's kernel pattern
    // (an empty REGEX: no kernel is of the class); "compute" is refused (it is every kernel no
    // other class takes); any other NAME adds a label, or replaces the label of that name.
    // Returns the reason when `spec` is not usable (no '=', an empty name, a bad pattern).
    std::optional<std::string> add(std::string_view spec);

    struct Rule
    {
        std::string name;    // "communication", "memory" or a label
        std::string pattern; // as given; empty = matches nothing
        std::regex regex;
    };
    const Rule& communication() const { return m_communication; }
    const Rule& memory() const { return m_memory; }
    const std::vector<Rule>& labels() const { return m_labels; }
    // True while nothing was changed from the defaults.
    bool isDefault() const { return m_default; }

    // A kernel's class and label (index into labels(), -1 = none). O(pattern) per call:
    // callers classify each distinct name once.
    GpuWorkClass classOfKernel(std::string_view name) const;
    int labelOf(std::string_view name) const;

    // The specs that rebuild these classes with add() ("communication=^(nccl|rccl)", ...), for
    // settings and for the report.
    std::vector<std::string> specs() const;

private:
    static bool matches(const Rule& rule, std::string_view name);
    Rule m_communication, m_memory;
    std::vector<Rule> m_labels;
    bool m_default = true;
};

} // namespace spanscope::model::analysis
