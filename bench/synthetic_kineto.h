#pragma once
// Writes a PyTorch-profiler-shaped trace (Chrome JSON as Kineto writes it) for the import
// benchmark: one CPU thread of ProfilerStep annotations holding aten ops, each op a
// cudaLaunchKernel with its kernel on stream 7 (full Kineto kernel args, correlation ids,
// ac2g flow events), every tenth a cudaMemcpyAsync with its copy, and "[memory]" events.
// Deterministic: the same arguments give the same bytes.

#include <cstdint>
#include <string>

namespace spanscope::bench {

struct SyntheticKineto
{
    uint64_t jsonEvents = 0; // trace events written (complete, flow and instant events)
    uint64_t bytes = 0;      // uncompressed JSON
};

// About `jsonEvents` events into `path` (gzip-compressed when it ends in .gz).
SyntheticKineto writeSyntheticKineto(const std::string& path, uint64_t jsonEvents);

} // namespace spanscope::bench
