// Stands in for the CUDA driver on a machine without one: loads the collector named by
// NVTX_INJECTION64_PATH and calls its InitializeInjection as the driver would at cuInit,
// then records NVTX ranges, which must reach the capture whatever CUDA's fate.
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>

int main()
{
    const char* collector = std::getenv("NVTX_INJECTION64_PATH");
    void* library = collector ? dlopen(collector, RTLD_LAZY) : nullptr; // as NVTX does: not global
    if (!library) {
        std::fprintf(stderr, "cannot load the collector: %s\n", collector ? dlerror() : "NVTX_INJECTION64_PATH unset");
        return 2;
    }
    auto initialize = reinterpret_cast<int (*)()>(dlsym(library, "InitializeInjection"));
    if (!initialize) {
        std::fprintf(stderr, "the collector exports no InitializeInjection\n");
        return 3;
    }
    std::printf("InitializeInjection returned %d\n", initialize());
    // What <spanscope/device_window.h> looks up: the collector, loaded privately as NVTX and
    // the driver load it, must have put itself in the global scope.
    std::printf("device-window entry visible: %s\n",
                dlsym(RTLD_DEFAULT, "spanscope_report_device_window") ? "yes" : "no");
    for (int i = 0; i < 3; ++i) {
        nvtxRangePushA("after CUDA init");
        nvtxRangePop();
    }
    return 0;
}
