#include "capture.h"

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

namespace {
template <typename Vector>
size_t bytesOf(const Vector& column)
{
    return column.capacity() * sizeof(typename Vector::value_type);
}
} // namespace

size_t Capture::residentBytes() const
{
    const auto& e = events;
    return bytesOf(e.start) + bytesOf(e.end) + bytesOf(e.gpu) + bytesOf(e.callIds)
           + bytesOf(e.parentIds) + bytesOf(e.threadIds) + bytesOf(e.taskIds)
           + bytesOf(e.awaitNs) + bytesOf(e.depth) + rows.capacity() * sizeof(RegionRow)
           + bytesOf(rowExclusive) + bytesOf(laneExclusive);
}

} // namespace spanscope::model
