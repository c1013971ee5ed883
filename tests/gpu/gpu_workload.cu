// spanscope-gpu-workload: the CUDA program of scripts/gpu-check.sh (docs/gpu-check.md).
//
//   spanscope-gpu-workload --json FILE     runs the workload, writes what it launched to FILE
//   spanscope-gpu-workload --overhead N    N empty kernels back to back; prints ns per launch
//
// The workload knows exactly what it launched and measures the GPU time of each of its NVTX
// ranges with cudaEvents, so a recording of it under the collector can be checked figure by
// figure (scripts/gpu-check.sh check).
//
// Phases, each inside one NVTX range of its own, each on a single stream:
//   malloc             cudaMalloc / cudaHostAlloc (no GPU work)
//   kernels_s1/s2/s3   busy kernels on the three streams (12, 7 and 3 of them)
//   launch_ranges_s2   200 ranges one_launch_s2 on s2, each around one launch of a 50 µs kernel
//   copies_s2          H2D, D2H and D2D copies (pinned host memory) on s2
//   memsets_s3         memsets on s3
//   windows_s3         busy kernels on s3 inside nested device windows (<spanscope/
//                      device_window_cuda.h>; left out when built without that header)
//   graph_capture_s1   a graph captured from s1 (the captured calls run nothing)
//   graph_launches_s1  that graph launched 3 times on s1
//   free               cudaFree / cudaFreeHost (no GPU work)
//
// GPU time of a range: the workload records a cudaEvent before the phase's first operation
// and one after its last, on the phase's only stream, and reports cudaEventElapsedTime. That
// equals the summed durations of the phase's kernels, copies and memsets (what the collector
// attributes to the range: the GPU work launched from inside it) when the stream never runs
// dry in between. So that it never does, each phase starts behind a gate: a kernel, launched
// before the range opens, that spins until the host has enqueued the whole phase (a flag in
// pinned host memory; after 2 s it gives up by itself, by which time the phase is enqueued
// anyway). Once the gate opens, the phase's operations run back to back; what remains between
// the events and the summed durations is the GPU's own gap between consecutive operations
// (about a microsecond each), which the operations' sizes (hundreds of microseconds each)
// keep far below the 5 % the check allows. The gates and the warm-up launches that load the
// kernels are counted in their streams' figures like every other launch, outside any range.
//
// Launches (`launches` in the JSON): the runtime calls that start GPU work, the ones the
// collector links to GPU activities: every kernel launch, cudaMemcpyAsync and
// cudaMemsetAsync that runs, and every cudaGraphLaunch, which counts once however many
// nodes the graph has (its nodes' kernels, copies and memsets all carry the launch's
// correlation id). The calls made while the stream was capturing the graph run nothing and
// are not launches. The graph's nodes count in the per-stream figures of the stream the
// graph is launched on, once per launch.
//
// Every CUDA call is checked: on failure the program prints the call, the error's name and
// its description, and exits with status 1.

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>

// Device windows (collector/window): measured where the header is there to build with.
#if __has_include(<spanscope/device_window_cuda.h>)
#include <spanscope/device_window_cuda.h>
#define SPANSCOPE_WORKLOAD_WINDOWS 1
#else
#define SPANSCOPE_WORKLOAD_WINDOWS 0
#endif

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// ---------------------------------------------------------------------------------------
// Errors

void check(cudaError_t status, const char* call, const char* file, int line)
{
    if (status == cudaSuccess)
        return;
    std::fprintf(stderr, "spanscope-gpu-workload: %s:%d: %s failed: %s: %s\n", file, line, call,
                 cudaGetErrorName(status), cudaGetErrorString(status));
    std::exit(1);
}

#define CHECK(call) check((call), #call, __FILE__, __LINE__)
// A kernel launch (<<<...>>>) reports its configuration errors through cudaGetLastError.
#define CHECK_LAUNCH(what) check(cudaGetLastError(), what, __FILE__, __LINE__)

[[noreturn]] void fail(const std::string& message)
{
    std::fprintf(stderr, "spanscope-gpu-workload: %s\n", message.c_str());
    std::exit(1);
}

// ---------------------------------------------------------------------------------------
// Kernels

