// NvtxAssembler::addRowDurations: each row's committed calls kept from the snapshot before
// (docs/live-updates.md, "Statistics by merging").
//
// A call laid out from the memo is either one the memo's snapshot already held closed (it
// has not changed since, and is in that snapshot's committed calls) or one placed anew
// (arrived since, or open then). So a bucket's committed calls are the memo's plus those of
// its placed calls that are closed now; the ones still open are the row's pending rest. A
// bucket the memo has none for (its snapshot was laid out afresh, or the bucket was small
// then) has its calls counted once, from the events.
#include "nvtx_assembler.h"

#include "../share_out.h"

#include <algorithm>

namespace spanscope::model::live {

std::vector<NvtxAssembler::LayoutMemo::CommittedBucket> NvtxAssembler::addRowDurations(Capture& c, const Layout& layout,
                                                                                      const LayoutMemo* memo,
                                                                                      const Column<uint32_t>& eventOf) const
{
    if (!layout.fromMemo || !memo)
        return {};
    const auto regions = uint32_t(m_regionNames.size());
    const size_t buckets = layout.callsBefore.size() - 1;
    auto callsIn = [&](size_t b) { return layout.callsBefore[b + 1] - layout.callsBefore[b]; };
    // The memo's committed calls of bucket b (its numbering follows the region count then,
    // as in appendLayout()), or null.
    auto committedBefore = [&](uint32_t b) -> std::shared_ptr<const CommittedCalls> {
        const uint32_t region = b < regions ? b : b - regions;
        if (region >= memo->regions)
            return nullptr;
        const uint32_t old = b < regions ? b : memo->regions + region;
        auto it = std::lower_bound(memo->committed.begin(), memo->committed.end(), old,
                                   [](const LayoutMemo::CommittedBucket& x, uint32_t bucket) { return x.first < bucket; });
        return it != memo->committed.end() && it->first == old ? it->second : nullptr;
    };
    const auto& events = c.events;
    const std::vector<uint64_t>& openEvents = c.nvtx.closedAtEnd; // ascending
    auto span = [&](uint64_t k) { return std::pair<int64_t, int64_t>{events.start[k], events.end[k]}; };

    // The buckets large enough to keep, in order; taken largest first, so that the two
    // threads finish together.
    std::vector<uint32_t> kept;
    for (uint32_t b = 0; b < buckets; ++b)
        if (callsIn(b) > 0 && callsIn(b) >= m_options.minimumCommittedCalls)
            kept.push_back(b);
    if (kept.empty())
        return {};
    std::vector<uint32_t> largestFirst(kept.size());
    for (uint32_t item = 0; item < kept.size(); ++item)
        largestFirst[item] = item;
    std::sort(largestFirst.begin(), largestFirst.end(),
              [&](uint32_t x, uint32_t y) { return callsIn(kept[x]) > callsIn(kept[y]); });
    std::vector<LayoutMemo::CommittedBucket> committed(kept.size());
    std::vector<std::shared_ptr<const RowDurations>> durations(kept.size());
    static const auto kNone = std::make_shared<const CommittedCalls>();
    shareOut(kept.size(), [&](size_t next, int) {
        const uint32_t item = largestFirst[next], b = kept[item];
        std::vector<std::pair<int64_t, int64_t>> commit, rest;
        std::shared_ptr<const CommittedCalls> before = committedBefore(b);
        if (!before) {
            before = kNone;
            commit.reserve(callsIn(b));
            for (uint64_t s = layout.spanBegin[b]; s < layout.spanBegin[b + 1]; ++s) {
                const EventSpan held = layout.spans[s];
                auto open = std::lower_bound(openEvents.begin(), openEvents.end(), held.begin);
                for (uint64_t k = held.begin; k < held.end; ++k) {
                    const bool isOpen = open != openEvents.end() && *open == k;
                    open += isOpen;
                    (isOpen ? rest : commit).push_back(span(k));
                }
            }
        } else {
            auto placed = std::lower_bound(layout.placed.begin(), layout.placed.end(),
                                           std::pair<uint32_t, uint32_t>{b, 0});
            // Open calls are found among the open events (a few per thread), not in the calls'
            // own records: reading those, a bucket's calls far apart, cost a cache miss each.
            for (; placed != layout.placed.end() && placed->first == b; ++placed) {
                const uint64_t k = eventOf[placed->second];
                (std::binary_search(openEvents.begin(), openEvents.end(), k) ? rest : commit).push_back(span(k));
            }
        }
        committed[item] = {b, commit.empty() ? before : before->with(commit)};
        durations[item] = RowDurations::of(committed[item].second, rest);
    });
    // Rows are the buckets that hold calls, in order (see snapshot()). A row whose counts
    // disagree with its calls gets none, and its bucket is counted afresh next time: the
    // statistics then read its calls.
    c.rowDurations.assign(c.rows.size(), nullptr);
    std::vector<LayoutMemo::CommittedBucket> agreeing;
    agreeing.reserve(kept.size());
    size_t row = 0, b = 0;
    for (size_t item = 0; item < kept.size(); ++item) {
        for (; b < kept[item]; ++b)
            row += callsIn(b) > 0;
        if (row < c.rows.size() && durations[item]->calls == c.rows[row].count
            && c.rows[row].firstEvent == layout.spans[layout.spanBegin[kept[item]]].begin) {
            c.rowDurations[row] = std::move(durations[item]);
            agreeing.push_back(std::move(committed[item]));
        }
    }
    return agreeing;
}

} // namespace spanscope::model::live
