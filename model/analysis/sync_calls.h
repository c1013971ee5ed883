#pragma once
// The host's waits on the GPU, for the critical path: every CPU call that synchronizes
// (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, cudaStreamWaitEvent
// and their driver and HIP forms), with what it waited on where the capture says: the
// synchronization record the profiler wrote for it (Kineto's cuda_sync events, CUPTI's
// synchronization activity) gives its device and stream, and Kineto's `wait_on_stream` the
// stream whose work a stream wait or event sync waited for. Any thread.

#include "model/capture.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace spanscope::model::analysis {

enum class SyncKind : uint8_t {
    Device,     // every stream of the device
    Stream,     // one stream
    Event,      // the work recorded into an event (on one stream)
    StreamWait, // not the host: later work on a stream waits for an event of another
};

// The kind of synchronization a CPU call named `name` is, or nullopt for any other call.
std::optional<SyncKind> syncKindOfCall(std::string_view name);
// The kind of a synchronization record ("Stream Sync", "Context Synchronize", ...).
std::optional<SyncKind> syncKindOfRecord(std::string_view name);

struct SyncCall
{
    uint32_t call = 0; // the CPU call's event
    int32_t rank = 0;
    SyncKind kind = SyncKind::Device;
    int32_t device = -1;       // -1: not known (every device of the rank)
    int64_t stream = -1;       // the stream synchronized, or that waits; -1 = not known
    int64_t waitOnStream = -1; // the stream waited for (Event, StreamWait); -1 = not known
};

// Ascending by call. O(C log R) for C CPU calls and R records.
std::vector<SyncCall> syncCalls(const Capture& capture);

} // namespace spanscope::model::analysis