__device__ unsigned long long globalTimerNs()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Runs for `ns` nanoseconds of the GPU's global timer, whatever the GPU: the workload's
// timings are the same on every device.
__global__ void busyKernel(unsigned long long ns, unsigned int* sink)
{
    const unsigned long long start = globalTimerNs();
    unsigned int spins = 0;
    while (globalTimerNs() - start < ns)
        ++spins;
    if (threadIdx.x == 0 && sink)
        atomicAdd(sink, spins & 1u); // keeps the loop
}

// Holds its stream until the host sets *flag (pinned host memory), or for timeoutNs.
__global__ void gateKernel(const volatile unsigned int* flag, unsigned long long timeoutNs,
                           unsigned int* timedOut)
{
    const unsigned long long start = globalTimerNs();
    while (*flag == 0) {
        if (globalTimerNs() - start > timeoutNs) {
            *timedOut = 1;
            return;
        }
        __nanosleep(1000);
    }
}

__global__ void emptyKernel() {}

// ---------------------------------------------------------------------------------------
// What the workload launched

struct Stream
{
    std::string name;
    cudaStream_t handle = nullptr;
    unsigned long long id = 0; // cudaStreamGetId
    int64_t kernels = 0, memcpys = 0, memsets = 0, memcpyBytes = 0;
};

struct Range
{
    std::string name;
    const Stream* stream = nullptr; // nullptr: the range launches no GPU work
    int64_t calls = 1;              // times the range was opened
    int64_t launches = 0;           // launches made inside the range
    int64_t kernels = 0, memcpys = 0, memsets = 0;
    double gpuMs = 0;               // cudaEventElapsedTime over the range's work
};

struct Window
{
    std::string name;
    int parent = -1;          // index of the window it is nested in, -1 for none
    int64_t calls = 0;        // times the window was opened
    double gpuMs = 0;         // summed over its calls, by plain cudaEvents
    int64_t windowNs = 0;     // the same, as DeviceDuration::wait() measured it
};

struct Workload
{
    Stream streams[3];
    std::vector<Range> ranges;
    std::vector<Window> windows;
    int64_t launches = 0;
    int64_t graphLaunches = 0;
    int64_t capturedCalls = 0; // calls made while capturing: no GPU work, not launches
    int graphKernels = 0, graphMemcpys = 0, graphMemsets = 0;
    int graphStream = 0;

    // The gate (docs at the top of the file).
    unsigned int* gateFlag = nullptr;     // pinned host memory, mapped
    unsigned int* gateTimedOut = nullptr; // pinned host memory, mapped
    unsigned int* gateFlagOnDevice = nullptr;
    unsigned int* gateTimedOutOnDevice = nullptr;
    int64_t gateTimeouts = 0;

    unsigned int* sink = nullptr;
    Range* open = nullptr; // the range being recorded, whose figures the launches add to

    void launched(Stream& s, int kernels, int memcpys, int memsets, int64_t bytes)
    {
        s.kernels += kernels;
        s.memcpys += memcpys;
        s.memsets += memsets;
        s.memcpyBytes += bytes;
        ++launches;
        if (open) {
            ++open->launches;
            open->kernels += kernels;
            open->memcpys += memcpys;
            open->memsets += memsets;
        }
    }

    void busy(Stream& s, unsigned long long ns)
    {
        busyKernel<<<1, 32, 0, s.handle>>>(ns, sink);
        CHECK_LAUNCH("busyKernel<<<1, 32, 0, stream>>>");
        launched(s, 1, 0, 0, 0);
    }

    void copy(Stream& s, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind)
    {
        CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s.handle));
        launched(s, 0, 1, 0, int64_t(bytes));
    }

    void memset(Stream& s, void* dst, int value, size_t bytes)
    {
        CHECK(cudaMemsetAsync(dst, value, bytes, s.handle));
        launched(s, 0, 0, 1, 0);
    }

    void gate(Stream& s)
    {
        gateKernel<<<1, 1, 0, s.handle>>>(gateFlagOnDevice, 2'000'000'000ull, gateTimedOutOnDevice);
        CHECK_LAUNCH("gateKernel<<<1, 1, 0, stream>>>");
        launched(s, 1, 0, 0, 0);
    }

    void closeGate(Stream& s)
    {
        __atomic_store_n(gateFlag, 0u, __ATOMIC_SEQ_CST);
        gate(s);
    }

    void openGate() { __atomic_store_n(gateFlag, 1u, __ATOMIC_SEQ_CST); }
};

