#include "timeline_index.h"

#include "../stats/saturating.h"
#include "../stats/nesting.h"
#include "../share_out.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <optional>

namespace spanscope::model {

namespace {

// What finishing one depth row takes: where the same row of the snapshot before stood
// (`previous`, `from`: its first from->closed calls are this row's), and where to leave the
// state after `saveAt` calls for the next snapshot (`save`); any may be null.
struct RowJob
{
    DepthRow* row = nullptr;
    const DepthRow* previous = nullptr;
    const DepthCarry* from = nullptr;
    DepthCarry* save = nullptr;
    uint64_t saveAt = 0;
};

void finishRow(const Capture& capture, const RowJob& job)
{
    DepthRow& row = *job.row;
    const auto& start = capture.events.start;
    const auto& end = capture.events.end;
    const size_t n = row.events.size();
    if (!row.events.shared())
        row.events.shrink_to_fit();
    bool endsOrdered = true;
    int64_t lastEnd = std::numeric_limits<int64_t>::min();
    const int64_t firstStart = n > 0 ? start[row.events[0]] : 0, rowEnd = n > 0 ? end[row.events[n - 1]] : 0;
    // Calls the row had in the snapshot before keep their sums, samples and summaries.
    size_t first = 0;
    std::optional<RowLodBuilder> lod;
    bool continuedLod = false; // from the carried row's: the shown row's summaries share its chunks
    if (job.from && job.previous && job.from->endsOrdered && job.from->closed <= n
        && job.from->closed < job.previous->busyPrefix.size()) {
        lod = job.from->lod.continued(rowEnd, n);
        continuedLod = lod.has_value();
        if (lod) {
            first = job.from->closed;
            lastEnd = job.from->lastEnd;
            row.busyPrefix = job.previous->busyPrefix; // its whole chunks shared
            row.busyPrefix.truncate(first + 1);
            const size_t samples = (first + DepthRow::kSampleStride - 1) / DepthRow::kSampleStride;
            row.sampledStart = job.previous->sampledStart; // its chunks shared
            row.sampledStart.truncate(samples);
        }
    }
    if (!lod) {
        lod.emplace(firstStart, rowEnd, n);
        row.busyPrefix = {};
        row.busyPrefix.push_back(0);
    }
    int64_t busy = row.busyPrefix.back();
    auto save = [&](size_t at) {
        if (job.save && job.saveAt == at)
            *job.save = DepthCarry{at, endsOrdered, lastEnd, *lod};
    };
    // One pass over the calls for the busy time, the sampled starts and the summaries:
    // their columns are read through indices that skip about (a depth row holds calls of
    // many rows), which costs a cache miss per call and column.
    for (size_t i = first; i < n; ++i) {
        if (i + 16 < n) {
            __builtin_prefetch(&start[row.events[i + 16]]);
            __builtin_prefetch(&end[row.events[i + 16]]);
        }
        save(i);
        const uint32_t e = row.events[i];
        const int64_t s = start[e], t = end[e];
        busy = addSaturating(busy, subtractSaturating(t, s));
        row.busyPrefix.push_back(busy);
        endsOrdered = endsOrdered && t >= lastEnd;
        lastEnd = t;
        if (i % DepthRow::kSampleStride == 0)
            row.sampledStart.push_back(s);
        if (endsOrdered) // else the summaries are not kept
            lod->add(i, s, t);
    }
    save(n);
    row.busyPrefix.shrinkToFit();
    if (endsOrdered) // the summaries assume calls that do not overlap
        row.lod = lod->finish(continuedLod ? &job.previous->lod : nullptr);
    if (!endsOrdered) {
        row.maxEnd.resize(n);
        int64_t running = std::numeric_limits<int64_t>::min();
        for (size_t i = 0; i < n; ++i)
            row.maxEnd[i] = running = std::max(running, end[row.events[i]]);
    }
}

// Which tracks NVTX marks and the ends of cross-thread ranges belong to.
struct PointTracks
{
    std::vector<uint32_t> trackOfMark; // per mark; TrackId::kNone when its thread has no track
    std::vector<bool> marked, endsRanges; // per track
};

PointTracks pointTracks(const Capture& capture)
{
    PointTracks points;
    points.marked.assign(capture.tracks.size(), false);
    points.endsRanges.assign(capture.tracks.size(), false);
    const auto& marks = capture.nvtx.marks;
    const auto& ends = capture.nvtx.crossThreadEnds;
    if (marks.empty() && ends.empty())
        return points;
    std::map<std::pair<int32_t, int64_t>, uint32_t> threadTracks; // (rank, thread or -1 = process)
    for (uint32_t t = 0; t < capture.tracks.size(); ++t) {
        const Track& track = capture.tracks[t];
        if (track.inferredLane == 0 && (track.kind == TrackKind::Thread || track.kind == TrackKind::Process))
            threadTracks.emplace(std::make_pair(track.rank, track.kind == TrackKind::Thread ? track.thread : -1), t);
    }
    auto find = [&](int32_t rank, int64_t thread) {
        const auto it = threadTracks.find({rank, thread});
        return it == threadTracks.end() ? TrackId::kNone : it->second;
    };
    points.trackOfMark.reserve(marks.size());
    for (const NvtxMark& mark : marks) {
        const uint32_t track = find(mark.rank, std::max<int64_t>(mark.thread, -1));
        points.trackOfMark.push_back(track);
        if (track != TrackId::kNone)
            points.marked[track] = true;
    }
    for (const auto& row : capture.rows)
        for (const EventSpan& span : capture.rowEvents(row).spans()) {
            auto it = std::lower_bound(ends.begin(), ends.end(), span.begin,
                                       [](const NvtxCrossThreadEnd& end, uint64_t e) { return end.event < e; });
            for (; it != ends.end() && it->event < span.end; ++it)
                if (const uint32_t track = find(row.rank, it->endThread); track != TrackId::kNone)
                    points.endsRanges[track] = true;
        }
    return points;
}

} // namespace

void TimelineIndex::indexMarks(const Capture& capture, const std::vector<uint32_t>& trackOfMark)
{
    const auto& marks = capture.nvtx.marks;
    std::vector<std::pair<int32_t, uint32_t>> byLane; // (lane, mark)
    for (uint32_t m = 0; m < trackOfMark.size(); ++m)
        if (const int32_t lane = trackOfMark[m] == TrackId::kNone ? -1 : laneOf(TrackId{trackOfMark[m]}); lane >= 0)
            byLane.emplace_back(lane, m);
    std::stable_sort(byLane.begin(), byLane.end(), [&](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : marks[a.second].timeNs < marks[b.second].timeNs;
    });
    m_marks.reserve(byLane.size());
    for (size_t i = 0; i < byLane.size(); ++i) {
        TimelineLane& lane = m_lanes[size_t(byLane[i].first)];
        if (i == 0 || byLane[i - 1].first != byLane[i].first)
            lane.marksBegin = uint32_t(i);
        lane.marksEnd = uint32_t(i + 1);
        m_marks.push_back(byLane[i].second);
        m_begin = std::min(m_begin, marks[byLane[i].second].timeNs);
        m_end = std::max(m_end, marks[byLane[i].second].timeNs);
    }
}

std::pair<size_t, size_t> TimelineIndex::marksIn(const Capture& capture, uint32_t lane, int64_t t0, int64_t t1) const
{
    const auto& marks = capture.nvtx.marks;
    const auto begin = m_marks.begin() + m_lanes[lane].marksBegin, end = m_marks.begin() + m_lanes[lane].marksEnd;
    auto before = [&](uint32_t m, int64_t t) { return marks[m].timeNs < t; };
    const auto first = std::lower_bound(begin, end, t0, before);
    const auto last = std::lower_bound(first, end, t1, before);
    return {size_t(first - m_marks.begin()), size_t(last - m_marks.begin())};
}

int32_t TimelineIndex::laneOfTrack(TrackId track) const
{
    for (size_t lane = 0; lane < m_lanes.size(); ++lane)
        if (m_lanes[lane].track == track && m_lanes[lane].counter < 0)
            return int32_t(lane);
    return -1;
}

int32_t TimelineIndex::laneOfThread(int32_t rank, int64_t thread) const
{
    const auto it = m_threadLanes.find({rank, thread});
    return it == m_threadLanes.end() ? -1 : it->second;
}

void TimelineIndexBuilder::resumeFrom(const NestingCarry* carry, const Capture& capture)
{
    m_resumeFrom = carry;
    m_moved.reset();
    if (!carry || !carry->capture)
        return;
    const auto& track = carry->capture->events.track;
    auto moved = std::make_shared<MovedByTrack>();
    for (const auto& pair : capture.nestingOrder.moved)
        if (pair.first < track.size())
            (*moved)[uint32_t(track[pair.first])].push_back(pair);
    m_moved = std::move(moved);
}

bool TimelineIndexBuilder::canResume(const TrackCarry& carry) const
{
    if (!m_resumeFrom || !m_resumeFrom->index || !m_moved)
        return false;
    const TimelineIndex& index = *m_resumeFrom->index;
    const int32_t lane = index.laneOfTrack(carry.track);
    if (lane < 0)
        return false;
    const TimelineLane& previous = index.lanes()[size_t(lane)];
    if (!previous.unclosed.empty() || previous.depths.size() != carry.depths.size())
        return false;
    for (size_t d = 0; d < carry.depths.size(); ++d)
        if (carry.depths[d].closed > previous.depths[d].size())
            return false;
    return true;
}

void TimelineIndexBuilder::resumeTrack(TrackId track, const TrackCarry& carry)
{
    const TimelineIndex& index = *m_resumeFrom->index;
    const TimelineLane& previous = index.lanes()[size_t(index.laneOfTrack(carry.track))];
    m_current = &m_lanes[track.value];
    m_currentTrack = track.value;
    m_resumed[track.value] = {&previous, &carry};
    m_current->depths.resize(carry.depths.size());
    // Each row's closed calls then, in a store the walk appends to (call()).
    std::vector<StoredRow>& stored = m_stored[track.value];
    stored.resize(carry.depths.size());
    m_currentStored = &stored;
    for (size_t d = 0; d < carry.depths.size(); ++d) {
        stored[d].from = &carry.depths[d];
        stored[d].store = storeFor(carry.depths[d], previous.depths[d].events);
        stored[d].size = carry.depths[d].closed;
    }
    // Calls taken along to new events since: found by their start in their row (in start
    // order), their entry rewritten.
    const Capture& before = *m_resumeFrom->capture;
    const auto moved = m_moved->find(carry.track.value);
    if (moved == m_moved->end())
        return;
    for (const auto& [from, to] : moved->second) {
        const uint16_t d = before.events.depth[from];
        if (d >= carry.depths.size())
            continue;
        const auto& calls = previous.depths[d].events;
        const auto end = calls.begin() + int64_t(carry.depths[d].closed);
        const int64_t start = before.events.start[from];
        auto at = std::partition_point(calls.begin(), end, [&](uint32_t e) { return before.events.start[e] < start; });
        for (; at != end && before.events.start[*at] == start; ++at)
            if (*at == from) {
                const auto place = uint64_t(at - calls.begin());
                stored[d].store->data()[place] = to;
                stored[d].rewrites.emplace_back(place, to);
                break;
            }
    }
}

std::shared_ptr<SharedColumnStore<uint32_t>> TimelineIndexBuilder::storeFor(const DepthCarry& from,
                                                                            const EventColumn<uint32_t>& previous)
{
    const uint64_t closed = from.closed;
    // The spare is the row of the snapshot before the carried one; held by nothing else
    // (that snapshot is gone), it needs only what the carried row changed and added.
    if (from.spare && from.spare.use_count() == 1 && from.spare->capacity() > closed && from.spareFrom <= closed) {
        uint32_t* to = from.spare->data();
        for (const auto& [place, event] : from.rewrites)
            to[place] = event;
        std::copy(previous.begin() + int64_t(from.spareFrom), previous.begin() + int64_t(closed), to + from.spareFrom);
        return from.spare;
    }

    // Room for the calls to come (mapped, faulted in only as written).
    auto store = std::make_shared<SharedColumnStore<uint32_t>>(closed + closed / 2 + 64);
    std::copy_n(previous.begin(), closed, store->data());
    return store;
}

void TimelineIndexBuilder::checkpoint()
{
    std::vector<uint64_t>& sizes = m_checkpoints[m_currentTrack];
    const size_t stored = m_currentStored ? m_currentStored->size() : 0;
    sizes.resize(std::max(stored, m_current->depths.size()));
    for (size_t d = 0; d < sizes.size(); ++d)
        sizes[d] = d < stored ? (*m_currentStored)[d].size : m_current->depths[d].events.size();
}

void TimelineIndexBuilder::track(TrackId track)
{
    m_current = &m_lanes[track.value];
    m_currentTrack = track.value;
    const auto stored = m_stored.find(track.value);
    m_currentStored = stored == m_stored.end() ? nullptr : &stored->second;
}

void TimelineIndexBuilder::call(uint32_t event, uint16_t depth, int64_t, int64_t)
{
    if (m_currentStored && depth < m_currentStored->size()) {
        StoredRow& row = (*m_currentStored)[depth];
        if (row.size == row.store->capacity()) { // full: a store twice the size
            auto larger = std::make_shared<SharedColumnStore<uint32_t>>(2 * row.size + 64);
            std::copy_n(row.store->data(), row.size, larger->data());
            row.store = std::move(larger);
        }
        row.store->data()[row.size++] = event;
        return;
    }
    auto& depths = m_current->depths;
    if (depth >= depths.size())
        depths.resize(size_t(depth) + 1);
    depths[depth].events.push_back(event);
}

void TimelineIndexBuilder::unclosed(uint32_t event, TrackId track)
{
    m_lanes[track.value].unclosed.push_back(event);
}

void TimelineIndexBuilder::restart()
{
    m_lanes.clear();
    m_resumed.clear();
    m_stored.clear();
    m_checkpoints.clear();
    m_current = nullptr;
    m_currentStored = nullptr;
}

std::unique_ptr<NestingVisitor> TimelineIndexBuilder::piece()
{
    auto piece = std::make_unique<TimelineIndexBuilder>();
    piece->m_resumeFrom = m_resumeFrom;
    piece->m_moved = m_moved;
    return piece;
}

void TimelineIndexBuilder::join(NestingVisitor& piece)
{
    // Pieces come in walk order, so a track's later part appends to its earlier one.
    auto& builder = static_cast<TimelineIndexBuilder&>(piece);
    m_resumed.insert(builder.m_resumed.begin(), builder.m_resumed.end());
    m_checkpoints.insert(builder.m_checkpoints.begin(), builder.m_checkpoints.end());
    // A resumed track is walked in one piece (never split), so its rows move over whole.
    for (auto& [track, rows] : builder.m_stored)
        m_stored[track] = std::move(rows);
    for (auto& [track, part] : builder.m_lanes) {
        TimelineLane& lane = m_lanes[track];
        if (lane.depths.size() < part.depths.size())
            lane.depths.resize(part.depths.size());
        for (size_t d = 0; d < part.depths.size(); ++d) {
            auto& to = lane.depths[d].events;
            auto& from = part.depths[d].events;
            if (to.empty())
                to = std::move(from);
            else
                to.insert(to.end(), from.begin(), from.end());
        }
        lane.unclosed.insert(lane.unclosed.end(), part.unclosed.begin(), part.unclosed.end());
    }
}

std::shared_ptr<const TimelineIndex> TimelineIndex::build(const Capture& capture)
{
    TimelineIndexBuilder builder;
    walkNesting(capture, builder);
    return builder.finish(capture);
}

void TimelineIndexBuilder::finishRows(const Capture& capture, NestingCarry* carry)
{
    std::map<uint32_t, TrackCarry*> carried; // by TrackId
    if (carry)
        for (TrackCarry& t : carry->tracks)
            carried[t.track.value] = &t;
    // Each row reads its calls through their indices (a cache miss per call, mostly), so
    // two cores wait on twice as many. Largest first: the two finish together. Rows that
    // go on from the snapshot before read only their new calls.
    std::vector<RowJob> rows;
    for (auto& [track, lane] : m_lanes) {
        const auto stored = m_stored.find(track);
        if (stored != m_stored.end())
            for (size_t d = 0; d < stored->second.size(); ++d)
                lane.depths[d].events = EventColumn<uint32_t>::sharing(stored->second[d].store, stored->second[d].size);
        const auto resumed = m_resumed.find(track);
        const auto carrying = carried.find(track);
        TrackCarry* made = carrying == carried.end() ? nullptr : carrying->second;
        if (made)
            made->depths.resize(lane.depths.size());
        const auto checkpoint = m_checkpoints.find(track);
        for (size_t d = 0; d < lane.depths.size(); ++d) {
            RowJob job{&lane.depths[d]};
            if (resumed != m_resumed.end() && d < resumed->second.carry->depths.size()) {
                job.previous = &resumed->second.previous->depths[d];
                job.from = &resumed->second.carry->depths[d];
            }
            if (made) { // the row's calls at the walk's checkpoint, but for one still open
                job.save = &made->depths[d];
                const uint64_t calls = checkpoint == m_checkpoints.end() ? lane.depths[d].size()
                                       : d < checkpoint->second.size() ? checkpoint->second[d]
                                                                       : 0;
                job.saveAt = calls - (d < made->stack.size() && made->stack[d].open ? 1 : 0);
            }
            rows.push_back(job);
        }
    }
    // A call read costs about as much as 8 copied from the row before (sequential).
    auto work = [](const RowJob& job) {
        const uint64_t kept = job.from && job.previous ? std::min<uint64_t>(job.from->closed, job.row->size()) : 0;
        return job.row->size() - kept + kept / 8;
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const RowJob& a, const RowJob& b) { return work(a) > work(b); });
    uint64_t calls = 0;
    for (const RowJob& row : rows)
        calls += work(row);
    auto finish = [&](size_t item, int) { finishRow(capture, rows[item]); };
    if (calls >= kParallelRowCalls)
        shareOut(rows.size(), finish);
    else
        for (size_t item = 0; item < rows.size(); ++item)
            finish(item, 0);
    // Where the rows kept in stores leave theirs for the next snapshot: the store it writes
    // is this row's spare (the carried row's store), lacking what this row changed.
    for (auto& [track, storedRows] : m_stored) {
        const auto carrying = carried.find(track);
        if (carrying == carried.end())
            continue;
        auto& depths = carrying->second->depths;
        for (size_t d = 0; d < storedRows.size() && d < depths.size(); ++d) {
            StoredRow& row = storedRows[d];
            if (depths[d].closed == UINT64_MAX)
                continue;
            depths[d].store = row.store;
            depths[d].spare = row.from->store;
            depths[d].spareFrom = row.from->closed;
            depths[d].rewrites = std::move(row.rewrites);
            // The next rows append past both stores' ends (they take turns).
            const uint64_t appended = row.size - std::min(row.size, row.from->closed);
            prefaultStoreAhead(row.store, row.size, appended);
            prefaultStoreAhead(row.from->store, row.from->closed, appended);
        }
    }
    m_stored.clear();
    m_currentStored = nullptr;
}

