#pragma once
// Reads the datasets of one group of spanscope's own tables, keeping the first problem
// (later reads are skipped): a damaged group becomes one warning, not a failed load.
// Internal to model/io.

#include "h5_file.h"

#include <string>
#include <type_traits>
#include <vector>

namespace spanscope::model::io {

struct GroupReader
{
    const H5File& file;
    std::string group;
    std::string problem;

    template <typename Read> auto column(const char* name, Read read)
    {
        std::decay_t<decltype(read(std::string()).value())> values;
        if (!problem.empty())
            return values;
        auto result = read(group + "/" + name);
        if (result)
            values = std::move(result.value());
        else
            problem = result.error().toString();
        return values;
    }
    std::vector<int64_t> ints(const char* name)
    {
        return column(name, [&](const std::string& path) { return file.readInt64Column(path); });
    }
    std::vector<uint64_t> counts(const char* name)
    {
        return column(name, [&](const std::string& path) { return file.readUint64Column(path); });
    }
    std::vector<double> doubles(const char* name)
    {
        return column(name, [&](const std::string& path) { return file.readDoubleColumn(path); });
    }
    std::vector<std::string> texts(const char* name)
    {
        return column(name, [&](const std::string& path) { return file.readStrings(path); });
    }
};

} // namespace spanscope::model::io
