#include "sync_calls.h"

#include <algorithm>

namespace spanscope::model::analysis {

namespace {

bool endsWith(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The API's name without the suffixes versions add: cuStreamSynchronize_v2, _ptsz, _ptds.
std::string_view baseName(std::string_view name)
{
    for (std::string_view suffix : {"_ptsz", "_ptds", "_v2", "_v3"})
        if (endsWith(name, suffix))
            name.remove_suffix(suffix.size());
    return name;
}

struct Record
{
    int64_t start = 0, end = 0;
    uint32_t event = 0;
    int32_t rank = 0, device = -1;
    int64_t stream = -1, waitOnStream = -1;
    SyncKind kind = SyncKind::Device;
};

} // namespace

std::optional<SyncKind> syncKindOfCall(std::string_view name)
{
    name = baseName(name);
    for (std::string_view prefix : {"cuda", "hip", "cu"}) {
        if (name.substr(0, prefix.size()) != prefix)
            continue;
        const std::string_view rest = name.substr(prefix.size());
        if (rest == "DeviceSynchronize" || rest == "CtxSynchronize" || rest == "ThreadSynchronize")
            return SyncKind::Device;
        if (rest == "StreamSynchronize")
            return SyncKind::Stream;
        if (rest == "EventSynchronize")
            return SyncKind::Event;
        if (rest == "StreamWaitEvent")
            return SyncKind::StreamWait;
    }
    return std::nullopt;
}

std::optional<SyncKind> syncKindOfRecord(std::string_view name)
{
    if (name == "Context Sync" || name == "Context Synchronize")
        return SyncKind::Device;
    if (name == "Stream Sync" || name == "Stream Synchronize")
        return SyncKind::Stream;
    if (name == "Event Sync" || name == "Event Synchronize")
        return SyncKind::Event;
    if (name == "Stream Wait Event")
        return SyncKind::StreamWait;
    return std::nullopt;
}

std::vector<SyncCall> syncCalls(const Capture& capture)
{
    const auto& e = capture.events;
    std::vector<std::optional<SyncKind>> callKind(capture.regionNames.size()), recordKind(capture.regionNames.size());
    bool any = false;
    for (uint32_t region = 0; region < capture.regionNames.size(); ++region) {
        if (isGpuActivity(capture.regionKind(region)))
            continue;
        callKind[region] = syncKindOfCall(capture.regionName(region));
        recordKind[region] = syncKindOfRecord(capture.regionName(region));
        any = any || callKind[region];
    }
    std::vector<SyncCall> calls;
    if (!any)
        return calls;
    std::vector<Record> records;
    for (uint32_t r = 0; r < capture.rows.size(); ++r) {
        const RegionRow& row = capture.rows[r];
        const auto& asCall = callKind[row.region];
        const auto& asRecord = recordKind[row.region];
        if (!asCall && !asRecord)
            continue;
        for (const uint64_t i : capture.rowEvents(row)) {
            if (e.end[i] < e.start[i])
                continue;
            const Track& track = capture.track(capture.trackOfEvent(r, i));
            if (asRecord && isGpuTrack(track.kind)) {
                Record record;
                record.start = e.start[i];
                record.end = e.end[i];
                record.event = uint32_t(i);
                record.rank = track.rank;
                record.device = track.device;
                record.stream = track.kind == TrackKind::GpuStream ? track.stream : -1;
                record.kind = *asRecord;
                records.push_back(record);
            } else if (asCall && !isGpuTrack(track.kind)) {
                calls.push_back({uint32_t(i), track.rank, *asCall, -1, -1, -1});
            }
        }
    }
    std::sort(calls.begin(), calls.end(), [](const SyncCall& a, const SyncCall& b) { return a.call < b.call; });
    if (records.empty())
        return calls;
    for (Record& record : records) {
        const auto it = std::lower_bound(capture.syncWaitStreams.begin(), capture.syncWaitStreams.end(),
                                         std::pair<uint32_t, int64_t>{record.event, INT64_MIN});
        if (it != capture.syncWaitStreams.end() && it->first == record.event)
            record.waitOnStream = it->second;
    }
    std::sort(records.begin(), records.end(), [](const Record& a, const Record& b) {
        return a.start != b.start ? a.start < b.start : a.event < b.event;
    });
    // Each record belongs to the call of its kind and rank that holds it (the profiler times
    // both on the host), the first such call of those that do; each record is used once.
    std::vector<uint8_t> used(records.size(), 0);
    for (SyncCall& call : calls) {
        const int64_t start = e.start[call.call], end = e.end[call.call];
        auto it = std::lower_bound(records.begin(), records.end(), start,
                                   [](const Record& r, int64_t t) { return r.start < t; });
        for (; it != records.end() && it->start <= end; ++it) {
            const size_t index = size_t(it - records.begin());
            if (used[index] || it->end > end || it->rank != call.rank || it->kind != call.kind)
                continue;
            used[index] = 1;
            call.device = it->device;
            call.stream = it->stream;
            call.waitOnStream = it->waitOnStream;
            break;
        }
    }
    return calls;
}

} // namespace spanscope::model::analysis