std::shared_ptr<const TimelineIndex> TimelineIndexBuilder::finish(const Capture& capture, NestingCarry* carry)
{
    auto index = std::make_shared<TimelineIndex>();

    index->m_begin = std::numeric_limits<int64_t>::max();
    index->m_end = std::numeric_limits<int64_t>::min();
    const auto& events = capture.events;
    // Tracks without calls get a lane when they have a counter or instants to show.
    std::vector<int32_t> counterOf(capture.tracks.size(), -1);
    for (size_t i = 0; i < capture.counters.size(); ++i)
        if (capture.counters[i].track.value < counterOf.size() && !capture.counters[i].empty())
            counterOf[capture.counters[i].track.value] = int32_t(i);
    std::vector<bool> hasInstants(capture.tracks.size(), false);
    for (size_t i = 0; i < capture.instants.size(); ++i)
        if (capture.instants.track(i).value < hasInstants.size())
            hasInstants[capture.instants.track(i).value] = true;
    const PointTracks points = pointTracks(capture);
    finishRows(capture, carry);
    m_resumed.clear();
    index->m_laneOfTrack.assign(capture.tracks.size(), -1);
    for (const TrackId track : tracksInDisplayOrder(capture)) {
        auto found = m_lanes.find(track.value);
        const bool marked = points.marked[track.value], ends = points.endsRanges[track.value];
        if (found == m_lanes.end() && counterOf[track.value] < 0 && !hasInstants[track.value] && !marked && !ends)
            continue;
        if (found == m_lanes.end())
            found = m_lanes.try_emplace(track.value).first;
        TimelineLane& lane = found->second;
        lane.counter = counterOf[track.value];
        lane.instants = hasInstants[track.value];
        lane.endsRanges = ends;
        if (lane.counter >= 0) {
            const auto& series = capture.counters[size_t(lane.counter)];
            index->m_begin = std::min(index->m_begin, series.time(0));
            index->m_end = std::max(index->m_end, series.time(series.size() - 1));
        }
        if (lane.instants) {
            const auto [first, last] = capture.instants.range(track, INT64_MIN, INT64_MAX);
            index->m_begin = std::min(index->m_begin, capture.instants.time(first));
            index->m_end = std::max(index->m_end, capture.instants.time(last - 1));
        }
        index->m_laneOfTrack[track.value] = int32_t(index->m_lanes.size());
        lane.track = track;
        lane.title = trackTitle(capture, track);
        for (auto& row : lane.depths) {
            lane.calls += row.size();
            if (row.size()) {
                index->m_begin = std::min(index->m_begin, events.start[row.events.front()]);
                index->m_end = std::max(index->m_end, row.maxEnd.empty() ? events.end[row.events.back()]
                                                                         : row.maxEnd.back());
            }
        }
        for (const uint32_t e : lane.unclosed) {
            index->m_begin = std::min(index->m_begin, events.start[e]);
            index->m_end = std::max(index->m_end, events.start[e]);
        }
        index->m_lanes.push_back(std::move(lane));
    }
    m_lanes.clear();
    index->indexMarks(capture, points.trackOfMark);
    for (size_t i = 0; i < index->m_lanes.size(); ++i) {
        const Track& t = capture.track(index->m_lanes[i].track);
        if (t.kind == TrackKind::Thread && t.inferredLane == 0)
            index->m_threadLanes.emplace(std::make_pair(t.rank, t.thread), int32_t(i));
    }
    if (index->m_begin > index->m_end)
        index->m_begin = index->m_end = 0;
    for (uint32_t r = 0; r < capture.rows.size(); ++r)
        for (const EventSpan& span : capture.rowEvents(r).spans())
            index->m_rowStarts.emplace_back(span.begin, r);
    std::sort(index->m_rowStarts.begin(), index->m_rowStarts.end());
    // A live snapshot's flows come ordered by the start of each end (kept from one
    // snapshot to the next); else they are sorted here, each end's start read once.
    if (capture.flowTimes.size() == capture.flows.size())
        index->m_flowTimes = capture.flowTimes;
    else
        index->m_flowTimes = FlowTimes::make(capture.flows, [&](uint32_t event) { return events.start[event]; });
    return index;
}

