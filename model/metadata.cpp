#include "metadata.h"

#include <cstdio>

namespace spanscope::model {

std::string MetadataValue::display() const
{
    switch (kind) {
    case Kind::String:
    case Kind::Other: return text;
    case Kind::Integer: return std::to_string(integer);
    case Kind::Float: {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%.17g", number);
        return buffer;
    }
    case Kind::Bool: return flag ? "true" : "false";
    case Kind::StringList: {
        std::string joined;
        for (size_t i = 0; i < list.size(); ++i) {
            if (i)
                joined += ", ";
            joined += list[i];
        }
        return joined;
    }
    }
    return text;
}

const MetadataValue* findMetadata(const Metadata& metadata, const std::string& key)
{
    for (const auto& entry : metadata)
        if (entry.key == key)
            return &entry.value;
    return nullptr;
}

} // namespace spanscope::model
