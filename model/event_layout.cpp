#include "event_layout.h"

#include <algorithm>

namespace spanscope::model {

namespace {

template <typename C> // a Column or an EventColumn
void moveColumn(C& column, const std::vector<uint32_t>& newIndexOf, uint64_t newSize)
{
    using T = typename C::value_type;
    if (column.empty())
        return;
    Column<T> moved(newSize);
    std::fill(moved.begin(), moved.end(), T{});
    const uint64_t n = std::min<uint64_t>(column.size(), newIndexOf.size());
    for (uint64_t i = 0; i < n; ++i)
        if (newIndexOf[i] != kDroppedEvent)
            moved[newIndexOf[i]] = column[i];
    column = C(std::move(moved));
}

} // namespace

void moveEvents(Capture& capture, const std::vector<uint32_t>& newIndexOf, uint64_t newSize)
{
    EventColumns& e = capture.events;
    moveColumn(e.start, newIndexOf, newSize);
    moveColumn(e.end, newIndexOf, newSize);
    for (const auto& optional : kOptionalEventColumns)
        moveColumn(e.*optional.member, newIndexOf, newSize);
    moveColumn(e.track, newIndexOf, newSize);
    moveColumn(e.args, newIndexOf, newSize);
    moveColumn(e.depth, newIndexOf, newSize);

    NvtxTables& nvtx = capture.nvtx;
    moveColumn(nvtx.callDomains, newIndexOf, newSize);
    moveColumn(nvtx.callCategories, newIndexOf, newSize);
    auto map = [&](uint64_t event) { return event < newIndexOf.size() ? newIndexOf[event] : kDroppedEvent; };
    std::vector<uint64_t> closedAtEnd;
    for (const uint64_t event : nvtx.closedAtEnd)
        if (const uint32_t moved = map(event); moved != kDroppedEvent)
            closedAtEnd.push_back(moved);
    std::sort(closedAtEnd.begin(), closedAtEnd.end());
    nvtx.closedAtEnd = std::move(closedAtEnd);
    std::vector<NvtxCrossThreadEnd> crossThreadEnds;
    for (NvtxCrossThreadEnd end : nvtx.crossThreadEnds)
        if (const uint32_t moved = map(end.event); moved != kDroppedEvent) {
            end.event = moved;
            crossThreadEnds.push_back(end);
        }
    std::sort(crossThreadEnds.begin(), crossThreadEnds.end(),
              [](const NvtxCrossThreadEnd& a, const NvtxCrossThreadEnd& b) { return a.event < b.event; });
    nvtx.crossThreadEnds = std::move(crossThreadEnds);
    for (NvtxMark& mark : nvtx.marks)
        if (mark.enclosingEvent >= 0) {
            const uint32_t moved = map(uint64_t(mark.enclosingEvent));
            mark.enclosingEvent = moved == kDroppedEvent ? -1 : int64_t(moved);
        }

    std::vector<std::pair<uint32_t, int64_t>> syncWaitStreams;
    for (const auto& [event, stream] : capture.syncWaitStreams)
        if (const uint32_t moved = map(event); moved != kDroppedEvent)
            syncWaitStreams.emplace_back(moved, stream);
    std::sort(syncWaitStreams.begin(), syncWaitStreams.end());
    capture.syncWaitStreams = std::move(syncWaitStreams);

    static_assert(kDroppedEvent == UINT32_MAX, "the tables' finish() leaves out events mapped to UINT32_MAX");
    capture.gpuActivities.finish(&newIndexOf);
    capture.flows.finish(&newIndexOf);
    capture.flowTimes = {}; // of the events as they were
    capture.nestingOrder = {};
}

bool rowsAreOneSpanEach(const Capture& capture)
{
    return std::all_of(capture.rows.begin(), capture.rows.end(),
                       [](const RegionRow& row) { return row.spanCount == 0; });
}

std::shared_ptr<Capture> withRowsInOneSpan(const Capture& capture)
{
    auto copy = std::make_shared<Capture>(capture);
    std::vector<uint32_t> newIndexOf(capture.events.size(), kDroppedEvent);
    uint64_t next = 0;
    for (RegionRow& row : copy->rows) {
        const uint64_t first = next;
        for (const uint64_t e : capture.rowEvents(row))
            if (e < newIndexOf.size())
                newIndexOf[e] = uint32_t(next++);
        row.firstEvent = first;
        row.count = next - first;
        row.firstSpan = row.spanCount = 0;
    }
    copy->rowSpans.clear();
    moveEvents(*copy, newIndexOf, next);
    return copy;
}

} // namespace spanscope::model
