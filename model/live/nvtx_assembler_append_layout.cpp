// NvtxAssembler::appendLayout: a snapshot's layout made from the previous snapshot's by
// appending, so that a closed call keeps its event from one snapshot to the next
// (docs/live-updates.md, step 2).
//
// Between two snapshots of one assembler, a call that was closed at the first keeps its key
// (start, end, arrival), so the calls closed then keep their order in their row, and their
// events. Only the calls that arrived since and those that were open then (their shown end
// moved with the last timestamp, or they closed) need a place: each is found by searching
// its row of the old layout, and they are appended past the end of every earlier snapshot's
// events, a bucket's in order, so that those landing between the same two old calls are one
// span. A row is then the old row's spans, cut where calls land between them, with the new
// spans in between; most calls land among its last ones, and those take the calls after
// them along (one span per row and update). The events of the calls open then, and of those
// taken along, are left behind, held by no row; past a quarter of the columns, or when the
// rows' spans grow too many, the snapshot is laid out afresh instead.
//
// O(changed · log) compared plus O(spans) copied (and the order, 4 bytes per event, when it
// has no room left to append to).
#include "nvtx_assembler.h"

#include "lane_merge.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace spanscope::model::live {

namespace {

// A call's place in its row: start ascending, shown end descending (an enclosing call
// before what it encloses), then arrival. The same order as layoutAll's.
using Key = NvtxAssembler::LayoutMemo::AppendScratch::Key;

bool before(const Key& a, const Key& b)
{
    if (a.start != b.start)
        return a.start < b.start;
    if (a.end != b.end)
        return a.end > b.end;
    return a.call < b.call;
}

// Calls placed anew landing among a row's last max(NvtxAssemblerOptions::takeAlongWindow,
// kTakeAlongPerCall x their number) calls take the old calls after them along.
constexpr uint64_t kTakeAlongPerCall = 4;
// Events no row holds may make up this share of the columns before they are laid out afresh
// (above a floor: a small capture's cost little to keep).
constexpr uint64_t kMostLeftBehind = 4; // one in four
constexpr uint64_t kLeftBehindFloor = uint64_t(1) << 16;
// Nor may the rows' spans outnumber the events by more than this ratio (a row of many spans
// is read span by span), above a floor for small captures.
constexpr uint64_t kEventsPerSpan = 256;
constexpr uint64_t kSpansFloor = uint64_t(1) << 16;

// A row of the memo's layout: its spans, and the position of each one's first call.
class OldRow
{
public:
    OldRow(std::span<const EventSpan> spans, std::vector<uint64_t>& positions)
        : m_spans(spans), m_positions(positions)
    {
        m_positions.clear();
        uint64_t at = 0;
        for (const EventSpan& s : spans) {
            m_positions.push_back(at);
            at += s.size();
        }
        m_size = at;
    }
    uint64_t size() const { return m_size; }
    // The event of the row's p-th call (p < size()).
    uint64_t event(uint64_t p) const
    {
        const size_t s = size_t(std::upper_bound(m_positions.begin(), m_positions.end(), p) -
                                m_positions.begin()) -
                         1;
        return m_spans[s].begin + (p - m_positions[s]);
    }
    // Calls [from, to) as spans of events, in order.
    template <typename Emit> void spans(uint64_t from, uint64_t to, Emit&& emit) const
    {
        if (from >= to)
            return;
        size_t s = size_t(std::upper_bound(m_positions.begin(), m_positions.end(), from) -
                          m_positions.begin()) -
                   1;
        for (; s < m_spans.size() && m_positions[s] < to; ++s) {
            const uint64_t first = std::max(from, m_positions[s]) - m_positions[s];
            const uint64_t last = std::min(to, m_positions[s] + m_spans[s].size()) - m_positions[s];
            emit(EventSpan{m_spans[s].begin + first, m_spans[s].begin + last});
        }
    }

private:
    std::span<const EventSpan> m_spans;
    std::vector<uint64_t>& m_positions;
    uint64_t m_size = 0;
};

} // namespace

