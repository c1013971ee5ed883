// The nesting walk carried from one live snapshot to the next (nesting_carry.h): which
// listed tracks go on from the carry, and what each leaves for the next snapshot.
#include "nesting_carry.h"

#include "nesting_walk.h"

#include <algorithm>

namespace spanscope::model {

const TrackCarry* NestingCarry::find(int32_t rank, int64_t thread) const
{
    for (const TrackCarry& t : tracks)
        if (t.rank == rank && t.thread == thread)
            return &t;
    return nullptr;
}

uint32_t NestingCarry::movedTo(const NestingOrder& listing, uint32_t event)
{
    const auto it = std::lower_bound(listing.moved.begin(), listing.moved.end(),
                                     std::make_pair(event, uint32_t(0)));
    return it != listing.moved.end() && it->first == event ? it->second : event;
}

bool NestingCarry::resumable(const Capture& c, const TrackCarry& carry, uint64_t begin,
                             uint64_t end, std::vector<int64_t>& ends) const
{
    const NestingOrder& listing = c.nestingOrder;
    const auto& start = c.events.start;
    const auto& stop = c.events.end;
    ends.clear();
    if (!capture || end - begin < carry.walked || carry.walked == 0 ||
        c.events.size() < capture->events.size() || listing.rows.size() != listing.events.size())
        return false;
    for (const auto& [region, ns] : carry.exclusive)
        if (region >= listing.rowOfRegion.size() || listing.rowOfRegion[region] >= c.rows.size())
            return false;
    bool lastOnStack = false;
    for (size_t i = 0; i < carry.stack.size(); ++i) {
        const TrackCarry::Entry& entry = carry.stack[i];
        if (entry.position >= carry.walked)
            return false;
        const uint32_t e = listing.events[begin + entry.position];
        if (e >= c.events.size() || start[e] != entry.start)
            return false;
        lastOnStack = lastOnStack || entry.event == carry.lastEvent;
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
    // The last call walked, if no longer open, is where it was.
    return lastOnStack ||
           listing.events[begin + carry.walked - 1] == movedTo(listing, carry.lastEvent);
}

namespace nesting_walk {

void Nester::planCarry(std::vector<std::vector<Run>>& runsOfTrack)
{
    m_listed.clear();
    m_listedOf.clear();
    const NestingOrder& listing = m_capture.nestingOrder;
    if (!readListing() || !(m_options.resumeFrom || m_options.carryOut))
        return;
    // Tracks of one list (a thread whose CUDA calls make a second one is walked whole).
    std::vector<uint32_t> lists(m_capture.tracks.size(), 0);
    for (const auto& t : listing.tracks)
        ++lists[t.track.value];
    m_listedOf.assign(m_capture.tracks.size(), UINT32_MAX);
    for (const auto& t : listing.tracks) {
        const Track& track = m_capture.tracks[t.track.value];
        if (lists[t.track.value] != 1 || track.kind != TrackKind::Thread ||
            track.inferredLane != 0 || runsOfTrack[t.track.value].size() != 1 || t.end == t.begin)
            continue;
        m_listedOf[t.track.value] = uint32_t(m_listed.size());
        Listed& listed = m_listed.emplace_back();
        listed.track = t.track;
        listed.begin = t.begin;
        listed.end = t.end;
        const TrackCarry* carry =
            m_options.resumeFrom ? m_options.resumeFrom->find(track.rank, track.thread) : nullptr;
        if (carry && (!m_visitor || m_visitor->canResume(*carry)) &&
            m_options.resumeFrom->resumable(m_capture, *carry, t.begin, t.end, listed.ends)) {
            listed.carry = carry;
            runsOfTrack[t.track.value].front().position = carry->walked;
        }
    }
}

void Nester::walkTrack(TrackWalker& walker, std::vector<Run>& runs, TrackId track,
                       const std::vector<Open>& open, Listed* listed)
{
    if (listed && listed->carry)
        walker.resume(runs, track, *listed->carry, listed->ends, listed->begin);
    else
        walker.walk(runs, track, open);
    if (!listed || !m_options.carryOut)
        return;
    listed->made.reset();
    const NestingOrder& listing = m_capture.nestingOrder;
    // A call starting where the calls still open are shown to end would close them in this
    // walk and not in the next: no carry.
    if (walker.totals.overlaps > 0 || walker.totals.disordered ||
        walker.lastStart >= listing.openEnd)
        return;
    const Track& t = m_capture.tracks[track.value];
    TrackCarry made;
    made.rank = t.rank;
    made.thread = t.thread;
    made.track = track;
    made.walked = listed->end - listed->begin;
    made.lastStart = walker.lastStart;
    made.lastStop = walker.lastStop;
    made.lastEvent = walker.lastEvent;
    const auto& stillOpen = m_capture.nvtx.closedAtEnd; // ascending
    uint64_t openAtOpenEnd = 0;
    for (const Open& o : walker.stack()) {
        const bool isOpen =
            std::binary_search(stillOpen.begin(), stillOpen.end(), uint64_t(o.event));
        // Calls still open enclose every call after them, closed ones among them.
        if (isOpen && !made.stack.empty() && !made.stack.back().open)
            return;
        made.stack.push_back({o.position, o.event, o.start, o.end, isOpen});
        openAtOpenEnd += isOpen && o.end == listing.openEnd;
    }
    made.maxClosedEnd = walker.maxEnd;
    if (walker.endsAtOpenEnd > openAtOpenEnd) // some closed call ends there too
        made.maxClosedEnd = std::max(made.maxClosedEnd, listing.openEnd);
    listed->made = std::move(made);
}

void Nester::finishCarry()
{
    if (!m_options.carryOut || totals.overlaps > 0 || totals.disordered)
        return; // the walk is done again without the lists
    m_options.carryOut->resumedTracks = uint64_t(
        std::count_if(m_listed.begin(), m_listed.end(), [](const Listed& l) { return l.carry; }));
    // Each carried track's exclusive time per row, from the walk's lanes (in the order the
    // walk first met the rows), less the own time of its calls still open.
    std::vector<std::vector<std::pair<uint32_t, int64_t>>> lanesOf(m_listed.size()); // (row, ns)
    for (const LaneExclusive& lane : totals.laneExclusive)
        if (const Listed* listed = listedOf(lane.track); listed && listed->made)
            lanesOf[size_t(listed - m_listed.data())].emplace_back(lane.row, lane.exclusiveNs);
    std::vector<int64_t> ofRow(m_capture.rows.size(), 0);
    for (size_t l = 0; l < m_listed.size(); ++l) {
        Listed& listed = m_listed[l];
        if (!listed.made)
            continue;
        TrackCarry& made = *listed.made;
        for (const auto& [row, ns] : lanesOf[l])
            ofRow[row] = ns;
        bool exact = true;
        const NestingOrder& listing = m_capture.nestingOrder;
        for (size_t i = 0; i < made.stack.size() && made.stack[i].open; ++i) {
            const TrackCarry::Entry& entry = made.stack[i];
            int64_t own = 0;
            exact = exact && !__builtin_sub_overflow(entry.end, entry.start, &own);
            const uint32_t row = listing.rows[listed.begin + entry.position];
            exact = exact && !__builtin_sub_overflow(ofRow[row], own, &ofRow[row]);
            if (i > 0) {
                const uint32_t parent = listing.rows[listed.begin + made.stack[i - 1].position];
                exact = exact && !__builtin_add_overflow(ofRow[parent], own, &ofRow[parent]);
            }
        }
        // Sums this far from int64's limits never saturated, so the carry adds up as the
        // whole walk would.
        constexpr int64_t kLimit = INT64_MAX / 4;
        for (const auto& lane : lanesOf[l]) {
            const uint32_t row = lane.first;
            exact = exact && ofRow[row] > -kLimit && ofRow[row] < kLimit;
            made.exclusive.emplace_back(m_capture.rows[row].region, ofRow[row]);
            ofRow[row] = 0;
        }
        if (exact)
            m_options.carryOut->tracks.push_back(std::move(made));
        listed.made.reset();
    }
}

} // namespace nesting_walk

} // namespace spanscope::model
