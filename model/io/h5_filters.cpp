#include "h5_filters.h"

#include <hdf5.h>
#include <lzf.h>
#include <zstd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace spanscope::model::io {

namespace {

// HDF5 filter contract: on success replace *buffer (allocated with malloc) by the output,
// update *bufferSize to its allocation size and return the number of valid bytes;
// return 0 on failure (for an optional filter while writing, HDF5 then stores the chunk
// unfiltered).

size_t lzfFilter(unsigned flags, size_t cdCount, const unsigned cdValues[], size_t nbytes,
                 size_t* bufferSize, void** buffer)
{
    if (flags & H5Z_FLAG_REVERSE) {
        // h5py stores the uncompressed chunk size in cd_values[2]; grow on E2BIG if not.
        size_t outSize = (cdCount >= 3 && cdValues[2] != 0) ? cdValues[2] : *bufferSize;
        for (int attempt = 0; attempt < 8; ++attempt) {
            void* out = std::malloc(outSize);
            if (!out)
                return 0;
            const unsigned produced = lzf_decompress(*buffer, static_cast<unsigned>(nbytes), out,
                                                     static_cast<unsigned>(outSize));
            if (produced != 0) {
                std::free(*buffer);
                *buffer = out;
                *bufferSize = outSize;
                return produced;
            }
            std::free(out);
            if (errno != E2BIG)
                return 0;
            outSize *= 2;
        }
        return 0;
    }
    if (nbytes < 2)
        return 0;
    // Compress only if it saves at least one byte; otherwise fail and HDF5 keeps it raw.
    const size_t outSize = nbytes - 1;
    void* out = std::malloc(outSize);
    if (!out)
        return 0;
    const unsigned produced = lzf_compress(*buffer, static_cast<unsigned>(nbytes), out,
                                           static_cast<unsigned>(outSize));
    if (produced == 0) {
        std::free(out);
        return 0;
    }
    std::free(*buffer);
    *buffer = out;
    *bufferSize = outSize;
    return produced;
}

// Writers of LZF data record the chunk size in cd_values so readers can size the output.
herr_t lzfSetLocal(hid_t dcpl, hid_t type, hid_t)
{
    unsigned flags = 0;
    size_t count = 8;
    unsigned values[8] = {};
    if (H5Pget_filter_by_id2(dcpl, kLzfFilterId, &flags, &count, values, 0, nullptr, nullptr) < 0)
        return -1;
    hsize_t chunk[32];
    const int rank = H5Pget_chunk(dcpl, 32, chunk);
    if (rank < 0)
        return -1;
    size_t bytes = H5Tget_size(type);
    for (int i = 0; i < rank; ++i)
        bytes *= chunk[i];
    unsigned out[3] = {4, 1, static_cast<unsigned>(bytes)}; // filter rev, lzf rev, chunk bytes
    return H5Pmodify_filter(dcpl, kLzfFilterId, flags, 3, out);
}

size_t zstdFilter(unsigned flags, size_t cdCount, const unsigned cdValues[], size_t nbytes,
                  size_t* bufferSize, void** buffer)
{
    if (flags & H5Z_FLAG_REVERSE) {
        const unsigned long long content = ZSTD_getFrameContentSize(*buffer, nbytes);
        if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN)
            return 0;
        void* out = std::malloc(content ? content : 1);
        if (!out)
            return 0;
        const size_t produced = ZSTD_decompress(out, content, *buffer, nbytes);
        if (ZSTD_isError(produced)) {
            std::free(out);
            return 0;
        }
        std::free(*buffer);
        *buffer = out;
        *bufferSize = content ? content : 1;
        return produced;
    }
    const int level = cdCount >= 1 ? static_cast<int>(cdValues[0]) : 3;
    const size_t bound = ZSTD_compressBound(nbytes);
    void* out = std::malloc(bound);
    if (!out)
        return 0;
    const size_t produced = ZSTD_compress(out, bound, *buffer, nbytes, level);
    if (ZSTD_isError(produced)) {
        std::free(out);
        return 0;
    }
    std::free(*buffer);
    *buffer = out;
    *bufferSize = bound;
    return produced;
}

bool registerAll()
{
    static const H5Z_class2_t lzf = {H5Z_CLASS_T_VERS, static_cast<H5Z_filter_t>(kLzfFilterId), 1, 1,
                                     "lzf",            nullptr, lzfSetLocal, lzfFilter};
    static const H5Z_class2_t zstd = {H5Z_CLASS_T_VERS, static_cast<H5Z_filter_t>(kZstdFilterId),
                                      1, 1, "zstd", nullptr, nullptr, zstdFilter};
    return H5Zregister(&lzf) >= 0 && H5Zregister(&zstd) >= 0;
}

} // namespace

bool registerCompressionFilters()
{
    static std::once_flag once;
    static bool registered = false;
    std::call_once(once, [] { registered = registerAll(); });
    return registered;
}

} // namespace spanscope::model::io
