// Stands in for the CUDA driver on a machine without one: loads the collector named by
// NVTX_INJECTION64_PATH and calls its InitializeInjection as the driver would at cuInit,
// then records NVTX ranges, which must reach the capture whatever CUDA's fate.
//
//   cuda_injection_program             three ranges "after CUDA init"
//   cuda_injection_program --launch N  then N ranges "step", the i-th launching one kernel
//                                      of i µs through the fake libcupti that
//                                      SPANSCOPE_CUPTI names (tests/collector/fake_cupti.cpp)
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace {

void spin(long ns)
{
    timespec from{}, now{};
    clock_gettime(CLOCK_MONOTONIC, &from);
    do
        clock_gettime(CLOCK_MONOTONIC, &now);
    while ((now.tv_sec - from.tv_sec) * 1000000000L + (now.tv_nsec - from.tv_nsec) < ns);
}

// Launches through the fake libcupti, which the collector has loaded: the same path gives
// the same library.
int launchSteps(int steps)
{
    const char* cupti = std::getenv("SPANSCOPE_CUPTI");
    void* fake = cupti ? dlopen(cupti, RTLD_LAZY | RTLD_NOLOAD) : nullptr;
    auto launch = fake ? reinterpret_cast<void (*)(std::uint64_t)>(dlsym(fake, "fake_cupti_launch")) : nullptr;
    if (!launch) {
        std::fprintf(stderr, "the collector has not loaded a fake libcupti (SPANSCOPE_CUPTI=%s)\n",
                     cupti ? cupti : "");
        return 4;
    }
    for (int i = 1; i <= steps; ++i) {
        nvtxRangePushA("step");
        // The launch starts and ends a microsecond inside its range, as one does in a real
        // job: a mapping of the two clocks that errs by more puts it outside.
        spin(1000);
        launch(std::uint64_t(i) * 1000); // the i-th step's kernel runs i µs
        spin(1000);
        nvtxRangePop();
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
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
    if (argc == 3 && std::strcmp(argv[1], "--launch") == 0)
        return launchSteps(std::atoi(argv[2]));
    return 0;
}
