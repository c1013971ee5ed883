#pragma once
// Interned strings: every distinct string is stored once and referred to by a NameId.

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace spanscope::model {

struct NameId
{
    uint32_t value = 0;
    friend bool operator==(NameId, NameId) = default;
    friend auto operator<=>(NameId, NameId) = default;
};

// Append-only. Ids are dense, starting at 0; id 0 is always the empty string.
// Not thread-safe for writes; immutable once the owning Capture is published. Copies are
// independent (the index holds ids, not views of the strings). A table moved from may only
// be assigned to or destroyed (a live snapshot moves its region names into the stream's
// memo and never touches them again).
class StringTable
{
public:
    StringTable();

    NameId intern(std::string_view text);
    // Room for `count` more strings without growing the index (a live snapshot interns
    // every region name at once: a million of them, with a name per range).
    void reserve(size_t count);
    const std::string& text(NameId id) const { return m_strings[id.value]; }
    size_t size() const { return m_strings.size(); }

private:
    // Open addressing with linear probing, at most half full: a slot holds a string's
    // hash (high 32 bits) and its id + 1 (low 32 bits; 0 = empty), so a probe reads one
    // word and touches a string only when the hashes match. No allocation per string
    // besides its text; a node-based map cost two per string, and a million names made
    // that most of a live snapshot's time.
    void grow(size_t slots);
    std::deque<std::string> m_strings; // deque: references stay valid while interning
    std::vector<uint64_t> m_slots;     // size a power of two
};

} // namespace spanscope::model
