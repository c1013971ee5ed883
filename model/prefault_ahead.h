#pragma once
// Faulting in, off the critical path, the memory that growing stores are about to be
// written into.
//
// A live capture's stores (event columns, nesting lists, timeline rows) are reserved with
// room to grow and appended to by every update. The pages past what they hold were never
// touched; the update appending to them faults each one in, and on a virtual machine a
// fresh page costs microseconds (~2 ms per MiB here, a transparent huge page ~4 ms), the
// largest share of a live update at 10 M events. Asked after an update, a process-wide
// background thread faults in the next stretch of each store while the job runs on, so the
// next update finds its pages there.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace spanscope::model {

// Faults in the pages of [begin, begin + bytes) on the background thread
// (MADV_POPULATE_WRITE: a page already there is left as it is, contents untouched), holding
// `owner`, the memory's owner, until done. Never blocks: with too many requests pending,
// or where the kernel lacks the call, it does nothing (the writer faults the pages itself).
void prefaultAhead(std::shared_ptr<const void> owner, const void* begin, std::size_t bytes);

// After a store that has `room` values free past `end` took `appended` values in an update:
// the values the next updates are expected to take (twice as many again, at least 64 Ki,
// at most 8 MiB) faulted in ahead, holding `owner`.
template <typename T>
void prefaultNext(std::shared_ptr<const void> owner, const T* end, std::size_t room,
                  std::size_t appended)
{
    constexpr std::size_t kLeast = std::size_t(1) << 16, kMost = (std::size_t(8) << 20) / sizeof(T);
    const std::size_t ahead = std::min({2 * appended + kLeast, kMost, room});
    prefaultAhead(std::move(owner), end, ahead * sizeof(T));
}

// Faults in the page-aligned range [first, last) in steps of `step` bytes
// (MADV_POPULATE_WRITE), until done or `stop` is set; false where the kernel refuses (older
// than Linux 5.14, or the memory gone): the writer then faults the pages itself.
bool populatePages(std::uintptr_t first, std::uintptr_t last, std::uintptr_t step,
                   const std::atomic<bool>* stop = nullptr);

// The time the background thread has spent faulting pages in, ns, since the process began
// (benchmarks report it: it is work moved, not work saved).
uint64_t prefaultAheadBusyNs();

} // namespace spanscope::model
