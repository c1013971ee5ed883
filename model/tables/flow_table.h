#pragma once
// Flows: arrows from one event to another — a CPU launch to the GPU work it started, a
// forward op to its backward op, or a user's own link. Followed both ways in O(log n).
// Immutable once finish()ed; any thread may read.
//
// Kept in chunks that copies share (ChunkedArray): a live stream's next snapshot copies
// the table and update()s it, which rewrites only the rows from the first that changes
// (a CUDA job's new launches come after nearly every flow it had), instead of sorting
// millions of flows afresh each update.

#include "../chunked_array.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace spanscope::model {

enum class FlowKind : uint8_t {
    Launch,          // a CUDA/HIP runtime or driver call -> the kernel, copy or memset it started
    ForwardBackward, // PyTorch autograd: forward op -> its backward op
    User,            // any other flow a source recorded
    Sync,            // a runtime call -> the profiler's record of the synchronization it made
};
inline constexpr int kFlowKinds = 4;
const char* flowKindName(FlowKind kind); // "launch", "fwdbwd", "user", "sync"

class FlowTable
{
public:
    struct Flow
    {
        uint32_t from = 0, to = 0;
        FlowKind kind = FlowKind::User;
        friend bool operator==(const Flow&, const Flow&) = default;
    };

    void add(uint32_t from, uint32_t to, FlowKind kind);
    // Maps event indices through `newIndexOf` (old -> new) when given, leaving out the
    // flows with an end mapped to UINT32_MAX or past its size (an event left out), sorts
    // rows by (from, to) and indexes them by `to`. Call after the last add(); again to
    // move the events of a finished table.
    void finish(const std::vector<uint32_t>* newIndexOf = nullptr);
    // A finished table changed in place: one row equal to each of `removed` is left out
    // (those with no equal row are ignored) and `added` are put in, after the rows with
    // the same ends. O((rows from the first one changed) + changes log changes); the rows
    // before it stay shared with the copies of the table. Returns the rows left out.
    std::vector<Flow> update(std::vector<Flow> removed, std::vector<Flow> added);

    size_t size() const { return m_rows.size(); }
    bool empty() const { return m_rows.empty(); }
    uint32_t from(size_t row) const { return m_rows[row].from; }
    uint32_t to(size_t row) const { return m_rows[row].to; }
    FlowKind kind(size_t row) const { return m_rows[row].kind; }

    // Rows of the flows leaving / arriving at `event`. O(log n + k).
    std::vector<size_t> outgoing(uint32_t event) const;
    std::vector<size_t> incoming(uint32_t event) const;
    // Rows of flows leaving from [firstEvent, lastEvent] as a row range (rows are sorted
    // by `from`). O(log n).
    std::pair<size_t, size_t> leavingRange(uint32_t firstEvent, uint32_t lastEvent) const;
    // The rows of the flows from `from` to `to`, as a row range. O(log n).
    std::pair<size_t, size_t> rowsOf(uint32_t from, uint32_t to) const;
    size_t count(FlowKind kind) const;

    size_t residentBytes() const;

private:
    static uint64_t key(uint32_t high, uint32_t low) { return (uint64_t(high) << 32) | low; }
    // The first row whose (from, to) is not below `fromTo`.
    size_t lowerBound(uint64_t fromTo) const;

    ChunkedArray<Flow, 16384> m_rows;    // sorted by (from, to), ties in the order added
    ChunkedArray<uint64_t, 65536> m_byTo; // (to << 32 | from) of every row, ascending
};

} // namespace spanscope::model
