#pragma once
// Run metadata: the open key/value set a region file stores as attributes of /metadata.

#include <cstdint>
#include <string>
#include <vector>

namespace spanscope::model {

struct MetadataValue
{
    enum class Kind { String, Integer, Float, Bool, StringList, Other };
    Kind kind = Kind::String;
    std::string text;               // String; for Other a description of the stored type
    int64_t integer = 0;            // Integer
    double number = 0.0;            // Float
    bool flag = false;              // Bool
    std::vector<std::string> list;  // StringList (and numeric arrays, printed)

    // The value as a person reads it ("true", "3", "a, b").
    std::string display() const;
};

struct MetadataEntry
{
    std::string key;
    MetadataValue value;
};

using Metadata = std::vector<MetadataEntry>;

// The entry with that key, or nullptr.
const MetadataValue* findMetadata(const Metadata& metadata, const std::string& key);

} // namespace spanscope::model
