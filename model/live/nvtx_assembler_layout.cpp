// NvtxAssembler::layout: the order in which a snapshot lays the calls out.
#include "nvtx_assembler.h"

#include "../share_out.h"
#include "lane_merge.h"

#include <algorithm>
#include <numeric>

namespace spanscope::model::live {

NvtxAssembler::Layout NvtxAssembler::layout(int64_t lastNs, LayoutMemo* memo) const
{
    if (memo && canRelayout(*memo))
        if (auto kept = appendLayout(lastNs, *memo))
            return std::move(*kept);
    return layoutAll(lastNs);
}

Column<uint64_t> NvtxAssembler::callsPerBucket() const
{
    const auto regions = uint32_t(m_regionNames.size());
    Column<uint64_t> rowBegin(2 * size_t(regions) + 1, 0);
    for (size_t r = 0; r < m_cpuCallsOfRegion.size(); ++r) // counted as calls arrived
        rowBegin[r + 1] = m_cpuCallsOfRegion[r];
    for (size_t r = 0; r < m_gpuCallsOfRegion.size(); ++r)
        rowBegin[regions + r + 1] = m_gpuCallsOfRegion[r];
    std::partial_sum(rowBegin.begin(), rowBegin.end(), rowBegin.begin());
    return rowBegin;
}

NvtxAssembler::Layout NvtxAssembler::layoutAll(int64_t lastNs) const
{
    // Bucketed by row in one pass, then each row sorted on its own by compact keys (sorting
    // 16-byte keys beats comparing through the call table: at 10 M calls, seconds to a
    // fraction of one). A thread's calls of a region arrive in start order (recursion
    // aside), so a row is one sorted run per thread, interleaved: with few threads it is
    // split by thread and the runs merged pairwise (log2(threads) passes), not sorted.
    const size_t n = m_calls.size();
    const auto regions = uint32_t(m_regionNames.size());
    auto rowOf = [&](const Call& call) { return (call.thread == kNoThread ? regions : 0u) + call.region; };
    Column<uint64_t> rowBegin = callsPerBucket();
    struct Key
    {
        int64_t start;
        uint32_t call;
        uint32_t lane; // the call's thread; GPU work (no thread) after every thread
    };
    const size_t lanes = m_threads.size() + 1;
    Column<Key> keys(n); // columns: no zero-fill, huge pages (a page fault costs microseconds on a VM)
    {
        std::vector<uint64_t> next(rowBegin.begin(), rowBegin.end() - 1);
        for (size_t i = 0; i < n; ++i) {
            const Call& call = m_calls[i];
            keys[next[rowOf(call)]++] = {call.start, uint32_t(i), call.thread == kNoThread ? uint32_t(lanes - 1) : call.thread};
        }
    }
    auto byStart = [](const Key& a, const Key& b) { return a.start != b.start ? a.start < b.start : a.call < b.call; };
    // Calls starting together: the longer first (it encloses the other), then arrival.
    auto tie = [&](const Key& a, const Key& b) {
        const int64_t x = shownEnd(m_calls[a.call], lastNs), y = shownEnd(m_calls[b.call], lastNs);
        return x != y ? x > y : a.call < b.call;
    };
    // Rows sorted on both cores, the largest first so that the two finish together.
    std::vector<uint32_t> rows(rowBegin.size() - 1);
    std::iota(rows.begin(), rows.end(), 0u);
    std::sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
        return rowBegin[a + 1] - rowBegin[a] > rowBegin[b + 1] - rowBegin[b];
    });
    const bool byThread = lanes <= kMaxMergedLanes;
    Column<Key> scratch(byThread ? n : 0); // mapped, not touched: rows in order need none of it
    auto sortRow = [&](size_t item, int) {
        const uint32_t row = rows[item];
        const auto first = keys.begin() + int64_t(rowBegin[row]), last = keys.begin() + int64_t(rowBegin[row + 1]);
        if (!std::is_sorted(first, last, byStart)) { // else recorded in order already
            if (byThread) // through scratch at the same place
                mergeLanes(keys.data() + rowBegin[row], scratch.data() + rowBegin[row],
                           rowBegin[row + 1] - rowBegin[row], lanes, [](const Key& k) { return k.lane; }, byStart);
            else
                std::sort(first, last, byStart);
        }
        for (auto run = first; run != last;) {
            auto runEnd = std::find_if(run + 1, last, [&](const Key& k) { return k.start != run->start; });
            if (runEnd - run > 1)
                std::sort(run, runEnd, tie);
            run = runEnd;
        }
    };
    if (n >= kParallelMinimumCalls)
        shareOut(rows.size(), sortRow);
    else
        for (size_t item = 0; item < rows.size(); ++item)
            sortRow(item, 0);
    Layout layout;
    layout.order = std::make_shared<Column<uint32_t>>();
    Column<uint32_t>& order = *layout.order;
    order.reserve(2 * n); // room for the next layouts to append to (mapped, not touched)
    order.resize(n);
    for (size_t k = 0; k < n; ++k)
        order[k] = keys[k].call;
    // A span per bucket that holds calls.
    const size_t buckets = rowBegin.size() - 1;
    layout.spanBegin.resize(buckets + 1);
    layout.spans.reserve(buckets);
    for (size_t b = 0; b < buckets; ++b) {
        layout.spanBegin[b] = layout.spans.size();
        if (rowBegin[b + 1] != rowBegin[b])
            layout.spans.push_back({rowBegin[b], rowBegin[b + 1]});
    }
    layout.spanBegin[buckets] = layout.spans.size();
    layout.callsBefore = std::move(rowBegin);
    return layout;
}

} // namespace spanscope::model::live
