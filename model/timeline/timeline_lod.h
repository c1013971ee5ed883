#pragma once
// Level-of-detail summaries of one depth row, so that a zoomed-out frame folds long runs
// of sub-pixel calls without touching the calls themselves: per time bucket, the first
// call starting in it, the longest call starting in it and whether any call covers it.
// Levels are 4x coarser each; level 0 holds about kCallsPerBucket calls per bucket.
// Memory: about 0.5 bytes per call. Immutable after build; any thread.
//
// The levels are kept in chunks (ChunkedArray) so that the rows of successive live
// snapshots share what did not change: a builder going on from the last snapshot's shares
// its level 0 and copies only the chunks new calls change (copy on write), and a coarser
// level keeps the last snapshot's chunk wherever the four finer chunks it is made from are
// the same storage; an update then costs what arrived, not a copy of every summary.

#include "../capture.h"
#include "../chunked_array.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace spanscope::model {

struct LodLevel
{
    // Chunks of 16 KiB: a coarser level's chunk k is made from the finer level's chunks 4k
    // to 4k + 3.
    template <typename T> using Chunks = ChunkedArray<T, (std::size_t(16) << 10) / sizeof(T)>;

    int64_t width = 1;          // ns per bucket
    Chunks<uint32_t> first;     // buckets+1 entries: row index of the first call starting at or after the bucket
    Chunks<int64_t> longest;    // per bucket: duration of the longest call starting in it, ns (0 if none)
    Chunks<uint64_t> covered;   // bit per bucket: some call intersects the bucket

    size_t buckets() const { return longest.size(); }
    bool isCovered(size_t b) const { return (covered[b / 64] >> (b % 64)) & 1u; }
};

struct RowLod
{
    int64_t base = 0; // ns at the start of bucket 0 of every level
    std::vector<LodLevel> levels;

    static constexpr int64_t kCallsPerBucket = 32;

    // The coarsest level with at least two buckets per `pixelNs`, or -1 if none.
    int levelFor(int64_t pixelNs) const;
    size_t residentBytes() const;
};

// Builds the summaries for a depth row whose calls (sorted by start) do not overlap, as the
// caller reads the row's calls for its other figures (finishRow): made knowing the row's
// first start, last end and call count, then fed every call in order. Rows of fewer than 4
// buckets' worth of calls get no levels.
class RowLodBuilder
{
public:
    RowLodBuilder(int64_t firstStart, int64_t lastEnd, size_t count);
    RowLodBuilder() = default; // makes nothing
    // Call k of the row (k ascending from 0), from `start` to `end` (ns).
    void add(size_t k, int64_t start, int64_t end)
    {
        if (!m_building)
            return;
        const auto b0 = size_t((start - m_lod.base) / m_level.width);
        const auto b1 = end > start ? size_t((end - 1 - m_lod.base) / m_level.width) : b0;
        while (m_firstSet <= b0)
            m_level.first.edit(m_firstSet++) = uint32_t(k);
        if (end - start > m_level.longest[b0])
            m_level.longest.edit(b0) = end - start;
        setCovered(b0, std::min(b1, m_level.buckets() - 1));
    }
    // The summaries. `previous`: the same row's in the snapshot whose builder this one went
    // on from (continued()), whose coarser chunks are kept where they would be made the
    // same; or none.
    RowLod finish(const RowLod* previous = nullptr);
    // This builder (a copy kept after some of a row's calls, before finish()) made ready to
    // take the rest of a longer row: `lastEnd` and `count` are the whole row's now. Empty
    // where it made no summaries, or where the row has grown past 4 times the calls it
    // was sized for (its buckets would then hold too many calls each: build afresh).
    std::optional<RowLodBuilder> continued(int64_t lastEnd, size_t count) const;

private:
    void setCovered(size_t b0, size_t b1); // inclusive range

    RowLod m_lod;
    LodLevel m_level;
    size_t m_count = 0;
    size_t m_sizedFor = 0; // the count the buckets' width was chosen for
    size_t m_firstSet = 0; // m_level.first[0, m_firstSet) are known
    bool m_building = false;
};

// Where a fold that starts at row index `from` (a call under a pixel, ending at `blockEnd`)
// stops, decided from the summaries of `level`: before the first run of empty buckets at
// least `pixelNs` long, or at the first call at least `pixelNs` long. Returns the row index
// one past the last folded call, at most `last`. `row` maps row indices to events.
size_t lodFoldEnd(const Capture& capture, const uint32_t* row, const RowLod& lod, int level, size_t from,
                  int64_t blockEnd, int64_t pixelNs, size_t last);

} // namespace spanscope::model
