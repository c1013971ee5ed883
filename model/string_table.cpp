#include "string_table.h"

namespace spanscope::model {

StringTable::StringTable()
{
    intern({});
}

NameId StringTable::intern(std::string_view text)
{
    if (auto it = m_index.find(text); it != m_index.end())
        return NameId{it->second};
    const auto id = static_cast<uint32_t>(m_strings.size());
    m_strings.emplace_back(text);
    m_index.emplace(m_strings.back(), id);
    return NameId{id};
}

} // namespace spanscope::model
