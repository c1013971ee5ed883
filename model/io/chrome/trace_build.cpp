#include "trace_builder.h"

#include "trace_flows.h"

#include <algorithm>
#include <numeric>

namespace spanscope::model::io::chrome {

namespace builder {

void TraceBuilder::pairBeginEnds()
{
    auto& items = m_r.beginEnds;
    std::stable_sort(items.begin(), items.end(), [](const RawBeginEnd& a, const RawBeginEnd& b) {
        if (a.lane != b.lane)
            return a.lane < b.lane;
        return a.ts != b.ts ? a.ts < b.ts : a.order < b.order;
    });
    std::vector<const RawBeginEnd*> open;
    auto flush = [&]() {
        for (const RawBeginEnd* begin : open) { // never ended: kept, flagged as unclosed
            RawSlice slice = pairedSlice(*begin, static_cast<const RawBeginEnd*>(nullptr));
            slice.lane = begin->lane;
            m_r.slices.push_back(slice);
            ++m_unclosedBegins;
        }
        open.clear();
    };
    for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0 && items[i].lane != items[i - 1].lane)
            flush();
        const RawBeginEnd& item = items[i];
        if (item.begin) {
            open.push_back(&item);
            continue;
        }
        if (open.empty()) {
            ++m_unmatchedEnds;
            continue;
        }
        RawSlice slice = pairedSlice(*open.back(), &item);
        open.pop_back();
        slice.lane = item.lane;
        m_r.slices.push_back(slice);
    }
    flush();
    items.clear();
    items.shrink_to_fit();
}

void TraceBuilder::pairAsyncs()
{
    auto& items = m_r.asyncs;
    std::stable_sort(items.begin(), items.end(), [](const RawAsync& a, const RawAsync& b) {
        if (a.key != b.key)
            return a.key < b.key;
        return a.ts != b.ts ? a.ts < b.ts : a.order < b.order;
    });
    // Ranges of one id nest (b/e pairs like a stack); every range of an id goes on one lane.
    struct IdRanges
    {
        ProcessKey pid = 0;
        uint32_t cat = 0;
        int64_t first = 0, last = 0;
        std::vector<RawSlice> slices;
        std::vector<RawInstant> instants;
    };
    std::vector<IdRanges> ids;
    for (size_t i = 0; i < items.size();) {
        size_t j = i;
        IdRanges id;
        id.pid = items[i].pid;
        id.cat = items[i].cat;
        id.first = items[i].ts;
        id.last = items[i].ts;
        std::vector<const RawAsync*> open;
        for (; j < items.size() && items[j].key == items[i].key; ++j) {
            const RawAsync& item = items[j];
            id.last = std::max(id.last, item.ts);
            if (item.phase == 'b') {
                open.push_back(&item);
            } else if (item.phase == 'e') {
                if (open.empty()) {
                    ++m_unmatchedAsyncEnds;
                    continue;
                }
                id.slices.push_back(pairedSlice(*open.back(), &item));
                open.pop_back();
            } else {
                RawInstant instant;
                instant.ts = item.ts;
                instant.name = item.name;
                instant.args = item.args;
                id.instants.push_back(instant);
            }
        }
        for (const RawAsync* begin : open) { // never ended
            id.slices.push_back(pairedSlice(*begin, static_cast<const RawAsync*>(nullptr)));
            ++m_unclosedAsync;
        }
        if (!id.slices.empty() || !id.instants.empty())
            ids.push_back(std::move(id));
        i = j;
    }
    // Pack ids onto lanes per (pid, cat): an id takes the first lane free at its start.
    std::stable_sort(ids.begin(), ids.end(),
                     [](const IdRanges& a, const IdRanges& b) { return a.first < b.first; });
    std::map<std::pair<ProcessKey, uint32_t>, std::vector<uint32_t>> lanesOf;
    for (auto& id : ids) {
        auto& lanes = lanesOf[{id.pid, id.cat}];
        uint32_t chosen = kNoTrack;
        for (const uint32_t lane : lanes)
            if (m_asyncLanes[lane].busyUntil < id.first) {
                chosen = lane;
                break;
            }
        if (chosen == kNoTrack) {
            chosen = uint32_t(m_asyncLanes.size());
            m_asyncLanes.push_back({id.pid, id.cat, uint32_t(lanes.size() + 1)});
            lanes.push_back(chosen);
        }
        m_asyncLanes[chosen].busyUntil = id.last;
        for (RawSlice& slice : id.slices) {
            slice.lane = chosen;
            slice.asyncLane = true;
            m_r.slices.push_back(slice);
        }
        for (RawInstant& instant : id.instants) {
            instant.lane = chosen;
            m_asyncInstants.push_back(instant);
        }
    }
    items.clear();
    items.shrink_to_fit();
}

