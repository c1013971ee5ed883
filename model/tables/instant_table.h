#pragma once
// Instant events (a point in time on a track: Chrome "i"/"I" events, markers a source
// did not tie to a range). Columnar, ordered by (track, time) so a track's instants in a
// time window are two binary searches away. Immutable once finish()ed; any thread.

#include "../column.h"
#include "../string_table.h"
#include "../track.h"
#include "args_store.h"

#include <cstdint>
#include <utility>

namespace spanscope::model {

class InstantTable
{
public:
    void add(int64_t timeNs, TrackId track, NameId name, ArgsRef args = {});
    void finish(); // orders rows by (track, time), stable

    size_t size() const { return m_time.size(); }
    bool empty() const { return m_time.empty(); }
    int64_t time(size_t i) const { return m_time[i]; }
    TrackId track(size_t i) const { return TrackId{m_track[i]}; }
    NameId name(size_t i) const { return NameId{m_name[i]}; }
    ArgsRef args(size_t i) const { return ArgsRef{m_args[i]}; }

    // Rows of `track` with time in [t0, t1). O(log n).
    std::pair<size_t, size_t> range(TrackId track, int64_t t0, int64_t t1) const;

    size_t residentBytes() const;

private:
    Column<int64_t> m_time;
    Column<uint32_t> m_track;
    Column<uint32_t> m_name;
    Column<uint64_t> m_args;
};

} // namespace spanscope::model
