// Keeps ranges whole when the sender must drop a frame (a viewer that does not read):
// instead of losing a pop whose push already went out, or an end whose start did (the viewer
// would see a range that never closes), a dropped frame gives up only whole ranges and
// instants, and a later frame never carries the pop of a push (or the end of a start) that
// was dropped. Sender thread only; no Qt.
//
// Every chunk of thread records the sender handles goes through prepare(), then either
// sent() or dropped(). Across chunks it keeps, per thread, the stack of open push levels
// over all domains (as the rings count depth) with whether each push went out, and the ids
// of start/end ranges whose start was dropped.
#pragma once

#include "protocol/spanscope_protocol.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace spanscope::collector {

class PairKeeper
{
public:
    // Before a chunk is sent: removes in place the records that close a range whose opening
    // record was dropped earlier (they are lost with it), shrinking `size`, and returns how
    // many it removed. Pops and ends of ranges opened before this chunk are settled here,
    // whatever happens to the chunk.
    std::size_t prepare(char* data, std::size_t& size)
    {
        m_local.clear();
        m_localStarts.clear();
        m_lastLocal = nullptr;
        std::size_t removed = 0, out = 0;
        walk(data, size, [&](const protocol::RecordHeader& h, const char* record) {
            bool remove = false;
            if (protocol::isPushType(h.type)) {
                ++localOf(record);
            } else if (protocol::isPopType(h.type)) {
                int& open = localOf(record);
                if (open > 0) {
                    --open; // its push is in this chunk: they share the chunk's fate
                } else {
                    std::vector<bool>& stack = stackOf(record);
                    if (!stack.empty()) { // else a stray pop: it stays, the viewer counts it
                        remove = stack.back();
                        stack.pop_back();
                    }
                }
            } else if (h.type == type(protocol::RecordType::RangeStart)) {
                m_localStarts.insert(rangeId(record));
            } else if (h.type == type(protocol::RecordType::RangeEnd)) {
                const std::uint64_t id = rangeId(record);
                remove = m_localStarts.count(id) == 0 && m_droppedStarts.erase(id) > 0;
            }
            if (remove) {
                ++removed;
            } else {
                if (data + out != record) // moves only after a removal
                    std::memmove(data + out, record, h.size);
                out += h.size;
            }
        });
        size = out;
        return removed;
    }

    // The prepared chunk went out: its pushes still open are open and sent.
    void sent()
    {
        for (const auto& [tid, open] : m_local)
            m_threads[tid].insert(m_threads[tid].end(), std::size_t(open), false);
        m_local.clear();
        m_localStarts.clear();
    }

    // The prepared chunk [data, data + size) cannot go out. Appends to `keep` the records
    // that must still be sent (pops and ends of ranges opened before it, which went out)
    // and returns how many records are lost: whole ranges and marks only.
    std::size_t dropped(const char* data, std::size_t size, std::string& keep)
    {
        std::unordered_map<std::uint32_t, int> open;
        std::unordered_set<std::uint64_t> started;
        std::size_t lost = 0;
        walk(data, size, [&](const protocol::RecordHeader& h, const char* record) {
            bool closesEarlier = false;
            if (protocol::isPushType(h.type)) {
                ++open[tidOf(record)];
            } else if (protocol::isPopType(h.type)) {
                int& level = open[tidOf(record)];
                closesEarlier = level == 0;
                level -= level > 0 ? 1 : 0;
            } else if (h.type == type(protocol::RecordType::RangeStart)) {
                started.insert(rangeId(record));
            } else if (h.type == type(protocol::RecordType::RangeEnd)) {
                closesEarlier = started.erase(rangeId(record)) == 0;
            }
            if (closesEarlier)
                keep.append(record, h.size);
            else
                ++lost;
        });
        for (const auto& [tid, count] : open)
            m_threads[tid].insert(m_threads[tid].end(), std::size_t(count), true);
        m_droppedStarts.insert(started.begin(), started.end());
        m_local.clear();
        m_localStarts.clear();
        return lost;
    }

    void clear()
    {
        m_threads.clear();
        m_droppedStarts.clear();
        m_local.clear();
        m_localStarts.clear();
        m_lastLocal = nullptr;
    }

private:
    static constexpr std::uint16_t type(protocol::RecordType t) { return std::uint16_t(t); }

    template <typename Visit> static void walk(const char* data, std::size_t size, Visit visit)
    {
        for (std::size_t pos = 0; pos + sizeof(protocol::RecordHeader) <= size;) {
            protocol::RecordHeader h;
            std::memcpy(&h, data + pos, sizeof h);
            if (h.size < sizeof h || pos + h.size > size)
                break; // cannot happen with the collector's own records
            visit(h, data + pos); // may move the record down (prepare): it reads it first
            pos += h.size;
        }
    }

    // Every thread record has its tid right after the header.
    static std::uint32_t tidOf(const char* record)
    {
        std::uint32_t tid;
        std::memcpy(&tid, record + sizeof(protocol::RecordHeader), sizeof tid);
        return tid;
    }

    // Pushes of this chunk still open on the record's thread. A drained batch holds one
    // thread's records after another: the map is looked up when the thread changes only.
    int& localOf(const char* record)
    {
        const std::uint32_t tid = tidOf(record);
        if (!m_lastLocal || tid != m_lastLocalTid) {
            m_lastLocal = &m_local[tid];
            m_lastLocalTid = tid;
        }
        return *m_lastLocal;
    }

    std::vector<bool>& stackOf(const char* record) { return m_threads[tidOf(record)]; }

    static std::uint64_t rangeId(const char* record)
    {
        static_assert(offsetof(protocol::RangeStartRecord, rangeId) ==
                      offsetof(protocol::RangeEndRecord, rangeId));
        std::uint64_t id;
        std::memcpy(&id, record + offsetof(protocol::RangeStartRecord, rangeId), sizeof id);
        return id;
    }

    // Open push levels per thread before the current chunk: true where the push was dropped.
    std::unordered_map<std::uint32_t, std::vector<bool>> m_threads;
    std::unordered_set<std::uint64_t> m_droppedStarts;
    // The chunk being prepared: pushes opened in it and still open, per thread; its starts.
    std::unordered_map<std::uint32_t, int> m_local;
    std::unordered_set<std::uint64_t> m_localStarts;
    std::uint32_t m_lastLocalTid = 0;
    int* m_lastLocal = nullptr; // &m_local[m_lastLocalTid]; stable (node-based map)
};

} // namespace spanscope::collector
