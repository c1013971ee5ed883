#pragma once
// Interned strings: every distinct string is stored once and referred to by a NameId.

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace spanscope::model {

struct NameId
{
    uint32_t value = 0;
    friend bool operator==(NameId, NameId) = default;
    friend auto operator<=>(NameId, NameId) = default;
};

// Append-only. Ids are dense, starting at 0; id 0 is always the empty string.
// Not thread-safe for writes; immutable once the owning Capture is published.
class StringTable
{
public:
    StringTable();

    NameId intern(std::string_view text);
    // Room for `count` more strings without rehashing (a live snapshot interns every region
    // name at once: a million of them, with a name per range).
    void reserve(size_t count) { m_index.reserve(m_index.size() + count); }
    const std::string& text(NameId id) const { return m_strings[id.value]; }
    size_t size() const { return m_strings.size(); }

private:
    std::deque<std::string> m_strings; // deque: references stay valid while interning
    std::unordered_map<std::string_view, uint32_t> m_index;
};

} // namespace spanscope::model
