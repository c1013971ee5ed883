// The CUDA half of the collector (cuda_injection.cpp): CUPTI activity recording, started by
// the CUDA driver through InitializeInjection (CUDA_INJECTION64_PATH).
#pragma once

#include <string_view>

namespace spanscope::collector::cuda {

// Starts the collector and CUPTI recording once per process. False when CUDA activity is
// not recorded (the reason went into the capture's metadata) or the collector is off.
bool initializeInjection() noexcept;

// nvtxNameCudaStream / nvtxNameCuStream: names the CUPTI stream of `stream` (a cudaStream_t
// or CUstream) for the viewer. A no-op while CUDA activity is not recorded.
void nameStream(void* stream, std::string_view name) noexcept;

} // namespace spanscope::collector::cuda
