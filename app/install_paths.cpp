#include "install_paths.h"

#include <cstdlib>
#include <unistd.h>

namespace spanscope::app {

namespace {

constexpr const char* kCollectorLibrary = "libspanscope-collector.so";

// Joins a folder ending in '/' and a relative path; "." (same folder) adds nothing.
std::string under(const std::string& dir, const std::string& relative)
{
    return relative == "." || relative.empty() ? dir : dir + relative + '/';
}

} // namespace

std::string ownDirectory()
{
    char self[4096];
    const ssize_t length = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0)
        return {};
    const std::string path(self, size_t(length));
    return path.substr(0, path.find_last_of('/') + 1);
}

std::vector<std::string> helperProgramCandidates(const std::string& programDir,
                                                 const std::string& name)
{
    if (programDir.empty())
        return {};
    return {under(programDir, SPANSCOPE_BIN_TO_LIBEXEC) + name, programDir + name};
}

constexpr const char* kAllocLibrary = "libspanscope-alloc.so";

std::vector<std::string> collectorCandidates(const std::string& programDir)
{
    if (const char* env = std::getenv("SPANSCOPE_COLLECTOR"); env && *env)
        return {env};
    if (programDir.empty())
        return {};
    return {under(programDir, SPANSCOPE_BIN_TO_PLUGINS) + kCollectorLibrary,
            programDir + "../lib/" + kCollectorLibrary};
}

std::vector<std::string> allocLibraryCandidates(const std::string& programDir)
{
    if (const char* env = std::getenv("SPANSCOPE_ALLOC_LIBRARY"); env && *env)
        return {env};
    if (programDir.empty())
        return {};
    // Installed in the library directory (programs link it), the parent of the plugin one.
    return {under(programDir, SPANSCOPE_BIN_TO_PLUGINS) + "../" + kAllocLibrary,
            programDir + "../lib/" + kAllocLibrary};
}

std::string firstExisting(const std::vector<std::string>& candidates, bool executable)
{
    for (const std::string& path : candidates)
        if (!path.empty() && ::access(path.c_str(), executable ? X_OK : R_OK) == 0)
            return path;
    return {};
}

} // namespace spanscope::app