std::vector<uint32_t> TimelineIndex::stackOf(const Capture& capture, uint32_t event) const
{
    const auto& events = capture.events;
    std::vector<uint32_t> stack;
    const TrackId track = events.track.empty() ? capture.rows[rowOf(event)].track : TrackId{events.track[event]};
    const int32_t laneIndex = laneOf(track);
    if (laneIndex < 0 || event >= events.size() || events.end[event] < events.start[event])
        return {event};
    const auto& lane = m_lanes[size_t(laneIndex)];
    const uint16_t depth = events.depth.empty() ? 0 : events.depth[event];
    const int64_t t = events.start[event];
    for (size_t d = 0; d < depth && d < lane.depths.size(); ++d) {
        const auto [first, last] = visibleRange(capture, lane.depths[d], t, t + 1);
        for (size_t i = first; i < last; ++i) {
            const uint32_t candidate = lane.depths[d].events[i];
            if (events.start[candidate] <= t && (events.end[candidate] > t || events.end[candidate] >= events.end[event])) {
                stack.push_back(candidate);
                break;
            }
        }
    }
    stack.push_back(event);
    return stack;
}

std::vector<uint32_t> TimelineIndex::callsAt(const Capture& capture, TrackId track, int64_t t) const
{
    const auto& events = capture.events;
    std::vector<uint32_t> stack;
    const int32_t laneIndex = laneOf(track);
    if (laneIndex < 0)
        return stack;
    for (const auto& row : m_lanes[size_t(laneIndex)].depths) {
        const auto [first, last] = visibleRange(capture, row, t, t + 1);
        bool found = false;
        for (size_t i = first; i < last && !found; ++i) {
            const uint32_t e = row.events[i];
            if (events.start[e] <= t && events.end[e] > t) {
                stack.push_back(e);
                found = true;
            }
        }
        if (!found)
            break; // nothing deeper can be open without a parent here
    }
    return stack;
}

