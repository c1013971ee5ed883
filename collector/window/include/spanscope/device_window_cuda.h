// spanscope device windows over CUDA events: <spanscope/device_window.h> with the CUDA runtime
// as its event backend. Link the CUDA runtime (CMake: CUDA::cudart).
//
//   spanscope::device_window::CudaDeviceWindows windows; // the current device's windows
//   windows.placeAnchor(stream);                         // optional: anchor at a quiet moment
//
// Resolution: cudaEventElapsedTime reports milliseconds as a float, with a resolution of around
// 0.5 µs (CUDA documentation), so a duration is good to about 0.5 µs whatever its length; the
// float also rounds a long span (see the anchor's error in device_window.h).
// What a window measures: everything the device did on the stream between the two events,
// including waits for other streams and time shared with them. Error codes (Error::
// backendCode) are cudaError_t values; like every CUDA call, these may also return an error
// left by earlier asynchronous work (a failed kernel), which is how a failure usually surfaces
// in DeviceDuration::wait().
#pragma once

#include "device_window.h"

#include <cstdint>
#include <cuda_runtime_api.h>

namespace spanscope::device_window {

// The event backend of device_window.h over the CUDA runtime. Any thread (the runtime is
// thread-safe).
class CudaEventBackend
{
public:
    using Event = cudaEvent_t;
    using Stream = cudaStream_t;
    static constexpr int kNotReady = cudaErrorNotReady;

    // The device whose streams the windows use: `device`, or the calling thread's current
    // device when negative.
    explicit CudaEventBackend(int device = -1) : m_device(device)
    {
        if (m_device < 0 && cudaGetDevice(&m_device) != cudaSuccess)
            m_device = -1;
    }

    // An event on the backend's device, made current for the call if another one is: an event
    // can only be recorded on streams of its own device. Timing stays enabled
    // (cudaEventDisableTiming would make cudaEventElapsedTime fail); cudaEventBlockingSync is
    // left out so that the anchor's synchronize returns promptly (the device's schedule flags,
    // cudaSetDeviceFlags, decide whether a waiting thread spins, yields or sleeps).
    int create(Event& event)
    {
        int current = -1;
        const bool switchDevice =
            m_device >= 0 && cudaGetDevice(&current) == cudaSuccess && current != m_device;
        if (switchDevice) {
            if (const cudaError_t code = cudaSetDevice(m_device); code != cudaSuccess)
                return code;
        }
        const cudaError_t code = cudaEventCreateWithFlags(&event, cudaEventDefault);
        if (switchDevice)
            cudaSetDevice(current);
        return code;
    }
    // Errors ignored: at process exit the runtime may already be unloading.
    void destroy(Event event) { cudaEventDestroy(event); }
    int record(Event event, Stream stream) { return cudaEventRecord(event, stream); }
    int query(Event event) { return cudaEventQuery(event); }
    int synchronize(Event event) { return cudaEventSynchronize(event); }
    int elapsedMs(Event start, Event end, double& ms)
    {
        float elapsed = 0; // ms, resolution around 0.5 µs
        const cudaError_t code = cudaEventElapsedTime(&elapsed, start, end);
        ms = elapsed;
        return code;
    }
    int device() { return m_device; }
    // 0 for the legacy default stream, whether named 0 or cudaStreamLegacy.
    std::uint64_t streamId(Stream stream)
    {
        if (stream == cudaStreamLegacy)
            return 0;
        return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(stream));
    }

private:
    int m_device; // -1 = unknown
};

using CudaDeviceWindows = DeviceWindows<CudaEventBackend>;
using CudaDeviceDuration = DeviceDuration<CudaEventBackend>;

} // namespace spanscope::device_window
