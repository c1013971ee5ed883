#pragma once
// Lays a capture's rows out in several spans each, interleaved with other rows' spans and
// with events between them that no row holds, as columns that grow by appending hold them
// (model/row_events.h). The events between are copies of the call just before them: a
// consumer that reads the columns instead of its rows' calls counts calls twice.

#include "model/event_layout.h"

#include <algorithm>
#include <memory>

namespace spanscope::testing {

// `piece` calls per span; the rows' spans interleave (a different row first each round),
// and event 0 and the event after each span are held by no row.
inline std::shared_ptr<model::Capture> spreadRows(const model::Capture& original, uint64_t piece = 3)
{
    using namespace model;
    auto c = std::make_shared<Capture>(original);
    const size_t rows = c->rows.size();
    std::vector<uint32_t> newIndexOf(original.events.size(), kDroppedEvent);
    std::vector<std::vector<EventSpan>> spansOf(rows);
    std::vector<uint64_t> holes; // each a copy of the event before it
    uint64_t next = 1;           // event 0 is a copy of the first call placed
    bool placed = true;
    for (uint64_t round = 0; placed; ++round) {
        placed = false;
        for (size_t k = 0; k < rows; ++k) {
            const size_t r = (k + round) % rows; // a different row first each round
            const RowEvents calls = original.rowEvents(uint32_t(r));
            const uint64_t from = round * piece;
            if (from >= calls.size())
                continue;
            placed = true;
            const uint64_t to = std::min<uint64_t>(calls.size(), from + piece);
            spansOf[r].push_back({next, next + (to - from)});
            for (uint64_t p = from; p < to; ++p)
                newIndexOf[calls[p]] = uint32_t(next++);
            holes.push_back(next++);
        }
    }
    moveEvents(*c, newIndexOf, next);
    c->rowSpans.clear();
    for (size_t r = 0; r < rows; ++r) {
        RegionRow& row = c->rows[r];
        row.firstSpan = uint32_t(c->rowSpans.size());
        row.spanCount = uint32_t(spansOf[r].size());
        row.firstEvent = spansOf[r].empty() ? 0 : spansOf[r].front().begin;
        c->rowSpans.insert(c->rowSpans.end(), spansOf[r].begin(), spansOf[r].end());
    }
    // Fill the holes with copies of the calls before them (event 0 with the first call's).
    holes.push_back(0);
    auto copyInto = [&](auto& column) {
        if (column.empty())
            return;
        auto* values = model::writableData(column);
        for (const uint64_t hole : holes)
            values[hole] = values[hole == 0 ? 1 : hole - 1];
    };
    EventColumns& e = c->events;
    if (next > 1) {
        copyInto(e.start);
        copyInto(e.end);
        for (const auto& optional : kOptionalEventColumns)
            copyInto(e.*optional.member);
        copyInto(e.track);
        copyInto(e.args);
        copyInto(e.depth);
        copyInto(c->nvtx.callDomains);
        copyInto(c->nvtx.callCategories);
    }
    return c;
}

} // namespace spanscope::testing