// One phase: gate, NVTX range, events around `work` on stream s, then the elapsed time.
template <class Work>
void gpuPhase(Workload& w, const char* name, Stream& s, Work&& work)
{
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    w.closeGate(s);
    w.ranges.push_back(Range{name, &s});
    w.open = &w.ranges.back();
    nvtxRangePushA(name);
    CHECK(cudaEventRecord(start, s.handle));
    work();
    CHECK(cudaEventRecord(stop, s.handle));
    nvtxRangePop();
    w.open = nullptr;
    w.openGate();
    CHECK(cudaStreamSynchronize(s.handle));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    w.ranges.back().gpuMs = ms;
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
}

// A phase without GPU work (allocation, capture): an NVTX range and nothing to time.
template <class Work>
void hostPhase(Workload& w, const char* name, Work&& work)
{
    w.ranges.push_back(Range{name, nullptr});
    w.open = &w.ranges.back();
    nvtxRangePushA(name);
    work();
    nvtxRangePop();
    w.open = nullptr;
}

// ---------------------------------------------------------------------------------------
// JSON

std::string quoted(const std::string& text)
{
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
            out += escaped;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string number(double value)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.6f", value);
    return text;
}

void writeJson(const Workload& w, const std::string& path, const cudaDeviceProp& prop, int device)
{
    int driver = 0, runtime = 0;
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    std::string j = "{\n";
    j += "  \"format\": \"spanscope-gpu-workload\",\n  \"version\": 1,\n";
    j += "  \"device\": {\"ordinal\": " + std::to_string(device) + ", \"name\": " + quoted(prop.name) +
         ", \"compute_capability\": \"" + std::to_string(prop.major) + "." + std::to_string(prop.minor) +
         "\", \"driver_version\": " + std::to_string(driver) +
         ", \"runtime_version\": " + std::to_string(runtime) + "},\n";
    j += "  \"streams\": [\n";
    for (int i = 0; i < 3; ++i) {
        const Stream& s = w.streams[i];
        j += "    {\"name\": " + quoted(s.name) + ", \"stream\": " + std::to_string(s.id) +
             ", \"kernels\": " + std::to_string(s.kernels) + ", \"memcpys\": " + std::to_string(s.memcpys) +
             ", \"memcpy_bytes\": " + std::to_string(s.memcpyBytes) +
             ", \"memsets\": " + std::to_string(s.memsets) + "}" + (i < 2 ? ",\n" : "\n");
    }
    j += "  ],\n";
    j += "  \"launches\": " + std::to_string(w.launches) + ",\n";
    j += "  \"launches_note\": \"runtime calls that started GPU work: kernel launches, "
         "cudaMemcpyAsync, cudaMemsetAsync, and each cudaGraphLaunch once whatever its nodes\",\n";
    j += "  \"captured_calls\": " + std::to_string(w.capturedCalls) + ",\n";
    j += "  \"graph\": {\"stream\": " + std::to_string(w.streams[w.graphStream].id) +
         ", \"launches\": " + std::to_string(w.graphLaunches) +
         ", \"kernels_per_launch\": " + std::to_string(w.graphKernels) +
         ", \"memcpys_per_launch\": " + std::to_string(w.graphMemcpys) +
         ", \"memsets_per_launch\": " + std::to_string(w.graphMemsets) + "},\n";
    j += "  \"ranges\": [\n";
    for (size_t i = 0; i < w.ranges.size(); ++i) {
        const Range& r = w.ranges[i];
        j += "    {\"name\": " + quoted(r.name) + ", \"calls\": " + std::to_string(r.calls) + ", \"gpu_work\": " +
             (r.stream ? "true" : "false") +
             ", \"stream\": " + (r.stream ? std::to_string(r.stream->id) : std::string("null")) +
             ", \"launches\": " + std::to_string(r.launches) + ", \"kernels\": " + std::to_string(r.kernels) +
             ", \"memcpys\": " + std::to_string(r.memcpys) + ", \"memsets\": " + std::to_string(r.memsets) +
             ", \"gpu_ms\": " + number(r.gpuMs) + ", \"gpu_ns\": " + std::to_string(int64_t(r.gpuMs * 1e6 + 0.5)) +
             "}" + (i + 1 < w.ranges.size() ? ",\n" : "\n");
    }
    j += "  ],\n";
    j += "  \"windows\": [\n";
    for (size_t i = 0; i < w.windows.size(); ++i) {
        const Window& win = w.windows[i];
        j += "    {\"name\": " + quoted(win.name) + ", \"parent\": " +
             (win.parent < 0 ? std::string("null") : quoted(w.windows[size_t(win.parent)].name)) +
             ", \"calls\": " + std::to_string(win.calls) + ", \"gpu_ms\": " + number(win.gpuMs) +
             ", \"gpu_ns\": " + std::to_string(int64_t(win.gpuMs * 1e6 + 0.5)) +
             ", \"device_window_ns\": " + std::to_string(win.windowNs) + "}" +
             (i + 1 < w.windows.size() ? ",\n" : "\n");
    }
    j += "  ],\n";
    j += "  \"gate_timeouts\": " + std::to_string(w.gateTimeouts) + "\n";
    j += "}\n";
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f)
        fail("cannot write " + path + ": " + std::strerror(errno));
    const bool written = std::fwrite(j.data(), 1, j.size(), f) == j.size();
    if (std::fclose(f) != 0 || !written)
        fail("cannot write " + path + ": " + std::strerror(errno));
}

