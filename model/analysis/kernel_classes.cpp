#include "kernel_classes.h"

namespace spanscope::model::analysis {

namespace {

constexpr const char* kDefaultCommunication = "^(nccl|rccl)";

std::optional<std::regex> compile(const std::string& pattern, std::string* error)
{
    try {
        return std::regex(pattern, std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
    } catch (const std::regex_error& e) {
        if (error)
            *error = std::string("not a valid regular expression: ") + e.what();
        return std::nullopt;
    }
}

KernelClasses::Rule rule(std::string name, std::string pattern)
{
    KernelClasses::Rule r;
    r.name = std::move(name);
    r.pattern = std::move(pattern);
    if (!r.pattern.empty())
        r.regex = *compile(r.pattern, nullptr);
    return r;
}

} // namespace

KernelClasses::KernelClasses()
    : m_communication(rule("communication", kDefaultCommunication)), m_memory(rule("memory", ""))
{
}

std::optional<std::string> KernelClasses::add(std::string_view spec)
{
    const size_t equals = spec.find('=');
    if (equals == std::string_view::npos)
        return "expected NAME=REGEX, e.g. attention=flash|fmha";
    const std::string name(spec.substr(0, equals));
    const std::string pattern(spec.substr(equals + 1));
    if (name.empty())
        return "the class has no name (expected NAME=REGEX)";
    if (name == "compute")
        return "'compute' is every kernel no other class takes; change 'communication' or 'memory', or "
               "name a label of your own";
    std::string error;
    if (!pattern.empty() && !compile(pattern, &error))
        return "'" + pattern + "' is " + error;
    if (pattern.empty() && name != "communication" && name != "memory")
        return "the label '" + name + "' has no pattern";
    m_default = false;
    if (name == "communication")
        m_communication = rule(name, pattern);
    else if (name == "memory")
        m_memory = rule(name, pattern);
    else {
        for (Rule& label : m_labels)
            if (label.name == name) {
                label = rule(name, pattern);
                return std::nullopt;
            }
        m_labels.push_back(rule(name, pattern));
    }
    return std::nullopt;
}

bool KernelClasses::matches(const Rule& rule, std::string_view name)
{
    return !rule.pattern.empty() && std::regex_search(name.begin(), name.end(), rule.regex);
}

GpuWorkClass KernelClasses::classOfKernel(std::string_view name) const
{
    if (matches(m_communication, name))
        return GpuWorkClass::Communication;
    if (matches(m_memory, name))
        return GpuWorkClass::Memory;
    return GpuWorkClass::Compute;
}

int KernelClasses::labelOf(std::string_view name) const
{
    for (size_t i = 0; i < m_labels.size(); ++i)
        if (matches(m_labels[i], name))
            return int(i);
    return -1;
}

std::vector<std::string> KernelClasses::specs() const
{
    std::vector<std::string> out;
    out.push_back(m_communication.name + "=" + m_communication.pattern);
    out.push_back(m_memory.name + "=" + m_memory.pattern);
    for (const Rule& label : m_labels)
        out.push_back(label.name + "=" + label.pattern);
    return out;
}

} // namespace spanscope::model::analysis
