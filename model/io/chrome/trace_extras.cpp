// What a trace holds besides calls (trace_builder.h): GPU activities, instants, counters,
// memory events and metadata.
#include "trace_builder.h"

#include <string>
#include <utility>

namespace spanscope::model::io::chrome::builder {

void TraceBuilder::addGpuActivities()
{
    for (const RawGpuActivity& activity : m_r.gpuActivities) {
        const uint32_t event = m_eventOfSlice[activity.slice];
        if (activity.kernel)
            m_c.gpuActivities.addKernel(event, activity.correlation, activity.context,
                                        *activity.kernel);
        else if (activity.copyBytes)
            m_c.gpuActivities.addCopy(event, activity.correlation, activity.context,
                                      *activity.copyBytes, activity.copyKind);
        else
            m_c.gpuActivities.addOther(event, activity.correlation, activity.context);
    }
    m_c.gpuActivities.finish();
}

void TraceBuilder::addInstants()
{
    for (const RawInstant& instant : m_r.instants) {
        uint32_t track = kNoTrack;
        if (instant.scope == 'g')
            track = processTrack(m_firstRank);
        else if (instant.scope == 'p')
            track = processTrack(rankOf(m_r.lanes[instant.lane].pid));
        else
            track = trackOfLane(instant.lane);
        m_c.instants.add(instant.ts, TrackId{track}, NameId{instant.name}, ArgsRef{instant.args});
    }
    for (const RawInstant& instant : m_asyncInstants)
        m_c.instants.add(instant.ts, TrackId{m_asyncLanes[instant.lane].track},
                         NameId{instant.name}, ArgsRef{instant.args});
    m_c.instants.finish();
}

CounterSeries& TraceBuilder::seriesOf(uint32_t track)
{
    return m_c.counters[m_seriesOfTrack.at(track)];
}

void TraceBuilder::addCounters()
{
    for (const auto& [key, samples] : m_r.counters) {
        CounterSeries& series = seriesOf(counterTrack(rankOf(key.first), -1, key.second, ""));
        for (const RawCounterSample& sample : samples)
            series.add(sample.ts, sample.value);
    }
}

void TraceBuilder::addMemory()
{
    for (const RawMemory& memory : m_r.memory) {
        const uint32_t track = trackOfLane(memory.lane);
        m_c.allocations.add(memory.ts, TrackId{track}, memory.address, memory.bytes, memory.device);
        const int32_t rank = m_c.tracks[track].rank;
        // PyTorch's caching allocator reports its totals after each event: the counters.
        auto sample = [&](const char* name, const std::optional<int64_t>& value) {
            if (value)
                seriesOf(counterTrack(rank, memory.device, name, "bytes"))
                    .add(memory.ts, double(*value));
        };
        sample(memory.device < 0 ? "host allocated" : "allocated", memory.totalAllocated);
        sample(memory.device < 0 ? "host reserved" : "reserved", memory.totalReserved);
    }
    m_c.allocations.finish();
}

std::string TraceBuilder::processLabel(ProcessKey pid) const
{
    const auto named = m_r.stringPids.find(std::to_string(pid));
    std::string label =
        named != m_r.stringPids.end() ? "\"" + named->second + "\"" : "pid " + std::to_string(pid);
    const auto meta = m_r.processes.find(pid);
    if (meta != m_r.processes.end() && !meta->second.name.empty())
        label += " " + meta->second.name;
    return label;
}

void TraceBuilder::addMetadata()
{
    Metadata metadata;
    auto text = [](std::string value) {
        MetadataValue v;
        v.kind = MetadataValue::Kind::String;
        v.text = std::move(value);
        return v;
    };
    auto integer = [](int64_t value) {
        MetadataValue v;
        v.kind = MetadataValue::Kind::Integer;
        v.integer = value;
        return v;
    };
    metadata.push_back(
        {"format", text(m_r.kineto ? "PyTorch profiler (Kineto) trace" : "Chrome trace")});
    MetadataValue processes;
    processes.kind = MetadataValue::Kind::StringList;
    for (const ProcessKey pid : m_cpuPids)
        processes.list.push_back("rank " + std::to_string(rankOf(pid)) + ": " + processLabel(pid));
    if (!processes.list.empty())
        metadata.push_back({"processes", processes});
    if (m_r.distributedRank)
        metadata.push_back({"distributed_rank", integer(*m_r.distributedRank)});
    if (m_r.worldSize)
        metadata.push_back({"world_size", integer(*m_r.worldSize)});
    if (m_r.profilerSpans)
        metadata.push_back({"profiler_spans", integer(int64_t(m_r.profilerSpans))});
    for (auto& entry : m_r.metadata)
        metadata.push_back(std::move(entry));
    m_c.metadata = std::move(metadata);

    auto warn = [&](uint64_t count, const std::string& what) {
        if (count)
            m_c.warnings.push_back({std::to_string(count) + " " + what, {}});
    };
    for (auto& warning : m_r.warnings)
        m_c.warnings.push_back(std::move(warning));
    warn(m_unmatchedEnds, "'E' events end nothing that began on their thread; left out");
    warn(m_unclosedBegins, "'B' events never ended; kept as calls that never closed");
    warn(m_unmatchedAsyncEnds, "async 'e' events end an id that is not open; left out");
    warn(m_unclosedAsync, "async ranges never ended; kept as calls that never closed");
    if (m_r.skippedEvents)
        m_c.warnings.push_back({std::to_string(m_r.skippedEvents) +
                                    " events could not be used; first: " + m_r.firstSkipped,
                                {}});
    for (const auto& [phase, count] : m_r.unknownPhases)
        m_c.warnings.push_back({std::to_string(count) + " events of phase '" + phase +
                                    "' are not shown (spanscope does not read that phase)",
                                {}});
}

} // namespace spanscope::model::io::chrome::builder