std::vector<uint32_t> TimelineIndex::flowsIn(const Capture& capture, int64_t t0, int64_t t1, size_t limit,
                                             bool& truncated) const
{
    const auto& flows = capture.flows;
    truncated = false;
    std::vector<uint32_t> rows;
    for (const bool from : {true, false}) {
        const FlowTimes::Entries& entries = from ? m_flowTimes.byFrom() : m_flowTimes.byTo();
        for (size_t i = FlowTimes::lowerBound(entries, t0); i < entries.size() && entries[i].start < t1; ++i) {
            const FlowTimes::Entry& entry = entries[i];
            // A flow with both ends in view is listed by its start only.
            if (!from && capture.events.start[entry.from] >= t0 && capture.events.start[entry.from] < t1)
                continue;
            if (i > 0 && entries[i - 1] == entry)
                continue; // flows of the same ends: all listed with the first
            const auto [first, last] = flows.rowsOf(entry.from, entry.to);
            for (size_t row = first; row < last; ++row) {
                if (rows.size() >= limit) {
                    truncated = true;
                    return rows;
                }
                rows.push_back(uint32_t(row));
            }
        }
    }
    return rows;
}

std::pair<size_t, size_t> TimelineIndex::visibleRange(const Capture& capture, const DepthRow& row,
                                                      int64_t t0, int64_t t1) const
{
    const auto& start = capture.events.start;
    const auto& end = capture.events.end;
    // First call whose end (or running maximum of ends) is after t0.
    size_t first = 0;
    if (row.maxEnd.empty()) {
        first = size_t(std::partition_point(row.events.begin(), row.events.end(),
                                            [&](uint32_t e) { return end[e] <= t0; })
                       - row.events.begin());
    } else {
        first = size_t(std::upper_bound(row.maxEnd.begin(), row.maxEnd.end(), t0) - row.maxEnd.begin());
    }
    const auto last = size_t(std::partition_point(row.events.begin() + int64_t(first), row.events.end(),
                                                  [&](uint32_t e) { return start[e] < t1; })
                             - row.events.begin());
    return {first, std::max(first, last)};
}

