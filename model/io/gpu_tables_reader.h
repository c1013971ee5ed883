#pragma once
// Reads spanscope's GPU tables (/spanscope/gpu, docs/capture-format.md) back: region kinds,
// GPU tracks and the events on them, kernel shapes and copy sizes, flows and devices.
// Internal to model/io.

#include "../capture.h"
#include "h5_file.h"

namespace spanscope::model::io {

// When the file has the group: gives the capture its region kinds and tracks (CPU calls by
// assignTracks, GPU work by the table) and the GPU side tables. A damaged group becomes a
// warning: the GPU work then stays on its process's track, without kinds or flows. Call
// after the events, lane and NVTX tables, before readAllocationTables.
void readGpuTables(const H5File& file, Capture& capture);

// The GpuDevice track (stream -1, no lane of its own) of `device` in `rank`, added when
// missing. O(tracks).
TrackId gpuDeviceTrack(Capture& capture, int32_t rank, int32_t device);

} // namespace spanscope::model::io