std::optional<NvtxAssembler::Layout> NvtxAssembler::appendLayout(int64_t lastNs,
                                                                 LayoutMemo& memo) const
{
    const size_t n = m_calls.size();
    const auto regions = uint32_t(m_regionNames.size());
    const Column<uint32_t>& old = *memo.order;
    const uint64_t oldEvents = old.size();
    const std::vector<uint64_t>& openEvents = memo.openEvents;
    const size_t oldBuckets = 2 * size_t(memo.regions);
    if (memo.callsBefore.size() != oldBuckets + 1 || memo.callsBefore.back() != memo.calls ||
        memo.spanBegin.size() != oldBuckets + 1 || memo.spanBegin.back() != memo.spans.size() ||
        !std::is_sorted(openEvents.begin(), openEvents.end()) ||
        (!openEvents.empty() && openEvents.back() >= oldEvents))
        return std::nullopt;
    for (const EventSpan& s : memo.spans)
        if (s.begin >= s.end || s.end > oldEvents)
            return std::nullopt;
    for (const uint64_t e : openEvents)
        if (old[e] >= n)
            return std::nullopt;

    // The calls to place (open then, or arrived since), grouped by bucket in a counting
    // pass, then each bucket put in order by merging its threads' runs (lane_merge.h): a
    // sort of them all cost ~10 ms per 100,000 calls. In the memo's scratch memory.
    LayoutMemo::AppendScratch& scratch = memo.scratch;
    const size_t buckets = 2 * size_t(regions); // as callsPerBucket() numbers them
    const auto lanes = uint32_t(m_threads.size() + 1);
    auto bucketOf = [&](const Call& call) { return (call.thread == kNoThread ? regions : 0u) + call.region; };
    auto forEachChanged = [&](auto&& visit) {
        for (const uint64_t e : openEvents)
            visit(old[e]);
        for (size_t i = memo.calls; i < n; ++i)
            visit(uint32_t(i));
    };
    std::vector<uint64_t>& changedBefore = scratch.changedBefore;
    changedBefore.assign(buckets + 1, 0);
    forEachChanged([&](uint32_t i) { ++changedBefore[bucketOf(m_calls[i]) + 1]; });
    std::partial_sum(changedBefore.begin(), changedBefore.end(), changedBefore.begin());
    std::vector<Key>& changed = scratch.changed;
    changed.resize(changedBefore.back());
    scratch.next.assign(changedBefore.begin(), changedBefore.end() - 1);
    forEachChanged([&](uint32_t i) {
        const Call& call = m_calls[i];
        changed[scratch.next[bucketOf(call)]++] = {call.start, shownEnd(call, lastNs), i,
                                                   call.thread == kNoThread ? lanes - 1 : call.thread};
    });
    for (size_t b = 0; b < buckets; ++b) {
        Key* const first = changed.data() + changedBefore[b];
        const uint64_t count = changedBefore[b + 1] - changedBefore[b];
        if (count < 2 || std::is_sorted(first, first + count, before))
            continue;
        if (lanes <= kMaxMergedLanes) {
            scratch.merged.resize(std::max(scratch.merged.size(), size_t(count)));
            mergeLanes(first, scratch.merged.data(), count, lanes, [](const Key& k) { return k.lane; }, before);
        } else {
            std::sort(first, first + count, before);
        }
    }

    Layout layout;
    layout.fromMemo = true;
    layout.callsBefore = callsPerBucket();
    layout.spanBegin.resize(buckets + 1);
    layout.spans.reserve(memo.spans.size() + 2 * std::min<size_t>(changed.size(), buckets));
    // The key an old event had in the memo's layout: a call open then ended at its last
    // timestamp; every other one is closed and has not changed since.
    auto oldKey = [&](uint64_t q) {
        const uint32_t i = old[q];
        const Call& call = m_calls[i];
        const bool wasOpen = std::binary_search(openEvents.begin(), openEvents.end(), q);
        return Key{call.start, wasOpen ? std::max(memo.lastNs, call.start) : call.end, i, 0};
    };
    std::vector<uint32_t>& appended = scratch.appended; // the calls of the events appended, in order
    appended.clear();
    std::vector<uint64_t> positions;
    std::vector<Key> takenAlong;   // a row's old calls moved to its end with the new ones
    uint64_t leftBehindClosed = 0; // events of closed calls moved so
    for (size_t b = 0; b < buckets; ++b) {
        layout.spanBegin[b] = layout.spans.size();
        // Adds a span to the bucket's, joined to the one before where they touch.
        auto emit = [&](EventSpan s) {
            if (layout.spans.size() > layout.spanBegin[b] && layout.spans.back().end == s.begin)
                layout.spans.back().end = s.end;
            else
                layout.spans.push_back(s);
        };
        // Old calls [from, to) of the row, but those open then (placed anew).
        auto keepOld = [&](const OldRow& row, uint64_t from, uint64_t to) {
            row.spans(from, to, [&](EventSpan s) {
                auto open = std::lower_bound(openEvents.begin(), openEvents.end(), s.begin);
                for (; open != openEvents.end() && *open < s.end; ++open) {
                    if (*open > s.begin)
                        emit({s.begin, *open});
                    s.begin = *open + 1;
                }
                if (s.begin < s.end)
                    emit(s);
            });
        };
        // The bucket's calls in the memo's numbering (its region count then).
        const size_t region = b < regions ? b : b - regions;
        std::span<const EventSpan> oldSpans;
        if (region < memo.regions) {
            const size_t ob = b < regions ? b : memo.regions + region;
            oldSpans = std::span<const EventSpan>(memo.spans.data() + memo.spanBegin[ob],
                                                  memo.spanBegin[ob + 1] - memo.spanBegin[ob]);
        }
        const OldRow row(oldSpans, positions);
        // The first old call at or after position `from` whose key is not before `key`,
        // galloping from `from`: consecutive changed calls of a row land close together,
        // mostly at its end.
        auto seek = [&](uint64_t from, const Key& key) {
            const uint64_t to = row.size();
            if (from == to || before(oldKey(row.event(to - 1)), key))
                return to;
            if (!before(oldKey(row.event(from)), key))
                return from;
            uint64_t lo = from + 1, bound = 1;
            while (from + bound < to && before(oldKey(row.event(from + bound)), key)) {
                lo = from + bound + 1;
                bound *= 2;
            }
            uint64_t hi = std::min(from + bound, to);
            while (lo < hi) {
                const uint64_t mid = lo + (hi - lo) / 2;
                if (before(oldKey(row.event(mid)), key))
                    lo = mid + 1;
                else
                    hi = mid;
            }
            return lo;
        };
        // Changed calls landing among the row's last `window` calls go in together with the
        // old calls after the first of them, appended as one span: threads are drained at
        // different times, so one thread's new calls land between the latest ones of another,
        // and placed one by one they would cut the row at each. Those landing further back
        // (calls open then, whose starts may be long past; a call very late) are placed one
        // by one, their neighbours left where they are.
        auto next = changed.begin() + int64_t(changedBefore[b]);
        const auto bucketEnd = changed.begin() + int64_t(changedBefore[b + 1]);
        const uint64_t window = std::max<uint64_t>(m_options.takeAlongWindow,
                                                   kTakeAlongPerCall * uint64_t(bucketEnd - next));
        const uint64_t cut = row.size() > window ? row.size() - window : 0;
        uint64_t q = 0;
        for (; next != bucketEnd; ++next) {
            const uint64_t p = seek(q, *next);
            keepOld(row, q, p);
            q = p;
            if (p >= cut)
                break; // this one and every one after it land in the window
            emit({oldEvents + appended.size(), oldEvents + appended.size() + 1});
            appended.push_back(next->call);
            layout.placed.emplace_back(uint32_t(b), next->call);
        }
        const uint64_t runBegin = oldEvents + appended.size();
        takenAlong.clear();
        row.spans(q, row.size(), [&](EventSpan s) {
            for (uint64_t k = s.begin; k < s.end; ++k)
                if (!std::binary_search(openEvents.begin(), openEvents.end(), k))
                    takenAlong.push_back(oldKey(k)); // closed: its key has not changed
        });
        leftBehindClosed += takenAlong.size();
        auto along = takenAlong.begin();
        for (; next != bucketEnd; ++next) {
            for (; along != takenAlong.end() && before(*along, *next); ++along)
                appended.push_back(along->call);
            appended.push_back(next->call);
            layout.placed.emplace_back(uint32_t(b), next->call);
        }
        for (; along != takenAlong.end(); ++along)
            appended.push_back(along->call);
        if (oldEvents + appended.size() > runBegin)
            emit({runBegin, oldEvents + appended.size()});
    }
    layout.spanBegin[buckets] = layout.spans.size();
    const uint64_t events = oldEvents + appended.size();
    const uint64_t leftBehind = memo.holes + openEvents.size() + leftBehindClosed;
    if (leftBehind > std::max(kLeftBehindFloor, events / kMostLeftBehind) ||
        layout.spans.size() > std::max(kSpansFloor, events / kEventsPerSpan))
        return std::nullopt; // laying out afresh costs less than reading around what is left behind
    // Each bucket's spans must hold its calls: else the memo is not of an earlier state.
    for (size_t b = 0; b < buckets; ++b) {
        uint64_t calls = 0;
        for (uint64_t s = layout.spanBegin[b]; s < layout.spanBegin[b + 1]; ++s)
            calls += layout.spans[s].size();
        if (calls != layout.callsBefore[b + 1] - layout.callsBefore[b])
            return std::nullopt;
    }
    layout.holes = leftBehind;
    layout.appendedFrom = oldEvents;
    // The memo's order is the memo's alone: appended to in place where it has room, else
    // copied into a column with room for as many again.
    if (memo.order.use_count() == 1 && memo.order->capacity() >= events) {
        memo.order->insert(memo.order->end(), appended.begin(), appended.end());
        layout.order = memo.order;
        return layout;
    }
    layout.order = std::make_shared<Column<uint32_t>>();
    Column<uint32_t>& order = *layout.order;
    order.reserve(2 * events);
    order.resize(events);
    std::memcpy(order.data(), old.data(), oldEvents * sizeof(uint32_t));
    std::memcpy(order.data() + oldEvents, appended.data(), appended.size() * sizeof(uint32_t));
    return layout;
}

} // namespace spanscope::model::live
