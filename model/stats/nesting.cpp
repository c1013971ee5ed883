#include "nesting.h"
#include "nesting_walk.h"

#include "overlap_lanes.h"
#include "nesting_carry.h"
#include "../share_out.h"

#include <algorithm>
#include <thread>

namespace spanscope::model {

namespace nesting_walk {

bool Nester::usableListing() const
{
    const NestingOrder& listing = m_capture.nestingOrder;
    if (listing.empty() || listing.rowListed.size() != m_capture.rows.size()
        || listing.rows.size() != listing.events.size() || m_events.track.size() != m_events.size())
        return false;
    std::vector<bool> seen(m_capture.tracks.size(), false);
    uint64_t next = 0;
    for (size_t i = 0; i < listing.tracks.size(); ++i) {
        const auto& t = listing.tracks[i];
        const bool sameAsBefore = i > 0 && listing.tracks[i - 1].track == t.track; // its next list
        if (t.track.value >= seen.size() || (seen[t.track.value] && !sameAsBefore) || t.begin < next
            || t.end < t.begin)
            return false;
        seen[t.track.value] = true;
        next = t.end;
    }
    return next <= listing.events.size();
}

uint64_t Nester::listedCalls() const
{
    uint64_t calls = 0;
    for (const auto& t : m_capture.nestingOrder.tracks)
        calls += t.end - t.begin;
    return calls;
}

void Nester::addListedRuns(std::vector<std::vector<Run>>& runsOfTrack)
{
    const NestingOrder& listing = m_capture.nestingOrder;
    for (const auto& t : listing.tracks) {
        Run run;
        run.order = m_runOrder++;
        // Positions are places in the lists (Open::position), for the carry.
        run.indices = listing.events.data();
        run.rows = listing.rows.data();
        run.position = t.begin;
        run.end = t.end;
        if (t.track.value >= runsOfTrack.size())
            runsOfTrack.resize(size_t(t.track.value) + 1);
        runsOfTrack[t.track.value].push_back(run);
    }
}

void Nester::runsOfRow(uint32_t row, RowRuns& out, std::vector<uint64_t>& callsOnTrack) const
{
    const auto& r = m_capture.rows[row];
    const RowEvents calls = m_capture.rowEvents(r);
    if (calls.empty())
        return;
    if (!m_listedTrack.empty() && m_capture.nestingOrder.rowListed[row]) {
        out.listedCalls += r.count;
        return;
    }
    const bool perCall = !m_events.track.empty();
    auto trackOf = [&](uint64_t i) { return perCall ? m_events.track[i] : r.track.value; };
    // A row held in one span, on one track, in nesting order and all closed is walked where
    // it lies.
    const EventSpan span = calls.spans().front();
    const uint64_t begin = span.begin, end = span.end;
    bool simple = calls.spans().size() == 1, disjoint = true;
    const uint32_t firstTrack = trackOf(begin);
    for (uint64_t i = begin; i < end && simple; ++i) {
        if (m_events.end[i] < m_events.start[i] || trackOf(i) != firstTrack)
            simple = false;
        else if (i > begin
                 && (m_events.start[i] < m_events.start[i - 1]
                     || (m_events.start[i] == m_events.start[i - 1] && m_events.end[i] > m_events.end[i - 1])))
            simple = false;
        else if (i > begin && m_events.end[i - 1] > m_events.start[i])
            disjoint = false;
    }
    if (simple && listedTrack(firstTrack)) {
        out.listedCalls += end - begin;
        return;
    }
    if (simple) {
        Run run;
        run.row = row;
        run.position = begin;
        run.end = end;
        run.disjoint = disjoint;
        out.runs.push_back({firstTrack, run});
        return;
    }
    // Gather closed calls per track, keeping their order (counted first, so each list is
    // allocated once), then sort each list stably. Tracks in ascending order. callsOnTrack
    // counts a track's calls, then holds the track's list, and is left all 0.
    std::vector<uint32_t> tracks;
    for (const uint64_t i : calls) {
        const uint32_t track = trackOf(i);
        if (listedTrack(track)) {
            ++out.listedCalls;
            continue;
        }
        if (m_events.end[i] < m_events.start[i]) { // never-closed calls take no part in nesting
            out.unclosed.push_back({EventIndex(i), track});
            continue;
        }
        if (track >= callsOnTrack.size())
            callsOnTrack.resize(size_t(track) + 1);
        if (callsOnTrack[track]++ == 0)
            tracks.push_back(track);
    }
    std::sort(tracks.begin(), tracks.end());
    const size_t first = out.gathered.size();
    out.gathered.resize(first + tracks.size());
    for (size_t k = 0; k < tracks.size(); ++k) {
        out.gathered[first + k].reserve(callsOnTrack[tracks[k]]);
        callsOnTrack[tracks[k]] = first + k; // from counts to the track's list
    }
    for (const uint64_t i : calls)
        if (m_events.end[i] >= m_events.start[i] && !listedTrack(trackOf(i)))
            out.gathered[callsOnTrack[trackOf(i)]].push_back(EventIndex(i));
    for (const uint32_t track : tracks)
        callsOnTrack[track] = 0;
    auto before = [this](EventIndex a, EventIndex b) {
        if (m_events.start[a] != m_events.start[b])
            return m_events.start[a] < m_events.start[b];
        return m_events.end[a] > m_events.end[b];
    };
    for (size_t k = 0; k < tracks.size(); ++k) {
        auto& list = out.gathered[first + k];
        // A row recorded in nesting order (every live capture's) is sorted already.
        if (!std::is_sorted(list.begin(), list.end(), before))
            std::stable_sort(list.begin(), list.end(), before);
        Run run;
        run.row = row;
        run.indices = list.data(); // a vector's storage stays put when the vector moves
        run.position = 0;
        run.end = list.size();
        // Disjoint lets the parallel walk cut the track (a live capture's main thread).
        run.disjoint = true;
        for (size_t i = 1; i < list.size() && run.disjoint; ++i)
            run.disjoint = m_events.end[list[i - 1]] <= m_events.start[list[i]];
        out.runs.push_back({tracks[k], run});
    }
}

bool Nester::addRuns(std::vector<std::vector<Run>>& runsOfTrack, const ProgressRange& progress)
{
    const auto rows = uint32_t(m_capture.rows.size());
    std::vector<RowRuns> found;
    if (m_events.size() < m_options.parallelMinimumCalls || std::thread::hardware_concurrency() < 2) {
        std::vector<uint64_t> callsOnTrack(m_capture.tracks.size());
        found.resize(1);
        for (uint32_t r = 0; r < rows; ++r) {
            if (progress.cancelled())
                return false;
            runsOfRow(r, found.front(), callsOnTrack);
        }
    } else {
        // On both cores: the rows cut into consecutive chunks of about equal calls (a chunk
        // per row would cost an allocation per row, and captures with a name per range
        // have millions of rows), the largest first; the chunks' runs added in row order.
        constexpr uint64_t kChunks = 64;
        std::vector<WorkChunk> chunks;
        cutIntoChunks(rows, m_events.size() / kChunks + 1, [&](uint32_t r) { return m_capture.rows[r].count; },
                      chunks);
        const std::vector<uint32_t> schedule = largestFirst(chunks);
        found.resize(chunks.size());
        std::vector<uint64_t> callsOnTrack[2] = {std::vector<uint64_t>(m_capture.tracks.size()),
                                                 std::vector<uint64_t>(m_capture.tracks.size())};
        shareOut(chunks.size(), [&](size_t item, int worker) {
            const WorkChunk& chunk = chunks[schedule[item]];
            for (uint32_t r = chunk.first; r < chunk.last && !progress.cancelled(); ++r)
                runsOfRow(r, found[schedule[item]], callsOnTrack[worker]);
        });
        if (progress.cancelled())
            return false;
    }
    if (readListing()) {
        // The rows left exactly as many calls to the listed tracks as the lists hold, or the
        // lists are not used: the rows' calls are gathered again, every track's.
        uint64_t listed = 0;
        for (const RowRuns& chunk : found)
            listed += chunk.listedCalls;
        if (listed != listedCalls()) {
            m_listedTrack.clear();
            return addRuns(runsOfTrack, progress);
        }
    }
    for (RowRuns& chunk : found) {
        for (auto& [track, run] : chunk.runs) {
            run.order = m_runOrder++;
            if (track >= runsOfTrack.size())
                runsOfTrack.resize(size_t(track) + 1);
            runsOfTrack[track].push_back(run);
        }
        if (m_visitor)
            for (const auto& [event, track] : chunk.unclosed)
                m_visitor->unclosed(event, TrackId{track});
        for (auto& list : chunk.gathered)
            m_gathered.push_back(std::move(list));
    }
    if (readListing())
        addListedRuns(runsOfTrack);
    return true;
}

bool Nester::run(const ProgressRange& progress)
{
    const size_t n = m_events.size();

    // Runs grouped by track, each track's runs in row order.
    std::vector<std::vector<Run>> runsOfTrack;
    if (!addRuns(runsOfTrack, progress))
        return false;
    runsOfTrack.resize(m_capture.tracks.size());
    planCarry(runsOfTrack);
    prepareDepth(runsOfTrack);
    // A visitor that needs every call in order on one thread gets the serial walk (see
    // walkInParallel).
    if (n >= m_options.parallelMinimumCalls && std::thread::hardware_concurrency() >= 2) {
        if (walkInParallel(runsOfTrack, progress)) {
            m_gathered.clear();
            finishCarry();
            finishDepth();
            return true;
        }
        if (progress.cancelled())
            return false;
    }
    TrackWalker walker(m_capture, m_depthOut, m_visitor);
    walker.shareDepthsBelow(m_sharedBelow);
    uint64_t done = 0;
    for (const TrackId track : tracksInDisplayOrder(m_capture)) {
        auto& runs = runsOfTrack[track.value];
        if (runs.empty())
            continue;
        if (progress.cancelled())
            return false;
        for (const Run& run : runs)
            done += run.end - run.position;
        walkTrack(walker, runs, track, {}, listedOf(track));
        if (walker.totals.disordered)
            break;
        progress.report(n ? double(std::min<uint64_t>(done, n)) / double(n) : 1.0);
    }
    m_gathered.clear();
    m_depthChanges = std::move(walker.depthChanges);
    totals = std::move(walker.totals);
    if (totals.overlaps)
        overlapWarning = Warning{std::to_string(totals.overlaps)
                                     + " calls end after the call enclosing them (partial overlap; "
                                       "first: "
                                     + totals.overlapExample
                                     + "); they are treated as siblings for exclusive time",
                                 {}};
    finishCarry();
    finishDepth();
    return true;
}

void Nester::prepareDepth(const std::vector<std::vector<Run>>& runsOfTrack)
{
    if (!m_depth)
        return;
    const size_t n = m_events.size();
    // A track whose walk goes on from a carry walks only its new calls: the others keep
    // the depth they had (a call closed then keeps its event, or moved to one).
    const NestingCarry* from = resumedAny() ? m_options.resumeFrom : nullptr;
    const EventColumn<uint16_t>* carried = from ? &from->capture->events.depth : nullptr;
    const size_t kept = carried ? std::min(carried->size(), n) : 0;
    const auto& moved = m_capture.nestingOrder.moved;
    // Where every track walked goes on from the carry, every depth written is a new
    // call's, past the carried snapshot's events: written into its store, then shared.
    bool onlyNew = from && from->depthStore && carried->data() == from->depthStore->data()
                   && kept == carried->size() && from->depthStore->capacity() >= n;
    for (size_t t = 0; t < runsOfTrack.size() && onlyNew; ++t)
        if (!runsOfTrack[t].empty()) {
            const Listed* listed = listedOf(TrackId{uint32_t(t)});
            onlyNew = listed && listed->carry;
        }
    for (size_t i = 0; i < moved.size() && onlyNew; ++i)
        onlyNew = moved[i].second >= kept;
    m_depthStore.reset();
    m_sharedBelow = 0;
    m_depthChanges.clear();
    if (onlyNew) {
        // The calls walked again after a carry's checkpoint are the carried snapshot's: the
        // walkers leave their depths as they are (TrackWalker::shareDepthsBelow).
        m_depthStore = from->depthStore;
        m_sharedBelow = uint32_t(kept);
    } else if (m_options.carryOut) { // a store of its own, for the next snapshot to share
        m_depthStore = std::make_shared<SharedColumnStore<uint16_t>>(std::max<size_t>(n + n / 2, size_t(1) << 16));
        if (carried)
            std::copy_n(carried->begin(), kept, m_depthStore->data());
    } else {
        m_depth->resize(n);
        if (carried)
            std::copy_n(carried->begin(), kept, m_depth->mutableData());
    }
    prefaultStoreAhead(m_depthStore, n, carried ? n - kept : 0); // what the next snapshots append
    m_depthOut = m_depthStore ? m_depthStore->data() : m_depth->mutableData();
    std::fill(m_depthOut + kept, m_depthOut + n, uint16_t(0));
    if (carried)
        for (const auto& [before, now] : moved) // taken along since
            if (before < kept && now < n)
                m_depthOut[now] = (*carried)[before];
}

void Nester::finishDepth()
{
    if (!m_depthStore)
        return;
    if (!m_depthChanges.empty()) {
        // A call walked again nests otherwise now (a later call encloses it): the store is
        // the snapshot before's, so the column gets one of its own.
        const size_t n = m_events.size();
        auto own = std::make_shared<SharedColumnStore<uint16_t>>(std::max<size_t>(n + n / 2, size_t(1) << 16));
        std::copy_n(m_depthStore->data(), n, own->data());
        for (const auto& [event, depth] : m_depthChanges)
            own->data()[event] = depth;
        m_depthStore = std::move(own);
        m_depthChanges.clear();
    }
    *m_depth = EventColumn<uint16_t>::sharing(m_depthStore, m_events.size());
    if (m_options.carryOut)
        m_options.carryOut->depthStore = m_depthStore;
}

} // namespace nesting_walk

using nesting_walk::Nester;

bool computeNesting(Capture& capture, const ProgressRange& progress, NestingVisitor* visitor,
                    const NestingOptions& options)
{
    assignTracks(capture);
    if (capture.events.size() >= UINT32_MAX) {
        capture.warnings.push_back({"too many calls to compute nesting; exclusive times unavailable", {}});
        return true;
    }
    std::optional<Nester> nester;
    nester.emplace(capture, &capture.events.depth, visitor, options, true);
    if (!nester->run(progress))
        return false;
    // Lists the walk could not use are dropped, so that later walks (walkNesting) do not
    // try them again.
    if (!nester->readListing())
        capture.nestingOrder = {};
    if (nester->totals.disordered && nester->resumedAny()) {
        // A walk that went on from the carry met a call out of order (one came since that
        // starts before where the carried walk stood): walked whole from the same lists,
        // which decide ties as the whole walk does (the rows' walk may order calls with
        // the same start and end otherwise).
        if (visitor)
            visitor->restart();
        if (options.carryOut)
            options.carryOut->tracks.clear();
        NestingOptions whole = options;
        whole.resumeFrom = nullptr;
        nester.emplace(capture, &capture.events.depth, visitor, whole, true);
        if (!nester->run(progress))
            return false;
        if (!nester->readListing())
            capture.nestingOrder = {};
    }
    if (nester->totals.disordered) {
        capture.nestingOrder = {};
        if (visitor)
            visitor->restart();
        if (options.carryOut) // the lists are dropped: nothing is carried
            options.carryOut->tracks.clear();
        nester.emplace(capture, &capture.events.depth, visitor, options, false);
        if (!nester->run(progress))
            return false;
    }
    // Partial overlaps: spread the calls over inferred lanes and nest again, so no call is
    // nested wrongly (overlap_lanes.h). The second walk costs only captures that overlap.
    if (nester->overlapWarning) {
        if (std::optional<Warning> lanes = inferOverlapLanes(capture)) {
            if (!capture.nestingComputed)
                capture.warnings.push_back(std::move(*lanes));
            if (visitor)
                visitor->restart();
            capture.nestingOrder = {}; // calls moved to other tracks
            if (options.carryOut)
                options.carryOut->tracks.clear();
            nester.emplace(capture, &capture.events.depth, visitor, options, false);
            if (!nester->run(progress))
                return false;
        }
    }
    capture.rowExclusive = std::move(nester->totals.rowExclusive);
    capture.laneExclusive = std::move(nester->totals.laneExclusive);
    if (nester->overlapWarning && !capture.nestingComputed)
        capture.warnings.push_back(std::move(*nester->overlapWarning));
    capture.nestingComputed = true;
    return true;
}

void walkNesting(const Capture& capture, NestingVisitor& visitor)
{
    if (capture.events.size() >= UINT32_MAX)
        return;
    // The lists were checked by computeNesting(), which drops those it could not use.
    Nester(capture, nullptr, &visitor, NestingOptions{}, capture.nestingComputed).run({nullptr, 0, 1});
}

} // namespace spanscope::model
