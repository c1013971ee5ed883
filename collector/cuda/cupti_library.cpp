#include "cupti_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>

namespace spanscope::collector::cuda {

std::vector<std::string> CuptiLibrary::candidates()
{
    if (const char* chosen = std::getenv("SPANSCOPE_CUPTI"); chosen && *chosen)
        return {chosen};
    // Bare names go through the dynamic loader's own search (LD_LIBRARY_PATH, the cache).
    std::vector<std::string> paths = {"libcupti.so", "libcupti.so.13", "libcupti.so.12", "libcupti.so.11.8"};
    std::vector<std::string> roots;
    if (const char* home = std::getenv("CUDA_HOME"); home && *home)
        roots.emplace_back(home);
    if (const char* path = std::getenv("CUDA_PATH"); path && *path)
        roots.emplace_back(path);
    roots.emplace_back("/usr/local/cuda");
    for (const std::string& root : roots)
        for (const char* sub : {"/extras/CUPTI/lib64/libcupti.so", "/lib64/libcupti.so",
                                "/targets/x86_64-linux/lib/libcupti.so", "/targets/sbsa-linux/lib/libcupti.so"})
            paths.push_back(root + sub);
    return paths;
}

bool CuptiLibrary::load(std::string& error)
{
    std::string tried;
    for (const std::string& candidate : candidates()) {
        void* handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* why = ::dlerror();
            // "cannot open shared object file" for every place that has none: name it once.
            if (!tried.empty())
                tried += "; ";
            tried += why ? why : candidate + ": cannot load";
            continue;
        }
        auto bind = [&](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(handle, name));
            return fn != nullptr;
        };
        const char* missing = nullptr;
        if (!bind(activityRegisterCallbacks, "cuptiActivityRegisterCallbacks"))
            missing = "cuptiActivityRegisterCallbacks";
        else if (!bind(activityEnable, "cuptiActivityEnable"))
            missing = "cuptiActivityEnable";
        else if (!bind(activityFlushAll, "cuptiActivityFlushAll"))
            missing = "cuptiActivityFlushAll";
        else if (!bind(activityGetNextRecord, "cuptiActivityGetNextRecord"))
            missing = "cuptiActivityGetNextRecord";
        else if (!bind(activityGetNumDroppedRecords, "cuptiActivityGetNumDroppedRecords"))
            missing = "cuptiActivityGetNumDroppedRecords";
        else if (!bind(getResultString, "cuptiGetResultString"))
            missing = "cuptiGetResultString";
        else if (!bind(getVersion, "cuptiGetVersion"))
            missing = "cuptiGetVersion";
        else if (!bind(getTimestamp, "cuptiGetTimestamp"))
            missing = "cuptiGetTimestamp";
        else if (!bind(getCallbackName, "cuptiGetCallbackName"))
            missing = "cuptiGetCallbackName";
        if (missing) {
            if (!tried.empty())
                tried += "; ";
            tried += candidate + " lacks " + missing;
            ::dlclose(handle);
            continue;
        }
        bind(activityRegisterTimestampCallback, "cuptiActivityRegisterTimestampCallback");
        bind(activityFlushPeriod, "cuptiActivityFlushPeriod");
        bind(getStreamIdEx, "cuptiGetStreamIdEx");
        bind(activityDisable, "cuptiActivityDisable");
        bind(setThreadIdType, "cuptiSetThreadIdType");
        uint32_t v = 0;
        version = getVersion(&v) == CUPTI_SUCCESS ? v : 0;
        path = candidate;
        // The handle stays open for the life of the process: CUPTI runs threads of its own.
        return true;
    }
    const char* chosen = std::getenv("SPANSCOPE_CUPTI");
    error = "libcupti could not be loaded (" + tried + ")" +
            (chosen && *chosen ? "; SPANSCOPE_CUPTI names it" : "; set SPANSCOPE_CUPTI to its path");
    return false;
}

std::string CuptiLibrary::describe(CUptiResult result) const
{
    const char* text = nullptr;
    if (getResultString && getResultString(result, &text) == CUPTI_SUCCESS && text)
        return text;
    return "CUPTI error " + std::to_string(int(result));
}

} // namespace spanscope::collector::cuda
