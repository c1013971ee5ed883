#pragma once
// The calls of one row (a (region, rank) pair) as indices into the event columns, in the
// row's order (by start). Every consumer of a row's calls reads them through this, never
// through the row's place in the columns: a file's rows are one span of the columns each,
// but a live capture's rows are to grow by appending, a span per batch of calls that
// arrived (docs/live-updates.md, step 2), so "the row's calls are events
// [offset, offset + count)" is not something to build on.
//
// Cheap to copy (a view: it points into the capture's tables, and lives no longer than
// the capture). Any thread.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>

namespace spanscope::model {

// Events [begin, end) of the columns.
struct EventSpan
{
    uint64_t begin = 0, end = 0;

    uint64_t size() const { return end - begin; }
    bool contains(uint64_t event) const { return event >= begin && event < end; }
};

// The spans of one row, in order: a value (it holds a one-span row's span itself), so
// `for (const EventSpan& s : capture.rowEvents(r).spans())` is safe although the RowEvents
// it came from is a temporary.
class EventSpans
{
public:
    explicit EventSpans(EventSpan single) : m_single(single) {}
    explicit EventSpans(std::span<const EventSpan> many) : m_many(many) {}

    const EventSpan* begin() const { return m_many.empty() ? &m_single : m_many.data(); }
    const EventSpan* end() const { return begin() + size(); }
    size_t size() const { return m_many.empty() ? (m_single.size() ? 1 : 0) : m_many.size(); }
    bool empty() const { return size() == 0; }
    const EventSpan& operator[](size_t i) const { return begin()[i]; }
    const EventSpan& front() const { return *begin(); }
    const EventSpan& back() const { return end()[-1]; }

private:
    EventSpan m_single;                // a one-span row's span
    std::span<const EventSpan> m_many; // else the row's spans (never empty then)
};

class RowEvents
{
public:
    RowEvents() = default;
    // A row held in one span: events [begin, begin + count).
    RowEvents(uint64_t begin, uint64_t count)
        : m_single{begin, begin + count}, m_count(count)
    {}
    // A row held in several spans, in the row's order; `count` = the sum of their sizes.
    RowEvents(std::span<const EventSpan> spans, uint64_t count)
        : m_spans(spans), m_count(count)
    {}

    uint64_t size() const { return m_count; }
    bool empty() const { return m_count == 0; }

    // The spans, in order. Loops that read columns should go span by span: within one, the
    // events are consecutive.
    EventSpans spans() const { return m_spans.empty() ? EventSpans(m_single) : EventSpans(m_spans); }

    // The event of the row's k-th call (k < size()). O(log spans).
    uint64_t operator[](uint64_t k) const
    {
        if (m_spans.empty())
            return m_single.begin + k;
        for (const EventSpan& s : m_spans) { // rows have few spans; linear is fastest
            if (k < s.size())
                return s.begin + k;
            k -= s.size();
        }
        return m_spans.back().end; // out of range: past the last call, as a pointer would be
    }
    uint64_t front() const { return (*this)[0]; }
    uint64_t back() const { return (*this)[m_count - 1]; }

    // The position of `event` among the row's calls, or nullopt if the row does not hold it.
    std::optional<uint64_t> positionOf(uint64_t event) const
    {
        uint64_t before = 0;
        for (const EventSpan& s : ownSpans()) {
            if (s.contains(event))
                return before + (event - s.begin);
            before += s.size();
        }
        return std::nullopt;
    }
    bool contains(uint64_t event) const { return positionOf(event).has_value(); }

    // Forward iteration over the events, in the row's order.
    class iterator
    {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = uint64_t;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = uint64_t;

        iterator() = default;
        iterator(const EventSpan* span, const EventSpan* last, uint64_t event)
            : m_span(span), m_last(last), m_event(event)
        {}
        uint64_t operator*() const { return m_event; }
        iterator& operator++()
        {
            if (++m_event == m_span->end && m_span + 1 != m_last) {
                ++m_span;
                m_event = m_span->begin;
            }
            return *this;
        }
        iterator operator++(int)
        {
            iterator before = *this;
            ++*this;
            return before;
        }
        friend bool operator==(const iterator& a, const iterator& b) { return a.m_event == b.m_event && a.m_span == b.m_span; }

    private:
        const EventSpan* m_span = nullptr;
        const EventSpan* m_last = nullptr; // one past the last span
        uint64_t m_event = 0;
    };

    // Iterators point into this object when the row is one span: they live no longer than
    // it (a range-for over capture.rowEvents(r) keeps it for the loop).
    iterator begin() const
    {
        const auto s = ownSpans();
        return s.empty() ? iterator() : iterator(s.data(), s.data() + s.size(), s.front().begin);
    }
    iterator end() const
    {
        const auto s = ownSpans();
        return s.empty() ? iterator() : iterator(s.data() + s.size() - 1, s.data() + s.size(), s.back().end);
    }

private:
    std::span<const EventSpan> ownSpans() const
    {
        if (!m_spans.empty())
            return m_spans;
        return m_count ? std::span<const EventSpan>(&m_single, 1) : std::span<const EventSpan>();
    }

    EventSpan m_single;                 // the span of a one-span row
    std::span<const EventSpan> m_spans; // the spans of a row held in several; empty otherwise
    uint64_t m_count = 0;
};

} // namespace spanscope::model
