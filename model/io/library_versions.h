#pragma once
// The versions of the libraries that read and write spanscope's files, as linked into this
// program (HDF5's is asked at run time), for --version texts and Help > About.

#include <string>
#include <utility>
#include <vector>

namespace spanscope::io {

// (library, version) pairs, e.g. ("HDF5", "1.10.8"), in a stable order.
std::vector<std::pair<std::string, std::string>> fileLibraryVersions();

} // namespace spanscope::io
