#include "library_versions.h"

#include <hdf5.h>
#include <libdeflate.h>
#include <simdjson.h>
#include <zlib.h>
#include <zstd.h>

#define SPANSCOPE_STRINGIFY_TEXT(x) #x
#define SPANSCOPE_STRINGIFY(x) SPANSCOPE_STRINGIFY_TEXT(x)

namespace spanscope::io {

std::vector<std::pair<std::string, std::string>> fileLibraryVersions()
{
    unsigned major = 0, minor = 0, release = 0;
    std::string hdf5 = "unknown";
    if (H5get_libversion(&major, &minor, &release) >= 0)
        hdf5 = std::to_string(major) + '.' + std::to_string(minor) + '.' + std::to_string(release);
    return {
        {"HDF5", hdf5},
        {"Zstandard", ZSTD_versionString()},
        {"libdeflate", LIBDEFLATE_VERSION_STRING},
        {"zlib", zlibVersion()},
        {"simdjson", SPANSCOPE_STRINGIFY(SIMDJSON_VERSION)}, // an unquoted 3.0.1
    };
}

} // namespace spanscope::io
