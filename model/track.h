#pragma once
// Tracks: the one place every event, instant, counter sample and allocation belongs to.
// A track is a CPU thread, an async task, an NVTX async domain lane, a GPU stream, a GPU
// device (device-wide work such as context syncs and device-clock windows) or a counter;
// it sits under a process (rank) and, on the GPU, under a device. Nesting, exclusive
// time, span trees and the timeline index all work per track.

#include "string_table.h"

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

namespace spanscope::model {

struct Capture;

struct TrackId
{
    static constexpr uint32_t kNone = UINT32_MAX;
    uint32_t value = kNone;

    bool valid() const { return value != kNone; }
    friend bool operator==(TrackId, TrackId) = default;
    friend auto operator<=>(TrackId, TrackId) = default;
};

// In the order tracks of one process are shown.
enum class TrackKind : uint8_t {
    Process,    // calls of a rank that recorded no thread
    Thread,     // a CPU thread
    Task,       // an async task (asyncio task, greenlet, Chrome async id)
    NvtxDomain, // a lane of NVTX start/end ranges of one domain
    GpuDevice,  // device-wide work of one GPU (context syncs, device-clock windows)
    GpuStream,  // kernels, copies and memsets of one stream, with GPU annotations
    Counter,    // a series of (time, value) samples
};

const char* trackKindName(TrackKind kind); // "process", "thread", ..., "counter"
bool isGpuTrack(TrackKind kind);

struct Track
{
    TrackKind kind = TrackKind::Process;
    int32_t rank = 0;     // the process (MPI rank, or one process of a job)
    int64_t thread = -1;  // Thread: row in the rank's thread_table; tasks: their thread if known
    int64_t task = -1;    // Task, NvtxDomain: row in the rank's task_table
    int32_t device = -1;  // GPU tracks, and counters of one device; -1 = none (host)
    int64_t stream = -1;  // GpuStream: the stream id as the source numbers it
    NameId name;          // the source's own name for it (stream or counter name), may be empty
    int64_t sortKey = 0;  // order among tracks of one rank and kind (a source's sort index)
    // >0: a lane inferred beside the track with the same fields and 0 here, holding calls
    // that overlapped others there without nesting (stats/overlap_lanes.h).
    uint16_t inferredLane = 0;
};

// Adds a track and returns its id. The caller keeps (rank, kind, thread/task/device/
// stream, name) unique; nothing checks it.
TrackId addTrack(Capture& capture, Track track);

// The one title of a track, as every view shows it: "rank 0", "rank 0 · thread 3 worker",
// "rank 0 · thread 3 worker · overlap lane 2" (an inferred lane),
// "rank 0 · task 2 Task-1", "rank 0 · async nccl", "rank 0 · GPU 1 · stream 7 compute",
// "rank 0 · GPU 1", "rank 0 · GPU 1 · allocated".
std::string trackTitle(const Capture& capture, TrackId track);

// Track ids in display order: rank, kind (as TrackKind lists them), device, stream,
// sortKey, thread/task, id. O(T log T).
std::vector<TrackId> tracksInDisplayOrder(const Capture& capture);

// The Thread track of (rank, thread), added when the capture has none yet. Call after
// assignTracks() (which leaves captures that already have tracks alone). O(tracks).
TrackId threadTrack(Capture& capture, int32_t rank, int64_t thread);
// The Counter track named `name` of (rank, device; -1 = host), added when missing. O(tracks).
TrackId counterTrack(Capture& capture, int32_t rank, int32_t device, const std::string& name);

// Gives every event of a capture that has none its track, from the source's own columns:
// an event with a task id goes on that task's track (NvtxDomain for tasks of kind
// "nvtx-async"), one with a thread id on that thread's, the rest on their rank's Process
// track. Fills events.track only when the events carry thread or task ids; otherwise a
// row's calls are on its rank's Process track (see Capture::trackOfEvent). Captures that
// already have tracks (importers build their own) are left alone, and so are the calls of
// GPU regions (RegionKind other than Cpu): their source gives them GPU tracks after this.
// O(N) for N calls.
void assignTracks(Capture& capture);

} // namespace spanscope::model