size_t TimelineIndex::firstStartingAtOrAfter(const Capture& capture, const DepthRow& row, size_t from,
                                             int64_t t)
{
    // Galloping from `from` over the contiguous sampled starts, then a short search inside
    // one stride: the answer is usually a pixel's worth of calls ahead, and this touches
    // the scattered event columns only a handful of times.
    const auto& start = capture.events.start;
    const size_t n = row.events.size();
    if (from >= n || start[row.events[from]] >= t)
        return from;
    constexpr size_t stride = DepthRow::kSampleStride;
    const auto& samples = row.sampledStart;
    // Sample k covers call k * stride. Find the last sample <= answer region: the first
    // sample index whose start >= t, galloping from the sample after `from`.
    size_t low = from / stride + 1; // samples before this start before t or are <= from
    size_t high = low;
    size_t step = 1;
    while (high < samples.size() && samples[high] < t) {
        low = high + 1;
        high += step;
        step *= 2;
    }
    high = std::min(high, samples.size());
    size_t firstSample = std::min(low, high);
    for (size_t to = high; firstSample < to;) {
        const size_t mid = firstSample + (to - firstSample) / 2;
        if (samples[mid] < t)
            firstSample = mid + 1;
        else
            to = mid;
    }
    // The answer lies in (max(from, (firstSample - 1) * stride), min(n, firstSample * stride)].
    const size_t begin = std::max(from + 1, firstSample > 0 ? (firstSample - 1) * stride : 0);
    const size_t end = std::min(n, firstSample * stride);
    if (begin >= end)
        return std::max(begin, std::min(end, n));
    return size_t(std::partition_point(row.events.begin() + int64_t(begin), row.events.begin() + int64_t(end),
                                       [&](uint32_t e) { return start[e] < t; })
                  - row.events.begin());
}

uint32_t TimelineIndex::rowOf(uint32_t e) const
{
    auto it = std::upper_bound(m_rowStarts.begin(), m_rowStarts.end(), std::make_pair(uint64_t(e), UINT32_MAX));
    return it == m_rowStarts.begin() ? 0 : std::prev(it)->second;
}

size_t TimelineIndex::residentBytes() const
{
    size_t bytes = m_marks.capacity() * sizeof(uint32_t) + m_flowTimes.residentBytes();
    for (const auto& lane : m_lanes) {
        bytes += lane.unclosed.capacity() * sizeof(uint32_t);
        for (const auto& row : lane.depths)
            bytes += row.events.capacity() * sizeof(uint32_t) + row.busyPrefix.residentBytes()
                     + row.maxEnd.capacity() * sizeof(int64_t) + row.sampledStart.residentBytes()
                     + row.lod.residentBytes();
    }
    return bytes;
}

} // namespace spanscope::model
