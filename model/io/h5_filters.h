#pragma once
// The compression filters scope-profiler files use beyond what libhdf5 has built in:
// LZF (id 32000, as h5py writes it) and Zstandard (id 32015, as hdf5plugin writes it).
// Debian ships neither as a working plugin, so they are registered in-process.

namespace spanscope::model::io {

constexpr int kLzfFilterId = 32000;
constexpr int kZstdFilterId = 32015;

// Registers both filters with HDF5 once per process. Thread-safe, idempotent.
// Returns false if HDF5 refused a registration.
bool registerCompressionFilters();

} // namespace spanscope::model::io
