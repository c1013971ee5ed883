#pragma once
// Work shared out over the machine's first two cores, for the analysis passes that a
// 2-core machine would otherwise run on one. No pool: one helper thread per call, which
// costs ~50 µs, so callers use it only for work of milliseconds.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <thread>
#include <vector>

namespace spanscope::model {

// Calls work(item, worker) once for each item in [0, count): worker 0 is the calling
// thread, worker 1 a helper; each takes the next item when it is free, so put the largest
// items first. Everything runs on the calling thread where there is one item or one core.
// `work` must be safe to run on two threads at once for different items and workers.
template <typename Work>
void shareOut(std::size_t count, Work&& work)
{
    if (count < 2 || std::thread::hardware_concurrency() < 2) {
        for (std::size_t item = 0; item < count; ++item)
            work(item, 0);
        return;
    }
    std::atomic<std::size_t> next{0};
    auto take = [&](int worker) {
        for (std::size_t item; (item = next.fetch_add(1, std::memory_order_relaxed)) < count;)
            work(item, worker);
    };
    std::thread helper(take, 1);
    take(0);
    helper.join();
}

// Consecutive items [first, last) and the work they hold (see cutIntoChunks).
struct WorkChunk
{
    uint32_t first = 0, last = 0;
    uint64_t work = 0;
};

// Appends to `chunks` the items [0, count) cut into consecutive chunks of at most
// `perChunk` work each (a chunk holds at least one item, so a larger item is a chunk of its
// own); workOf(item) is an item's work. For passes over many small items (a capture with a
// name per range has a million rows), where an item per shareOut() item would cost a
// contended atomic operation, or an allocation, per item.
template <typename WorkOf>
void cutIntoChunks(uint32_t count, uint64_t perChunk, WorkOf&& workOf, std::vector<WorkChunk>& chunks)
{
    for (uint32_t item = 0; item < count;) {
        WorkChunk chunk{item, item, 0};
        for (; item < count; ++item) {
            const uint64_t work = workOf(item);
            if (item > chunk.first && chunk.work + work > perChunk)
                break;
            chunk.work += work;
        }
        chunk.last = item;
        chunks.push_back(chunk);
    }
}

// The order to hand `chunks` to shareOut() in: the largest first (ties in their order), so
// that the two workers finish together.
inline std::vector<uint32_t> largestFirst(const std::vector<WorkChunk>& chunks)
{
    std::vector<uint32_t> order(chunks.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return chunks[a].work > chunks[b].work; });
    return order;
}

} // namespace spanscope::model
