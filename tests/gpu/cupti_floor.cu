// spanscope-cupti-floor: what CUPTI's activity API costs per kernel launch by itself, with
// no spanscope in the process — the floor under the collector's figure in
// scripts/gpu-check.sh's overhead rounds (docs/gpu-check.md, "What it found on an H200").
//
//   spanscope-cupti-floor N KINDS
//
// Launches N empty kernels back to back on one stream (the loop of
// `spanscope-gpu-workload --overhead`) with the CUPTI activity kinds KINDS enabled, and
// prints `kinds=KINDS ns_per_launch=X records=R`. KINDS: k concurrent kernels, r runtime
// API, d driver API, s synchronization, m memcpy and memset, o overhead, t a
// CLOCK_MONOTONIC timestamp callback (as the collector registers), "-" CUPTI not used.
// Records are counted and discarded. Links libcupti (a test program; the collector never
// does).
#include <cupti.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace {

__global__ void emptyKernel() {}

constexpr size_t kBufferBytes = 8u << 20;
long long g_records = 0; // CUPTI's completion callback runs on one thread at a time

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords)
{
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *maxRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t validSize)
{
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS)
        ++g_records;
    std::free(buffer);
}

uint64_t CUPTIAPI monotonicNs()
{
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return uint64_t(t.tv_sec) * 1'000'000'000u + uint64_t(t.tv_nsec);
}

bool enable(CUpti_ActivityKind kind)
{
    const CUptiResult r = cuptiActivityEnable(kind);
    if (r != CUPTI_SUCCESS) {
        const char* text = nullptr;
        cuptiGetResultString(r, &text);
        std::fprintf(stderr, "spanscope-cupti-floor: cuptiActivityEnable(%d): %s\n", int(kind), text ? text : "?");
    }
    return r == CUPTI_SUCCESS;
}

} // namespace

int main(int argc, char** argv)
{
    const long long n = argc > 1 ? std::atoll(argv[1]) : 0;
    const char* kinds = argc > 2 ? argv[2] : nullptr;
    if (n <= 0 || !kinds || !*kinds || std::strspn(kinds, "krdsmot-") != std::strlen(kinds)) {
        std::fprintf(stderr, "usage: spanscope-cupti-floor N KINDS (KINDS of k r d s m o t, or -)\n");
        return 2;
    }
    if (std::strcmp(kinds, "-") != 0) {
        if (std::strchr(kinds, 't'))
            cuptiActivityRegisterTimestampCallback(monotonicNs);
        cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted);
        bool ok = true;
        for (const char* k = kinds; *k; ++k) {
            switch (*k) {
            case 'k': ok &= enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); break;
            case 'r': ok &= enable(CUPTI_ACTIVITY_KIND_RUNTIME); break;
            case 'd': ok &= enable(CUPTI_ACTIVITY_KIND_DRIVER); break;
            case 's': ok &= enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION); break;
            case 'm': ok &= enable(CUPTI_ACTIVITY_KIND_MEMCPY) && enable(CUPTI_ACTIVITY_KIND_MEMSET); break;
            case 'o': ok &= enable(CUPTI_ACTIVITY_KIND_OVERHEAD); break;
            default: break;
            }
        }
        if (!ok)
            return 3;
    }
    cudaStream_t stream;
    if (cudaFree(nullptr) != cudaSuccess || cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        std::fprintf(stderr, "spanscope-cupti-floor: no CUDA device\n");
        return 3;
    }
    for (int i = 0; i < 1000; ++i) // warm-up, as the workload's loop
        emptyKernel<<<1, 1, 0, stream>>>();
    cudaStreamSynchronize(stream);
    const auto start = std::chrono::steady_clock::now();
    for (long long i = 0; i < n; ++i)
        emptyKernel<<<1, 1, 0, stream>>>();
    const cudaError_t launched = cudaGetLastError();
    cudaStreamSynchronize(stream);
    const auto end = std::chrono::steady_clock::now();
    if (launched != cudaSuccess) {
        std::fprintf(stderr, "spanscope-cupti-floor: launch failed: %s\n", cudaGetErrorString(launched));
        return 3;
    }
    if (std::strcmp(kinds, "-") != 0)
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    const double ns = std::chrono::duration<double, std::nano>(end - start).count();
    std::printf("kinds=%s ns_per_launch=%.1f records=%lld\n", kinds, ns / double(n), g_records);
    return 0;
}