void TraceBuilder::layOut()
{
    const auto& slices = m_r.slices;
    const size_t n = slices.size();
    // Device owners first: GPU tracks take the rank of the process that launched their work.
    {
        std::unordered_map<uint64_t, uint32_t> launchOf;
        for (const auto& [slice, correlation] : m_r.launchCorrelations)
            launchOf.emplace(correlation, slice);
        std::map<int32_t, std::map<int32_t, uint64_t>> votes;
        for (const RawGpuActivity& activity : m_r.gpuActivities) {
            const auto it =
                activity.correlation ? launchOf.find(activity.correlation) : launchOf.end();
            if (it == launchOf.end())
                continue;
            const Lane& gpuLane = m_r.lanes[slices[activity.slice].lane];
            const int64_t device = gpuLane.key.gpu ? gpuLane.key.a : gpuLane.pid;
            const Lane& cpuLane = m_r.lanes[slices[it->second].lane];
            if (device >= 0 && device <= INT32_MAX)
                ++votes[int32_t(device)][rankOf(cpuLane.pid)];
        }
        for (const auto& [device, ranks] : votes)
            m_ownerOfDevice[device] =
                std::max_element(ranks.begin(), ranks.end(), [](auto& a, auto& b) {
                    return a.second < b.second;
                })->first;
    }

    // Tracks of every slice, then regions keyed by (name, kind).
    std::vector<uint32_t> sliceTracks(n);
    for (auto& lane : m_asyncLanes) {
        Track track;
        track.kind = TrackKind::Task;
        track.rank = rankOf(lane.pid);
        track.task = int64_t(&lane - m_asyncLanes.data());
        std::string name = m_c.strings.text(NameId{lane.cat});
        track.name = m_c.strings.intern(
            (name.empty() ? std::string("async") : name + " async") +
            (lane.number > 1 ? " " + std::to_string(lane.number) : std::string()));
        track.sortKey = int64_t(lane.number);
        lane.track = addTrack(m_c, track).value;
    }
    std::unordered_map<uint64_t, uint32_t> regionOf; // name << 8 | kind -> region
    std::vector<uint32_t> regionOfSlice(n);
    for (size_t i = 0; i < n; ++i) {
        const RawSlice& slice = slices[i];
        sliceTracks[i] = trackOfSlice(slice);
        if (!slice.asyncLane) {
            auto& tracks = m_tracksOfLane[slice.lane];
            if (std::find(tracks.begin(), tracks.end(), sliceTracks[i]) == tracks.end())
                tracks.push_back(sliceTracks[i]);
        }
        const uint64_t key = (uint64_t(slice.name) << 8) | uint64_t(slice.kind);
        auto [it, added] = regionOf.try_emplace(key, uint32_t(m_c.regionNames.size()));
        if (added) {
            m_c.regionNames.push_back(NameId{slice.name});
            m_c.regionKinds.push_back(slice.kind);
            m_c.regionCategories.push_back(NameId{slice.cat});
        }
        regionOfSlice[i] = it->second;
    }

    // Rows: one per (region, rank), ordered by region then rank; calls by (start asc, end
    // desc) within a row. A counting pass groups slices by row, then each row is sorted
    // unless it already is (the usual case: files list a thread in time order).
    std::unordered_map<uint64_t, uint32_t> provisional; // region << 32 | rank -> first-seen number
    std::vector<std::pair<uint32_t, int32_t>> keys;
    std::vector<uint32_t> rowOfSlice(n);
    for (size_t i = 0; i < n; ++i) {
        const int32_t rank = m_c.tracks[sliceTracks[i]].rank;
        const uint64_t key = (uint64_t(regionOfSlice[i]) << 32) | uint32_t(rank);
        auto [it, added] = provisional.try_emplace(key, uint32_t(keys.size()));
        if (added)
            keys.emplace_back(regionOfSlice[i], rank);
        rowOfSlice[i] = it->second;
    }
    std::vector<uint32_t> byKey(keys.size());
    std::iota(byKey.begin(), byKey.end(), 0u);
    std::sort(byKey.begin(), byKey.end(),
              [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    std::vector<uint32_t> finalRow(keys.size());
    for (uint32_t row = 0; row < byKey.size(); ++row) {
        finalRow[byKey[row]] = row;
        RegionRow r;
        r.region = keys[byKey[row]].first;
        r.rank = keys[byKey[row]].second;
        m_c.rows.push_back(r);
    }
    for (auto& row : rowOfSlice)
        row = finalRow[row];
    const uint32_t rowCount = uint32_t(keys.size());
    std::vector<uint64_t> offsets(rowCount + 1, 0);
    for (size_t i = 0; i < n; ++i)
        ++offsets[rowOfSlice[i] + 1];
    std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
    std::vector<uint32_t> order(n);
    {
        std::vector<uint64_t> next(offsets.begin(), offsets.end() - 1);
        for (size_t i = 0; i < n; ++i)
            order[next[rowOfSlice[i]]++] = uint32_t(i);
    }
    const auto before = [&](uint32_t a, uint32_t b) {
        if (slices[a].start != slices[b].start)
            return slices[a].start < slices[b].start;
        return slices[a].end > slices[b].end;
    };
    for (uint32_t row = 0; row < rowCount; ++row) {
        auto first = order.begin() + int64_t(offsets[row]),
             last = order.begin() + int64_t(offsets[row + 1]);
        if (!std::is_sorted(first, last, before))
            std::stable_sort(first, last, before);
        m_c.rows[row].firstEvent = offsets[row];
        m_c.rows[row].count = offsets[row + 1] - offsets[row];
    }

    auto& e = m_c.events;
    e.start.resize(n);
    e.end.resize(n);
    e.track.resize(n);
    bool anyArgs = false;
    for (const RawSlice& slice : slices)
        anyArgs |= slice.args != ArgsRef::kNone;
    if (anyArgs)
        e.args.resize(n);
    m_eventOfSlice.resize(n);
    for (size_t k = 0; k < n; ++k) {
        const uint32_t i = order[k];
        const RawSlice& slice = slices[i];
        e.start.mutableData()[k] = slice.start;
        e.end.mutableData()[k] = slice.end;
        e.track.set(k, sliceTracks[i]);
        if (anyArgs)
            e.args[k] = slice.args;
        m_eventOfSlice[i] = uint32_t(k);
    }
    for (auto& row : m_c.rows)
        row.track = row.count ? TrackId{e.track[m_c.rowEvents(row).front()]} : TrackId{processTrack(row.rank)};
    for (const RowSource& source : m_r.rowSources) {
        const auto kind = regionKindFromName(source.kind).value_or(RegionKind::Cpu);
        for (auto& row : m_c.rows) {
            if (row.rank != source.rank || m_c.regionKind(row.region) != kind ||
                m_c.regionName(row.region) != source.name)
                continue;
            row.sourceFile = m_c.strings.intern(source.file);
            row.sourceText = m_c.strings.intern(source.text);
            row.sourceLine = source.line;
            for (const auto& tag : source.tags)
                row.tags.push_back(m_c.strings.intern(tag));
        }
    }
    for (const auto& [slice, stream] : m_r.syncWaitStreams)
        if (m_eventOfSlice[slice] != UINT32_MAX)
            m_c.syncWaitStreams.emplace_back(m_eventOfSlice[slice], stream);
    std::sort(m_c.syncWaitStreams.begin(), m_c.syncWaitStreams.end());
    for (const RawCallExtras& extras : m_r.extras) {
        const uint32_t event = m_eventOfSlice[extras.slice];
        if (extras.gpuNs >= 0) {
            if (e.gpu.empty())
                e.gpu.assign(n, -1);
            e.gpu.mutableData()[event] = extras.gpuNs;
        }
        if (extras.awaitNs != 0) {
            if (e.awaitNs.empty())
                e.awaitNs.assign(n, 0);
            e.awaitNs.mutableData()[event] = extras.awaitNs;
        }
    }
}

Status TraceBuilder::build(const ProgressRange& progress)
{
    pairBeginEnds();
    pairAsyncs();
    progress.report(0.1);
    assignRanks();
    m_laneTrack.assign(m_r.lanes.size(), kNoTrack);
    m_tracksOfLane.assign(m_r.lanes.size(), {});
    layOut();
    progress.report(0.5);
    if (progress.cancelled())
        return Error{ErrorCode::Cancelled, "loading was cancelled", m_c.sourcePath, {}};
    addGpuActivities();
    FlowStats flowStats = linkFlows(m_r, m_c, m_eventOfSlice, m_tracksOfLane);
    if (flowStats.dangling)
        m_c.warnings.push_back(
            {std::to_string(flowStats.dangling) +
                 " flow events have no other end in the trace (a finish without a start, "
                 "or no slice on their thread to attach to); those arrows are left out",
             {}});
    progress.report(0.8);
    addInstants();
    addCounters();
    addMemory();
    for (auto& series : m_c.counters)
        series.finish();
    std::sort(m_r.devices.begin(), m_r.devices.end(),
              [](const DeviceInfo& a, const DeviceInfo& b) { return a.device < b.device; });
    m_c.devices = std::move(m_r.devices);
    addMetadata();
    m_c.args.seal();
    m_c.rowExclusive.assign(m_c.rows.size(), -1);
    progress.report(1.0);
    return Ok{};
}

} // namespace builder

Status buildTrace(TraceRecords& records, Capture& capture, const ProgressRange& progress)
{
    return builder::TraceBuilder(records, capture).build(progress);
}

} // namespace spanscope::model::io::chrome
