// NvtxAssembler::relayout: a snapshot's order made from the previous snapshot's.
//
// Between two snapshots of one assembler, a call that was closed at the first keeps its
// key (start, end, arrival), so the calls closed then keep their order. Only the calls that
// arrived since and those that were open then (their shown end moved with the last
// timestamp, or they closed) need a place: each is found one by searching its row of the
// old order, and the old order between them is copied. New calls mostly start after
// everything before them, so most land at the end of their row. O(events) copied plus
// O(changed · log) compared, where laying everything out (nvtx_assembler_layout.cpp) sorts
// and merges every row: at 10 M calls ~10 ms against ~120 ms here.
#include "nvtx_assembler.h"

#include <algorithm>
#include <cstring>

namespace spanscope::model::live {

namespace {

// A call's place in its row: start ascending, shown end descending (an enclosing call
// before what it encloses), then arrival. The same order as layoutAll's.
struct Key
{
    int64_t start = 0, end = 0;
    uint32_t call = 0;
};

bool before(const Key& a, const Key& b)
{
    if (a.start != b.start)
        return a.start < b.start;
    if (a.end != b.end)
        return a.end > b.end;
    return a.call < b.call;
}

} // namespace

std::optional<NvtxAssembler::Layout> NvtxAssembler::relayout(int64_t lastNs, const LayoutMemo& memo) const
{
    const size_t n = m_calls.size();
    const auto regions = uint32_t(m_regionNames.size());
    const Column<uint32_t>& old = *memo.order;
    const std::vector<uint64_t>& openEvents = memo.openEvents;
    if (old.size() != memo.calls || memo.rowBegin.size() != 2 * size_t(memo.regions) + 1
        || memo.rowBegin.back() != memo.calls
        || !std::is_sorted(openEvents.begin(), openEvents.end())
        || (!openEvents.empty() && openEvents.back() >= old.size()))
        return std::nullopt;

    // The calls to place, by bucket, each bucket in order.
    struct Changed
    {
        uint32_t bucket;
        Key key;
    };
    std::vector<Changed> changed;
    changed.reserve(openEvents.size() + (n - memo.calls));
    auto add = [&](uint32_t i) {
        const Call& call = m_calls[i];
        changed.push_back({(call.thread == kNoThread ? regions : 0u) + call.region,
                           {call.start, shownEnd(call, lastNs), i}});
    };
    for (const uint64_t e : openEvents)
        add(old[e]);
    for (size_t i = memo.calls; i < n; ++i)
        add(uint32_t(i));
    std::sort(changed.begin(), changed.end(), [](const Changed& a, const Changed& b) {
        return a.bucket != b.bucket ? a.bucket < b.bucket : before(a.key, b.key);
    });

    Layout layout{std::make_shared<Column<uint32_t>>(n), rowBegins(), true, {}};
    Column<uint32_t>& order = *layout.order;
    // The key an old event had in the memo's layout: a call open then ended at its last
    // timestamp; every other one is closed and has not changed since.
    auto oldKey = [&](uint64_t q) {
        const uint32_t i = old[q];
        const Call& call = m_calls[i];
        const bool wasOpen = std::binary_search(openEvents.begin(), openEvents.end(), q);
        return Key{call.start, wasOpen ? std::max(memo.lastNs, call.start) : call.end, i};
    };
    // The first old event in [from, to) whose key is not before `key`, galloping from
    // `from`: consecutive changed calls of a row land close together, mostly at its end.
    auto seek = [&](uint64_t from, uint64_t to, const Key& key) {
        if (from == to || before(oldKey(to - 1), key))
            return to;
        if (!before(oldKey(from), key))
            return from;
        uint64_t lo = from + 1, bound = 1;
        while (from + bound < to && before(oldKey(from + bound), key)) {
            lo = from + bound + 1;
            bound *= 2;
        }
        uint64_t hi = std::min(from + bound, to);
        while (lo < hi) {
            const uint64_t mid = lo + (hi - lo) / 2;
            if (before(oldKey(mid), key))
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    };

    auto next = changed.begin();
    const size_t buckets = layout.rowBegin.size() - 1;
    for (size_t b = 0; b < buckets; ++b) {
        // The bucket's events in the memo's numbering (its region count then).
        const size_t region = b < regions ? b : b - regions;
        const size_t oldBucket = b < regions ? b : memo.regions + region;
        uint64_t q = 0, oldEnd = 0;
        if (region < memo.regions) {
            q = memo.rowBegin[oldBucket];
            oldEnd = memo.rowBegin[oldBucket + 1];
        }
        auto open = std::lower_bound(openEvents.begin(), openEvents.end(), q);
        uint32_t* out = order.data() + layout.rowBegin[b];
        uint32_t* const outEnd = order.data() + layout.rowBegin[b + 1];
        // Copies the old events [q, to) but those open then (placed anew).
        auto copyTo = [&](uint64_t to) {
            while (q < to) {
                if (open != openEvents.end() && *open == q) {
                    ++q;
                    ++open;
                    continue;
                }
                const uint64_t stop = open != openEvents.end() && *open < to ? *open : to;
                if (uint64_t(outEnd - out) < stop - q)
                    return false;
                std::memcpy(out, old.data() + q, (stop - q) * sizeof(uint32_t));
                out += stop - q;
                q = stop;
            }
            return true;
        };
        for (; next != changed.end() && next->bucket == b; ++next) {
            if (!copyTo(seek(q, oldEnd, next->key)) || out == outEnd)
                return std::nullopt;
            *out++ = next->key.call;
        }
        if (!copyTo(oldEnd) || out != outEnd)
            return std::nullopt; // the counts disagree with the memo: not an earlier state
    }
    layout.placed.reserve(changed.size());
    for (const Changed& c : changed)
        layout.placed.emplace_back(c.bucket, c.key.call);
    return layout;
}

} // namespace spanscope::model::live
