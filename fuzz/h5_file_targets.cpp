// The HDF5 targets: a file built from the input (hostile_h5.h) read as the viewer reads it.
// Sanitized builds read in-process (no forked probe), so a finding is in spanscope's code.
#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "hostile_h5.h"
#include "model/io/capture_writer.h"
#include "model/io/region_file_reader.h"

#include <cstdio>
#include <hdf5.h>

namespace spanscope::fuzz {

namespace {

const std::string& inputPath()
{
    static const std::string path = [] {
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); // the builder's refusals are expected
        return scratchPath("input.h5");
    }();
    return path;
}

} // namespace

int regionFile(const std::uint8_t* data, std::size_t size)
{
    FuzzInput in(data, size);
    writeHostileRegionFile(in, inputPath());
    auto read = model::io::readRegionFile(inputPath());
    if (read)
        analyze(read.value());
    return 0;
}

int captureFile(const std::uint8_t* data, std::size_t size)
{
    FuzzInput in(data, size);
    writeHostileCaptureFile(in, inputPath());
    auto read = model::io::readRegionFile(inputPath());
    if (!read)
        return 0;
    // What was accepted is saved as the viewer saves it, and must read back.
    const std::string saved = scratchPath("saved.h5");
    const auto written = model::io::writeCaptureFile(*read.value(), saved);
    if (!written)
        std::fprintf(stderr, "%s\n", written.error().toString().c_str());
    FUZZ_CHECK(written.ok());
    auto again = model::io::readRegionFile(saved);
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(again.value()->rows.size() == read.value()->rows.size());
    analyze(read.value());
    return 0;
}

} // namespace spanscope::fuzz