// ---------------------------------------------------------------------------------------
// Device windows
//
// Windows of <spanscope/device_window_cuda.h> on one stream, nested, some opened more than
// once. Each call also gets a pair of plain cudaEvents recorded right inside the window's own
// (no work in between), so the JSON's gpu_ns of a window is the plain events' time, summed
// over its calls, the figure the collector's "device windows" track must reproduce;
// device_window_ns is what the windows measured themselves.

#if SPANSCOPE_WORKLOAD_WINDOWS
namespace dw = spanscope::device_window;

[[noreturn]] void windowFailed(const char* what, const std::string& window, const dw::Error& e)
{
    fail(std::string("device window '") + window + "': " + what + " failed: " + dw::errorName(e.code) +
         (e.backendCode ? std::string(" (") + cudaGetErrorName(cudaError_t(e.backendCode)) + ")" : ""));
}

void windowsPhase(Workload& w, Stream& s, unsigned long long kernelNs)
{
    dw::CudaDeviceWindows windows;
    // The anchor drains the stream once: now, before the phase's gate holds the stream.
    if (auto anchored = windows.placeAnchor(s.handle); !anchored)
        windowFailed("placeAnchor", "(anchor)", anchored.error());
    w.windows = {Window{"win_outer", -1}, Window{"win_a", 0}, Window{"win_b", 0}, Window{"win_b_inner", 2}};

    struct Open
    {
        int window;
        dw::WindowToken token;
        cudaEvent_t start;
    };
    struct Closed
    {
        int window;
        cudaEvent_t start, stop;
        dw::CudaDeviceDuration duration;
    };
    std::vector<Closed> closed;
    auto open = [&](int window) {
        Open o{window, {}, nullptr};
        auto token = windows.start(s.handle, w.windows[size_t(window)].name.c_str());
        if (!token)
            windowFailed("start", w.windows[size_t(window)].name, token.error());
        o.token = token.value();
        CHECK(cudaEventCreate(&o.start));
        CHECK(cudaEventRecord(o.start, s.handle));
        return o;
    };
    auto close = [&](const Open& o) {
        cudaEvent_t stop;
        CHECK(cudaEventCreate(&stop));
        CHECK(cudaEventRecord(stop, s.handle));
        auto duration = windows.stop(s.handle, o.token);
        if (!duration)
            windowFailed("stop", w.windows[size_t(o.window)].name, duration.error());
        closed.push_back(Closed{o.window, o.start, stop, std::move(duration.value())});
    };

    gpuPhase(w, "windows_s3", s, [&] {
        const Open outer = open(0);
        const Open a = open(1);
        for (int i = 0; i < 4; ++i)
            w.busy(s, kernelNs);
        close(a);
        for (int i = 0; i < 2; ++i) {
            const Open b = open(2);
            w.busy(s, kernelNs);
            const Open inner = open(3);
            w.busy(s, kernelNs);
            close(inner);
            close(b);
        }
        close(outer);
    });

    // Resolving a duration is what reports the window to the collector.
    for (Closed& c : closed) {
        Window& win = w.windows[size_t(c.window)];
        auto ns = c.duration.wait();
        if (!ns)
            windowFailed("wait", win.name, ns.error());
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, c.start, c.stop));
        ++win.calls;
        win.gpuMs += ms;
        win.windowNs += ns.value();
        CHECK(cudaEventDestroy(c.start));
        CHECK(cudaEventDestroy(c.stop));
    }
}
#endif

