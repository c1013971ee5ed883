// The nesting walk carried from one live snapshot to the next (nesting_carry.h): which
// listed tracks go on from the carry, and what each leaves for the next snapshot.
#include "nesting_carry.h"

#include "nesting_walk.h"

#include <algorithm>

namespace spanscope::model {

const TrackCarry* NestingCarry::find(TrackId id, const Track& now) const
{
    for (const TrackCarry& t : tracks) {
        const Track& then = t.fields;
        if (t.track == id)
            return then.kind == now.kind && then.rank == now.rank && then.thread == now.thread && then.task == now.task
                           && then.device == now.device && then.stream == now.stream
                           && then.inferredLane == now.inferredLane
                       ? &t
                       : nullptr;
    }
    return nullptr;
}

uint32_t NestingCarry::movedTo(const NestingOrder& listing, uint32_t event)
{
    const auto it = std::lower_bound(listing.moved.begin(), listing.moved.end(),
                                     std::make_pair(event, uint32_t(0)));
    return it != listing.moved.end() && it->first == event ? it->second : event;
}

bool NestingCarry::resumable(const Capture& c, const TrackCarry& carry,
                             const std::vector<std::pair<uint64_t, uint64_t>>& lists, std::vector<int64_t>& ends) const
{
    const NestingOrder& listing = c.nestingOrder;
    const auto& start = c.events.start;
    const auto& stop = c.events.end;
    ends.clear();
    if (!capture || carry.lists.size() != lists.size() || c.events.size() < capture->events.size()
        || listing.rows.size() != listing.events.size())
        return false;
    uint64_t walked = 0;
    for (size_t k = 0; k < lists.size(); ++k) {
        const auto [begin, end] = lists[k];
        const uint64_t done = carry.lists[k].walked;
        if (end - begin < done)
            return false;
        walked += done;
        // No call starting before the cut came since: the list's next call starts after it
        // (where the cut is the walk's end, every list only grew at its end).
        if (carry.cut != INT64_MAX && begin + done < end && start[listing.events[begin + done]] < carry.cut)
            return false;
    }
    if (walked == 0)
        return false;
    for (const auto& [key, ns] : carry.exclusive)
        if (key >= listing.rowOfKey.size() || listing.rowOfKey[key] >= c.rows.size())
            return false;
    for (size_t i = 0; i < carry.stack.size(); ++i) {
        const TrackCarry::Entry& entry = carry.stack[i];
        if (entry.list >= lists.size() || entry.position >= carry.lists[entry.list].walked)
            return false;
        const uint32_t e = listing.events[lists[entry.list].first + entry.position];
        if (e >= c.events.size() || start[e] != entry.start)
            return false;
        if (!entry.open) { // closed then: where and as it was
            if (e != movedTo(listing, entry.event) || stop[e] != entry.end)
                return false;
            ends.push_back(entry.end);
            continue;
        }
        // Open then, visited again now ending at `to`: it must still enclose every call
        // walked after it, as the whole walk would find; and one starting with the call
        // enclosing it must still end no later (the whole walk orders them by end). Against
        // the calls below it, the visit decides as the whole walk does (one ending before
        // it is a partial overlap: the walk is done again without the lists).
        const int64_t to = stop[e];
        if (to < carry.maxClosedEnd || to < carry.lastStart ||
            (to == carry.lastStart && entry.start != to) ||
            (i > 0 && carry.stack[i - 1].start == entry.start && ends[i - 1] < to))
            return false;
        ends.push_back(to);
    }
    // Each list's last call walked, if not open then (on the stack, checked above), is
    // where it was: no call was put before it since.
    for (size_t k = 0; k < lists.size(); ++k) {
        const TrackCarry::List& list = carry.lists[k];
        if (list.walked == 0)
            continue;
        const bool openOnStack = std::any_of(carry.stack.begin(), carry.stack.end(), [&](const TrackCarry::Entry& entry) {
            return entry.open && entry.list == k && entry.position + 1 == list.walked;
        });
        if (!openOnStack && listing.events[lists[k].first + list.walked - 1] != movedTo(listing, list.lastEvent))
            return false;
    }
    return true;
}

namespace nesting_walk {

void Nester::planCarry(std::vector<std::vector<Run>>& runsOfTrack)
{
    m_listed.clear();
    m_listedOf.clear();
    const NestingOrder& listing = m_capture.nestingOrder;
    if (!readListing() || !(m_options.resumeFrom || m_options.carryOut))
        return;
    m_listedOf.assign(m_capture.tracks.size(), UINT32_MAX);
    // A track's lists come one after the other (usableListing): [i, next).
    for (size_t i = 0, next = 0; i < listing.tracks.size(); i = next) {
        const TrackId id = listing.tracks[i].track;
        next = i;
        bool filled = true;
        for (; next < listing.tracks.size() && listing.tracks[next].track == id; ++next)
            filled = filled && listing.tracks[next].end > listing.tracks[next].begin;
        const Track& track = m_capture.tracks[id.value];
        if (!filled || track.inferredLane != 0 || runsOfTrack[id.value].size() != next - i)
            continue; // not walked from its lists alone
        m_listedOf[id.value] = uint32_t(m_listed.size());
        Listed& listed = m_listed.emplace_back();
        listed.track = id;
        for (size_t k = i; k < next; ++k) {
            const auto& list = listing.tracks[k];
            listed.lists.emplace_back(list.begin, list.end);
            if (list.unsettled > 0) // the carry is taken before its first unsettled call
                listed.cut = std::min(listed.cut,
                                      m_events.start[listing.events[list.end - std::min(list.unsettled, list.end - list.begin)]]);
        }
        const TrackCarry* carry =
            m_options.resumeFrom ? m_options.resumeFrom->find(id, track) : nullptr;
        if (carry && (!m_visitor || m_visitor->canResume(*carry)) &&
            m_options.resumeFrom->resumable(m_capture, *carry, listed.lists, listed.ends)) {
            listed.carry = carry;
            auto& runs = runsOfTrack[id.value];
            for (size_t k = 0; k < runs.size(); ++k)
                runs[k].position = listed.lists[k].first + carry->lists[k].walked;
        }
    }
}

void Nester::walkTrack(TrackWalker& walker, std::vector<Run>& runs, TrackId track,
                       const std::vector<Open>& open, Listed* listed)
{
    walker.keepCheckpoints(listed && m_options.carryOut);
    walker.checkpointAt(listed ? listed->cut : INT64_MAX);
    if (listed && listed->carry)
        walker.resume(runs, track, *listed->carry, listed->ends, listed->lists);
    else
        walker.walk(runs, track, open);
    if (!listed || !m_options.carryOut)
        return;
    listed->made.reset();
    const NestingOrder& listing = m_capture.nestingOrder;
    const TrackWalker::Checkpoint& at = walker.checkpoint();
    // A call starting where the calls still open are shown to end would close them in this
    // walk and not in the next: no carry.
    if (walker.totals.overlaps > 0 || walker.totals.disordered || at.lastStart >= listing.openEnd)
        return;
    const Track& t = m_capture.tracks[track.value];
    TrackCarry made;
    made.fields = t;
    made.track = track;
    made.cut = listed->cut;
    for (size_t k = 0; k < listed->lists.size(); ++k) {
        const uint64_t begin = listed->lists[k].first, walked = at.positions[k] - begin;
        made.lists.push_back({walked, walked > 0 ? uint32_t(listing.events[begin + walked - 1]) : 0u});
    }
    made.lastStart = at.lastStart;
    made.lastStop = at.lastStop;
    made.lastEvent = at.lastEvent;
    const auto& stillOpen = m_capture.nvtx.closedAtEnd; // ascending
    uint64_t openAtOpenEnd = 0;
    for (const Open& o : at.stack) {
        const bool isOpen =
            std::binary_search(stillOpen.begin(), stillOpen.end(), uint64_t(o.event));
        // Calls still open enclose every call after them, closed ones among them.
        if (isOpen && !made.stack.empty() && !made.stack.back().open)
            return;
        const uint32_t list = listed->listOf(o.position);
        made.stack.push_back({list, o.position - listed->lists[list].first, o.event, o.start, o.end, isOpen});
        openAtOpenEnd += isOpen && o.end == listing.openEnd;
    }
    made.maxClosedEnd = at.maxEnd;
    if (at.endsAtOpenEnd > openAtOpenEnd) // some closed call ends there too
        made.maxClosedEnd = std::max(made.maxClosedEnd, listing.openEnd);
    listed->lanes = at.lanes;
    listed->made = std::move(made);
}

void Nester::finishCarry()
{
    if (!m_options.carryOut || totals.overlaps > 0 || totals.disordered)
        return; // the walk is done again without the lists
    m_options.carryOut->resumedTracks = uint64_t(
        std::count_if(m_listed.begin(), m_listed.end(), [](const Listed& l) { return l.carry; }));
    // Each carried track's exclusive time per row at its checkpoint (in the order the walk
    // first met the rows), less the own time of its calls still open.
    std::vector<int64_t> ofRow(m_capture.rows.size(), 0);
    std::vector<uint32_t> keyOfRow(m_capture.rows.size(), UINT32_MAX); // NestingOrder::rowKey
    const auto& rowOfKey = m_capture.nestingOrder.rowOfKey;
    for (uint32_t key = 0; key < rowOfKey.size(); ++key)
        if (rowOfKey[key] < keyOfRow.size())
            keyOfRow[rowOfKey[key]] = key;
    for (Listed& listed : m_listed) {
        if (!listed.made)
            continue;
        TrackCarry& made = *listed.made;
        for (const auto& [row, ns] : listed.lanes)
            ofRow[row] = ns;
        bool exact = true;
        const NestingOrder& listing = m_capture.nestingOrder;
        auto rowOf = [&](const TrackCarry::Entry& entry) {
            return listing.rows[listed.lists[entry.list].first + entry.position];
        };
        for (size_t i = 0; i < made.stack.size() && made.stack[i].open; ++i) {
            const TrackCarry::Entry& entry = made.stack[i];
            int64_t own = 0;
            exact = exact && !__builtin_sub_overflow(entry.end, entry.start, &own);
            const uint32_t row = rowOf(entry);
            exact = exact && !__builtin_sub_overflow(ofRow[row], own, &ofRow[row]);
            if (i > 0) {
                const uint32_t parent = rowOf(made.stack[i - 1]);
                exact = exact && !__builtin_add_overflow(ofRow[parent], own, &ofRow[parent]);
            }
        }
        // Sums this far from int64's limits never saturated, so the carry adds up as the
        // whole walk would.
        constexpr int64_t kLimit = INT64_MAX / 4;
        for (const auto& lane : listed.lanes) {
            const uint32_t row = lane.first;
            exact = exact && ofRow[row] > -kLimit && ofRow[row] < kLimit;
            exact = exact && keyOfRow[row] != UINT32_MAX;
            made.exclusive.emplace_back(keyOfRow[row], ofRow[row]);
            ofRow[row] = 0;
        }
        if (exact)
            m_options.carryOut->tracks.push_back(std::move(made));
        listed.made.reset();
    }
}

} // namespace nesting_walk

} // namespace spanscope::model
