#include "timeline_lod.h"

#include <algorithm>
#include <optional>

namespace spanscope::model {

namespace {

template <typename T> using Chunks = LodLevel::Chunks<T>;

// Makes `out` (empty) hold `count` elements of a coarser level, element i = make(i), made
// from elements [4i, 4i + 4) of the finer level's `fine`. Chunk by chunk: chunk k is
// `before`'s (the last snapshot's same level) where `beforeFine` (its finer level) holds the
// four finer chunks it is made from whole, in the same storage as `fine`, and it lies below
// `regular` elements in both (past them: an end sentinel, made afresh).
template <typename T, typename Make>
void makeByChunks(Chunks<T>& out, size_t count, size_t regular, const Chunks<T>& fine, const Chunks<T>* before,
                  size_t beforeRegular, const Chunks<T>* beforeFine, Make&& make)
{
    for (size_t k = 0; Chunks<T>::chunkBegin(k) < count; ++k) {
        const size_t end = Chunks<T>::chunkBegin(k + 1);
        bool keep = before && beforeFine && end <= regular && end <= beforeRegular && before->size() >= end;
        for (size_t f = 4 * k; keep && f < 4 * k + 4; ++f)
            keep = fine.sameWholeChunk(*beforeFine, f);
        if (keep) {
            out.appendWholeChunk(*before, k);
            continue;
        }
        for (size_t i = Chunks<T>::chunkBegin(k); i < std::min(count, end); ++i)
            out.push_back(make(i));
    }
}

// The level 4x coarser than `fine`; `before` and `beforeFine`: the same two levels of the
// last snapshot's summaries of the row, or none (see makeByChunks).
LodLevel coarsen(const LodLevel& fine, const LodLevel* before, const LodLevel* beforeFine)
{
    LodLevel coarse;
    coarse.width = fine.width * 4;
    const size_t fineBuckets = fine.buckets();
    const size_t buckets = (fineBuckets + 3) / 4;
    const size_t beforeBuckets = before ? before->buckets() : 0;
    auto was = [&](auto member) { return before && beforeFine ? &(before->*member) : nullptr; };
    auto wasFine = [&](auto member) { return before && beforeFine ? &(beforeFine->*member) : nullptr; };
    makeByChunks(coarse.first, buckets + 1, buckets, fine.first, was(&LodLevel::first), beforeBuckets,
                 wasFine(&LodLevel::first),
                 [&](size_t b) { return b < buckets ? fine.first[4 * b] : fine.first[fineBuckets]; });
    makeByChunks(coarse.longest, buckets, buckets, fine.longest, was(&LodLevel::longest), beforeBuckets,
                 wasFine(&LodLevel::longest), [&](size_t b) {
                     int64_t longest = 0;
                     for (size_t c = 4 * b; c < std::min(4 * b + 4, fineBuckets); ++c)
                         longest = std::max(longest, fine.longest[c]);
                     return longest;
                 });
    // Coarse bit b is set where any of fine bits 4b to 4b + 3 is: coarse word w from fine
    // words 4w to 4w + 3, 16 bits from each (the fine bits past the last bucket are 0).
    const size_t words = (buckets + 63) / 64;
    makeByChunks(coarse.covered, words, words, fine.covered, was(&LodLevel::covered), (beforeBuckets + 63) / 64,
                 wasFine(&LodLevel::covered), [&](size_t w) {
                     uint64_t word = 0;
                     for (size_t f = 0; f < 4 && 4 * w + f < fine.covered.size(); ++f) {
                         const uint64_t bits = fine.covered[4 * w + f];
                         const uint64_t any = bits | bits >> 1 | bits >> 2 | bits >> 3;
                         for (size_t g = 0; g < 16; ++g)
                             word |= ((any >> (4 * g)) & 1u) << (16 * f + g);
                     }
                     return word;
                 });
    return coarse;
}

} // namespace

RowLodBuilder::RowLodBuilder(int64_t firstStart, int64_t lastEnd, size_t count) : m_count(count), m_sizedFor(count)
{
    const int64_t buckets0 = int64_t(count) / RowLod::kCallsPerBucket;
    if (buckets0 < 4)
        return;
    m_building = true;
    m_lod.base = firstStart;
    // The calls do not overlap, so the last one ends last (a row that breaks this only
    // gets its coverage clipped to the last bucket, see add()).
    const int64_t span = std::max(firstStart, lastEnd) - firstStart + 1;
    m_level.width = std::max<int64_t>(1, (span + buckets0 - 1) / buckets0);
    const size_t buckets = size_t(span / m_level.width + 1);
    m_level.first.resize(buckets + 1, 0);
    m_level.longest.resize(buckets, 0);
    m_level.covered.resize((buckets + 63) / 64, 0);
}

std::optional<RowLodBuilder> RowLodBuilder::continued(int64_t lastEnd, size_t count) const
{
    if (!m_building || count > 4 * m_sizedFor)
        return std::nullopt;
    RowLodBuilder next = *this;
    next.m_count = count;
    const int64_t span = std::max(m_lod.base, lastEnd) - m_lod.base + 1;
    const size_t buckets = std::max(size_t(span / m_level.width + 1), m_level.buckets());
    next.m_level.first.resize(buckets + 1, 0);
    next.m_level.longest.resize(buckets, 0);
    next.m_level.covered.resize((buckets + 63) / 64, 0);
    return next;
}

void RowLodBuilder::setCovered(size_t b0, size_t b1)
{
    for (size_t b = b0; b <= b1;) {
        if (b % 64 == 0 && b + 63 <= b1) {
            if (m_level.covered[b / 64] != ~uint64_t(0))
                m_level.covered.edit(b / 64) = ~uint64_t(0);
            b += 64;
        } else {
            const uint64_t bit = uint64_t(1) << (b % 64);
            if (!(m_level.covered[b / 64] & bit)) // written only where it changes: a chunk
                m_level.covered.edit(b / 64) |= bit; // another snapshot shares is copied
            ++b;
        }
    }
}

RowLod RowLodBuilder::finish(const RowLod* previous)
{
    if (!m_building)
        return std::move(m_lod);
    // A call's bucket b0 is the first bucket of every bucket up to b0 that no earlier call
    // started in (starts ascend); the buckets after the last call's start, the end.
    while (m_firstSet <= m_level.buckets())
        m_level.first.edit(m_firstSet++) = uint32_t(m_count);
    m_lod.levels.push_back(std::move(m_level));
    const bool kept = previous && previous->base == m_lod.base && !previous->levels.empty()
                      && previous->levels[0].width == m_lod.levels[0].width;
    while (m_lod.levels.back().buckets() > 8) {
        const size_t l = m_lod.levels.size(); // the level made now
        const bool had = kept && l < previous->levels.size();
        m_lod.levels.push_back(coarsen(m_lod.levels.back(), had ? &previous->levels[l] : nullptr,
                                       had ? &previous->levels[l - 1] : nullptr));
    }
    m_building = false;
    return std::move(m_lod);
}

int RowLod::levelFor(int64_t pixelNs) const
{
    for (int l = int(levels.size()) - 1; l >= 0; --l)
        if (levels[size_t(l)].width * 2 <= pixelNs)
            return l;
    return -1;
}

size_t RowLod::residentBytes() const
{
    size_t bytes = 0;
    for (const auto& level : levels)
        bytes += level.first.residentBytes() + level.longest.residentBytes() + level.covered.residentBytes();
    return bytes;
}

namespace {

// The first call at row index > from (and < last) at least pixelNs long inside bucket b of
// `level`, descending to level 0 so that only one fine bucket's calls are read.
std::optional<size_t> findWide(const Capture& capture, const uint32_t* row, const RowLod& lod, int level, size_t b,
                               size_t from, int64_t pixelNs, size_t last)
{
    const auto& l = lod.levels[size_t(level)];
    if (l.longest[b] < pixelNs || l.first[b + 1] <= from + 1 || l.first[b] >= last)
        return std::nullopt;
    if (level == 0) {
        const auto& start = capture.events.start;
        const auto& end = capture.events.end;
        for (size_t k = std::max<size_t>(l.first[b], from + 1); k < std::min<size_t>(l.first[b + 1], last); ++k)
            if (end[row[k]] - start[row[k]] >= pixelNs)
                return k;
        return std::nullopt;
    }
    const auto& fine = lod.levels[size_t(level) - 1];
    for (size_t c = 4 * b; c < std::min(4 * b + 4, fine.buckets()); ++c)
        if (auto found = findWide(capture, row, lod, level - 1, c, from, pixelNs, last))
            return found;
    return std::nullopt;
}

} // namespace

size_t lodFoldEnd(const Capture& capture, const uint32_t* row, const RowLod& lod, int level, size_t from,
                  int64_t blockEnd, int64_t pixelNs, size_t last)
{
    const auto& l = lod.levels[size_t(level)];
    // A run of this many empty buckets is a gap of (about) a pixel or more.
    const int64_t gapBuckets = std::max<int64_t>(1, (pixelNs + l.width - 1) / l.width - 1);
    const int64_t offset = std::max<int64_t>(0, blockEnd - lod.base);
    size_t b = std::min(size_t(offset / l.width), l.buckets());
    int64_t emptyRun = 0;
    for (; b < l.buckets(); ++b) {
        if (l.first[b] >= last)
            return last;
        if (!l.isCovered(b)) {
            if (++emptyRun >= gapBuckets)
                return std::clamp<size_t>(l.first[b + 1 - size_t(emptyRun)], from + 1, last);
            continue;
        }
        emptyRun = 0;
        if (auto wide = findWide(capture, row, lod, level, b, from, pixelNs, last))
            return *wide;
    }
    return last;
}

} // namespace spanscope::model