// ---------------------------------------------------------------------------------------
// The workload

constexpr unsigned long long kKernelNs = 300'000; // each busy kernel: 300 µs
constexpr unsigned long long kShortKernelNs = 50'000; // each kernel of launch_ranges_s2: 50 µs
constexpr int kLaunchRanges = 200;
constexpr size_t kCopyBytes = size_t(64) << 20;   // each copy: 64 MiB
constexpr size_t kMemsetBytes = size_t(1) << 30;  // each memset: 1 GiB
constexpr int kGraphLaunches = 3;

int runWorkload(const std::string& jsonPath)
{
    int device = 0;
    CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, device));
    CHECK(cudaFree(nullptr)); // creates the context outside any range

    Workload w;
    const char* names[3] = {"workload.s1", "workload.s2", "workload.s3"};
    for (int i = 0; i < 3; ++i) {
        Stream& s = w.streams[i];
        s.name = names[i];
        CHECK(cudaStreamCreateWithFlags(&s.handle, cudaStreamNonBlocking));
        CHECK(cudaStreamGetId(s.handle, &s.id));
        nvtxNameCudaStreamA(s.handle, names[i]);
    }
    Stream& s1 = w.streams[0];
    Stream& s2 = w.streams[1];
    Stream& s3 = w.streams[2];

    void *hostSrc = nullptr, *hostDst = nullptr, *devA = nullptr, *devB = nullptr, *devBig = nullptr;
    hostPhase(w, "malloc", [&] {
        CHECK(cudaHostAlloc(&hostSrc, kCopyBytes, cudaHostAllocDefault));
        CHECK(cudaHostAlloc(&hostDst, kCopyBytes, cudaHostAllocDefault));
        CHECK(cudaHostAlloc(reinterpret_cast<void**>(&w.gateFlag), sizeof(unsigned int), cudaHostAllocMapped));
        CHECK(cudaMalloc(&devA, kCopyBytes));
        CHECK(cudaMalloc(&devB, kCopyBytes));
        CHECK(cudaMalloc(&devBig, kMemsetBytes));
        CHECK(cudaHostAlloc(reinterpret_cast<void**>(&w.gateTimedOut), sizeof(unsigned int), cudaHostAllocMapped));
        CHECK(cudaMalloc(reinterpret_cast<void**>(&w.sink), sizeof(unsigned int)));
    });
    std::memset(hostSrc, 0x5a, kCopyBytes);
    *w.gateFlag = 1;
    *w.gateTimedOut = 0;
    CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&w.gateFlagOnDevice), w.gateFlag, 0));
    CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&w.gateTimedOutOnDevice), w.gateTimedOut, 0));

    // Warm-up outside any range: loads every kernel (lazy module loading) and zeroes the busy
    // kernels' counter. Counted like every launch. The gate is open: the gates return at once.
    w.memset(s1, w.sink, 0, sizeof(unsigned int));
    for (Stream& s : w.streams) {
        w.busy(s, 1000);
        w.gate(s);
    }
    CHECK(cudaDeviceSynchronize());

    // Kernels: a different count on each stream, so that a mix-up of streams shows.
    gpuPhase(w, "kernels_s1", s1, [&] { for (int i = 0; i < 12; ++i) w.busy(s1, kKernelNs); });
    gpuPhase(w, "kernels_s2", s2, [&] { for (int i = 0; i < 7; ++i) w.busy(s2, kKernelNs); });
    gpuPhase(w, "kernels_s3", s3, [&] { for (int i = 0; i < 3; ++i) w.busy(s3, kKernelNs); });

    // A range around each launch, as PyTorch's emit_nvtx makes them: each launch begins and
    // ends microseconds inside its range, so the range gets its kernel's GPU time only where
    // the collector's clock and CUPTI's agree that closely. Reported as the phase's range
    // and as one_launch_s2, opened kLaunchRanges times, with the phase's GPU time.
    gpuPhase(w, "launch_ranges_s2", s2, [&] {
        for (int i = 0; i < kLaunchRanges; ++i) {
            nvtxRangePushA("one_launch_s2");
            w.busy(s2, kShortKernelNs);
            nvtxRangePop();
        }
    });
    Range perLaunch = w.ranges.back();
    perLaunch.name = "one_launch_s2";
    perLaunch.calls = kLaunchRanges;
    w.ranges.push_back(perLaunch);

    // Copies of every direction on s2, from and to pinned host memory.
    gpuPhase(w, "copies_s2", s2, [&] {
        for (int i = 0; i < 4; ++i) {
            w.copy(s2, devA, hostSrc, kCopyBytes, cudaMemcpyHostToDevice);
            w.copy(s2, devB, devA, kCopyBytes, cudaMemcpyDeviceToDevice);
            w.copy(s2, hostDst, devB, kCopyBytes, cudaMemcpyDeviceToHost);
        }
    });

    // Memsets on s3.
    gpuPhase(w, "memsets_s3", s3, [&] {
        for (int i = 0; i < 3; ++i)
            w.memset(s3, devBig, i + 1, kMemsetBytes);
    });

