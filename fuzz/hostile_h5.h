#pragma once
// Turns fuzz input into a well-formed HDF5 file laid out as the readers expect, with hostile
// contents: libhdf5 is not hardened against damaged structures (the viewer's forked probe
// guards against those), so these targets aim at spanscope's logic above it. Every dataset
// and attribute a reader looks up may be missing, of another type or length, or hold any
// value; most are plausible so the reader gets deep.
#include "fuzz_input.h"

#include <string>

namespace spanscope::fuzz {

// scope-profiler's part: schema and layout attributes, /metadata, then per-rank groups
// (schema 1) or the region table, index and event columns (schemas 2 and 3, columnar or
// aggregate) with summary statistics.
void writeHostileRegionFile(FuzzInput& in, const std::string& path);

// A spanscope capture: a small plausible columnar region table, then hostile /metadata,
// /thread_table, /task_table and /spanscope/nvtx, gpu, counters and alloc tables.
void writeHostileCaptureFile(FuzzInput& in, const std::string& path);

} // namespace spanscope::fuzz
