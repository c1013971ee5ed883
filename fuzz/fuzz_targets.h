#pragma once
// spanscope's fuzz targets. Each takes one input and returns 0; a bug shows as a crash, a
// sanitizer report or a failed FUZZ_CHECK (abort). libFuzzer drives them in a clang build
// (SPANSCOPE_FUZZ=ON, scripts/fuzz.sh); fuzz_replay runs every saved input through them in
// every build (a CTest), so seeds and past crashes stay checked.
#include <cstddef>
#include <cstdint>

namespace spanscope::fuzz {

// Collector wire streams: protocol decoder, NVTX assembler, process merge, analysis.
int wireStream(const std::uint8_t* data, std::size_t size);
// Chrome trace / Kineto JSON (or gzip) bytes: the importer, then analysis.
int chromeTrace(const std::uint8_t* data, std::size_t size);
// Structure-aware: a well-formed HDF5 file, shaped like scope-profiler's (every schema),
// with hostile contents (lengths, offsets, types, names, tags, summary statistics).
int regionFile(const std::uint8_t* data, std::size_t size);
// Structure-aware: a spanscope capture file (a small region table plus hostile thread,
// task and NVTX tables and metadata); what reads must save and read back.
int captureFile(const std::uint8_t* data, std::size_t size);

struct Target
{
    const char* name; // also the folder of its inputs: tests/data/fuzz/<name>
    int (*run)(const std::uint8_t*, std::size_t);
};
inline constexpr Target kTargets[] = {{"wire_stream", &wireStream},
                                      {"chrome_trace", &chromeTrace},
                                      {"region_file", &regionFile},
                                      {"capture_file", &captureFile}};

} // namespace spanscope::fuzz

// A property every input must keep; on failure prints where and aborts (a finding).
#define FUZZ_CHECK(condition)                                                                  \
    ((condition) ? (void)0 : ::spanscope::fuzz::checkFailed(#condition, __FILE__, __LINE__))

namespace spanscope::fuzz {
[[noreturn]] void checkFailed(const char* condition, const char* file, int line);
} // namespace spanscope::fuzz
