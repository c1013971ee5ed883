#pragma once
// Work shared out over the machine's first two cores, for the analysis passes that a
// 2-core machine would otherwise run on one. No pool: one helper thread per call, which
// costs ~50 µs, so callers use it only for work of milliseconds.

#include <atomic>
#include <cstddef>
#include <thread>

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

} // namespace spanscope::model