#if SPANSCOPE_WORKLOAD_WINDOWS
    // Device windows on s3, nested: win_outer > win_a, win_b (twice) > win_b_inner.
    windowsPhase(w, s3, kKernelNs);
#endif

    // A graph captured from s1 (a chain: kernel, copy, memset, kernel), launched 3 times.
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t graphExec = nullptr;
    hostPhase(w, "graph_capture_s1", [&] {
        CHECK(cudaStreamBeginCapture(s1.handle, cudaStreamCaptureModeThreadLocal));
        busyKernel<<<1, 32, 0, s1.handle>>>(kKernelNs, w.sink);
        CHECK_LAUNCH("busyKernel<<<1, 32, 0, s1>>> (captured)");
        CHECK(cudaMemcpyAsync(devB, devA, kCopyBytes, cudaMemcpyDeviceToDevice, s1.handle));
        CHECK(cudaMemsetAsync(devA, 0, kCopyBytes, s1.handle));
        busyKernel<<<1, 32, 0, s1.handle>>>(kKernelNs, w.sink);
        CHECK_LAUNCH("busyKernel<<<1, 32, 0, s1>>> (captured)");
        CHECK(cudaStreamEndCapture(s1.handle, &graph));
        CHECK(cudaGraphInstantiate(&graphExec, graph, 0));
    });
    w.capturedCalls = 4;
    w.graphKernels = 2;
    w.graphMemcpys = 1;
    w.graphMemsets = 1;
    w.graphStream = 0;
    gpuPhase(w, "graph_launches_s1", s1, [&] {
        for (int i = 0; i < kGraphLaunches; ++i) {
            CHECK(cudaGraphLaunch(graphExec, s1.handle));
            w.launched(s1, w.graphKernels, w.graphMemcpys, w.graphMemsets, int64_t(w.graphMemcpys * kCopyBytes));
            ++w.graphLaunches;
        }
    });

    CHECK(cudaDeviceSynchronize());
    w.gateTimeouts = __atomic_load_n(w.gateTimedOut, __ATOMIC_SEQ_CST);

    hostPhase(w, "free", [&] {
        CHECK(cudaGraphExecDestroy(graphExec));
        CHECK(cudaGraphDestroy(graph));
        CHECK(cudaFreeHost(hostSrc));
        CHECK(cudaFreeHost(hostDst));
        CHECK(cudaFreeHost(w.gateFlag));
        CHECK(cudaFree(devA));
        CHECK(cudaFree(devB));
        CHECK(cudaFree(devBig));
        CHECK(cudaFreeHost(w.gateTimedOut));
        CHECK(cudaFree(w.sink));
    });
    for (Stream& s : w.streams)
        CHECK(cudaStreamDestroy(s.handle));

    writeJson(w, jsonPath, prop, device);
    std::printf("spanscope-gpu-workload: %lld launches on 3 streams, %zu ranges, %zu windows -> %s\n",
                (long long)w.launches, w.ranges.size(), w.windows.size(), jsonPath.c_str());
    for (const Range& r : w.ranges)
        if (r.stream)
            std::printf("  %-20s %3lld launches  %9.3f ms GPU\n", r.name.c_str(), (long long)r.launches, r.gpuMs);
    if (w.gateTimeouts)
        std::fprintf(stderr, "spanscope-gpu-workload: warning: a gate timed out (its phase took "
                             "over 2 s to enqueue); the timings are still valid\n");
    return 0;
}

