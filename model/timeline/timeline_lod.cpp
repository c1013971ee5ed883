#include "timeline_lod.h"

#include <algorithm>
#include <optional>

namespace spanscope::model {

namespace {

LodLevel coarsen(const LodLevel& fine)
{
    LodLevel coarse;
    coarse.width = fine.width * 4;
    const size_t buckets = (fine.buckets() + 3) / 4;
    coarse.first.resize(buckets + 1);
    coarse.longest.assign(buckets, 0);
    coarse.covered.assign((buckets + 63) / 64, 0);
    for (size_t b = 0; b < buckets; ++b) {
        coarse.first[b] = fine.first[4 * b];
        for (size_t c = 4 * b; c < std::min(4 * b + 4, fine.buckets()); ++c) {
            coarse.longest[b] = std::max(coarse.longest[b], fine.longest[c]);
            if (fine.isCovered(c))
                coarse.covered[b / 64] |= uint64_t(1) << (b % 64);
        }
    }
    coarse.first[buckets] = fine.first[fine.buckets()];
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
    m_level.first.resize(buckets + 1);
    m_level.longest.assign(buckets, 0);
    m_level.covered.assign((buckets + 63) / 64, 0);
}

std::optional<RowLodBuilder> RowLodBuilder::continued(int64_t lastEnd, size_t count) const
{
    if (!m_building || count > 4 * m_sizedFor)
        return std::nullopt;
    RowLodBuilder next = *this;
    next.m_count = count;
    const int64_t span = std::max(m_lod.base, lastEnd) - m_lod.base + 1;
    const size_t buckets = std::max(size_t(span / m_level.width + 1), m_level.buckets());
    next.m_level.first.resize(buckets + 1);
    next.m_level.longest.resize(buckets, 0);
    next.m_level.covered.resize((buckets + 63) / 64, 0);
    return next;
}

void RowLodBuilder::setCovered(size_t b0, size_t b1)
{
    for (size_t b = b0; b <= b1;) {
        if (b % 64 == 0 && b + 63 <= b1) {
            m_level.covered[b / 64] = ~uint64_t(0);
            b += 64;
        } else {
            m_level.covered[b / 64] |= uint64_t(1) << (b % 64);
            ++b;
        }
    }
}

RowLod RowLodBuilder::finish()
{
    if (!m_building)
        return std::move(m_lod);
    // A call's bucket b0 is the first bucket of every bucket up to b0 that no earlier call
    // started in (starts ascend); the buckets after the last call's start, the end.
    while (m_firstSet <= m_level.buckets())
        m_level.first[m_firstSet++] = uint32_t(m_count);
    m_lod.levels.push_back(std::move(m_level));
    while (m_lod.levels.back().buckets() > 8)
        m_lod.levels.push_back(coarsen(m_lod.levels.back()));
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
        bytes += level.first.capacity() * sizeof(uint32_t) + level.longest.capacity() * sizeof(int64_t)
                 + level.covered.capacity() * sizeof(uint64_t);
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
