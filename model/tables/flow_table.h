#pragma once
// Flows: arrows from one event to another — a CPU launch to the GPU work it started, a
// forward op to its backward op, or a user's own link. Columnar; followed both ways in
// O(log n). Immutable once finish()ed; any thread may read.

#include "../column.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace spanscope::model {

enum class FlowKind : uint8_t {
    Launch,          // a CUDA/HIP runtime or driver call -> the kernel, copy or memset it started
    ForwardBackward, // PyTorch autograd: forward op -> its backward op
    User,            // any other flow a source recorded
};
const char* flowKindName(FlowKind kind); // "launch", "fwdbwd", "user"

class FlowTable
{
public:
    void add(uint32_t from, uint32_t to, FlowKind kind);
    // Maps event indices through `newIndexOf` (old -> new) when given, leaving out the
    // flows with an end mapped to UINT32_MAX or past its size (an event left out), sorts
    // rows by (from, to) and indexes them by `to`. Call after the last add(); again to
    // move the events of a finished table.
    void finish(const std::vector<uint32_t>* newIndexOf = nullptr);

    size_t size() const { return m_from.size(); }
    bool empty() const { return m_from.empty(); }
    uint32_t from(size_t row) const { return m_from[row]; }
    uint32_t to(size_t row) const { return m_to[row]; }
    FlowKind kind(size_t row) const { return FlowKind(m_kind[row]); }

    // Rows of the flows leaving / arriving at `event`. O(log n + k).
    std::vector<size_t> outgoing(uint32_t event) const;
    std::vector<size_t> incoming(uint32_t event) const;
    // Rows of flows leaving from [firstEvent, lastEvent] as a row range (rows are sorted
    // by `from`). O(log n).
    std::pair<size_t, size_t> leavingRange(uint32_t firstEvent, uint32_t lastEvent) const;
    size_t count(FlowKind kind) const;

    size_t residentBytes() const;

private:
    Column<uint32_t> m_from, m_to;
    Column<uint8_t> m_kind;
    Column<uint32_t> m_byTo; // rows ordered by `to`
};

} // namespace spanscope::model