// ---------------------------------------------------------------------------------------
// Overhead: launch-bound, N empty kernels back to back

int runOverhead(long long n)
{
    cudaStream_t stream;
    CHECK(cudaFree(nullptr));
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    // Warm-up: loads the kernel, fills the launch path's caches.
    for (int i = 0; i < 1000; ++i)
        emptyKernel<<<1, 1, 0, stream>>>();
    CHECK_LAUNCH("emptyKernel<<<1, 1, 0, stream>>> (warm-up)");
    CHECK(cudaStreamSynchronize(stream));

    nvtxRangePushA("overhead_loop");
    const auto start = std::chrono::steady_clock::now();
    for (long long i = 0; i < n; ++i)
        emptyKernel<<<1, 1, 0, stream>>>();
    // Once after the loop, not per launch: a check is a runtime call, which a collector
    // that traces the runtime API would see too. Launch errors are sticky until read.
    CHECK_LAUNCH("emptyKernel<<<1, 1, 0, stream>>>");
    CHECK(cudaStreamSynchronize(stream));
    const auto end = std::chrono::steady_clock::now();
    nvtxRangePop();

    CHECK(cudaStreamDestroy(stream));
    const double ns = std::chrono::duration<double, std::nano>(end - start).count();
    std::printf("launches=%lld ns_per_launch=%.1f\n", n, ns / double(n));
    return 0;
}

const char* kUsage =
    "usage: spanscope-gpu-workload --json FILE\n"
    "       spanscope-gpu-workload --overhead N\n"
    "\n"
    "  --json FILE     run the workload (3 streams: kernels, copies, memsets, a graph, NVTX\n"
    "                  ranges) and write what it launched and its event-measured GPU times\n"
    "  --overhead N    launch N empty kernels back to back, print launches=N ns_per_launch=X\n"
    "\n"
    "The CUDA program of scripts/gpu-check.sh (docs/gpu-check.md).\n";

} // namespace

int main(int argc, char** argv)
{
    std::string json;
    long long overhead = -1;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--json" && i + 1 < argc) {
            json = argv[++i];
        } else if (arg == "--overhead" && i + 1 < argc) {
            char* end = nullptr;
            overhead = std::strtoll(argv[++i], &end, 10);
            if (*end != '\0' || overhead <= 0) {
                std::fprintf(stderr, "spanscope-gpu-workload: --overhead takes a positive count, not '%s'\n%s",
                             argv[i], kUsage);
                return 2;
            }
        } else if (arg == "-h" || arg == "--help") {
            std::printf("%s", kUsage);
            return 0;
        } else {
            std::fprintf(stderr, "spanscope-gpu-workload: unexpected argument '%s'\n%s", arg.c_str(), kUsage);
            return 2;
        }
    }
    if (json.empty() == (overhead < 0)) {
        std::fprintf(stderr, "spanscope-gpu-workload: give exactly one of --json and --overhead\n%s", kUsage);
        return 2;
    }
    return overhead > 0 ? runOverhead(overhead) : runWorkload(json);
}
