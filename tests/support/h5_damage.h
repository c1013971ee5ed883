#pragma once
// Damages a saved capture for tests of the readers' warnings.

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace spanscope::testing {

// Replaces dataset `dataset` of the file at `path` by int64 `values`.
inline void rewriteDataset(const std::string& path, const std::string& dataset, const std::vector<int64_t>& values)
{
    hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Ldelete(file, dataset.c_str(), H5P_DEFAULT);
    const hsize_t n = values.size();
    hid_t space = H5Screate_simple(1, &n, nullptr);
    hid_t d = H5Dcreate2(file, dataset.c_str(), H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Dclose(d);
    H5Sclose(space);
    H5Fclose(file);
}

} // namespace spanscope::testing
