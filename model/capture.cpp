#include "capture.h"

#include <algorithm>

namespace spanscope::model {

const char* storageLayoutName(StorageLayout layout)
{
    switch (layout) {
    case StorageLayout::PerRankGroups: return "per-rank";
    case StorageLayout::Columnar: return "columnar";
    case StorageLayout::Aggregate: return "aggregate";
    }
    return "unknown";
}

const ThreadInfo* Capture::thread(int32_t rank, int64_t index) const
{
    for (const auto& info : threads)
        if (info.rank == rank && info.index == index)
            return &info;
    return nullptr;
}

const TaskInfo* Capture::task(int32_t rank, int64_t index) const
{
    for (const auto& info : tasks)
        if (info.rank == rank && info.index == index)
            return &info;
    return nullptr;
}

int64_t NvtxTables::endThreadOf(uint64_t event) const
{
    const auto it = std::lower_bound(crossThreadEnds.begin(), crossThreadEnds.end(), event,
                                     [](const NvtxCrossThreadEnd& end, uint64_t e) { return end.event < e; });
    return it != crossThreadEnds.end() && it->event == event ? it->endThread : -1;
}

namespace {
template <typename Vector>
size_t bytesOf(const Vector& column)
{
    return column.capacity() * sizeof(typename Vector::value_type);
}
} // namespace

uint64_t Capture::callCount() const
{
    uint64_t calls = 0;
    for (const RegionRow& row : rows)
        calls += row.count;
    return calls;
}

size_t Capture::residentBytes() const
{
    const auto& e = events;
    size_t bytes = bytesOf(e.start) + bytesOf(e.end) + bytesOf(e.track) + bytesOf(e.args) + bytesOf(e.depth);
    for (const auto& optional : kOptionalEventColumns)
        bytes += bytesOf(e.*optional.member);
    for (const auto& series : counters)
        bytes += series.residentBytes();
    return bytes + rows.capacity() * sizeof(RegionRow) + bytesOf(rowSpans) + bytesOf(rowExclusive) + bytesOf(laneExclusive)
           + tracks.capacity() * sizeof(Track) + gpuActivities.residentBytes() + flows.residentBytes()
           + instants.residentBytes() + allocations.residentBytes() + args.residentBytes()
           + countedAllocations.capacity() * sizeof(CountedAllocations)
           + bytesOf(nvtx.callDomains) + bytesOf(nvtx.callCategories) + bytesOf(nvtx.crossThreadEnds);
}

int64_t Capture::threadOfEvent(uint32_t row, uint64_t e) const
{
    if (events.hasThreads())
        return events.threadIds[e];
    const TrackId id = trackOfEvent(row, e);
    return id.valid() && id.value < tracks.size() ? tracks[id.value].thread : -1;
}

} // namespace spanscope::model
