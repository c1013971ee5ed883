#pragma once
// A column of a live stream's snapshots that each update appends to and rewrites in a few
// old places (the GPU time of CPU calls: work arriving late changes the calls around its
// launch), so that an update writes what changed instead of every event.
//
// A snapshot's column is a store it shares (EventColumn), which must never change under
// it; so two stores take turns, as NestingListStores' do: the next snapshot writes into
// the store of the snapshot before the last one, brought up to date with the last one's
// writes, when nothing but this column holds it any more (that snapshot is gone), and
// into a fresh copy of the last one otherwise.
#include "../event_column.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace spanscope::model::live {

template <typename T> class RewrittenColumn
{
public:
    // Starts the next snapshot's column of `size` values, whose first `kept` are the last
    // snapshot's (kept <= its size; 0: none are); every other value is to be written
    // (write()) before column() is taken.
    void next(std::size_t kept, std::size_t size)
    {
        std::shared_ptr<Store> target;
        if (m_written && kept > 0 && kept <= m_size) {
            if (m_spare && m_spare.use_count() == 1 && m_spare->capacity() >= size) {
                for (const auto& [place, value] : m_writes)
                    m_spare->data()[place] = value;
                target = std::move(m_spare);
            } else {
                target = make(size);
                std::copy_n(m_written->data(), kept, target->data());
            }
            m_spare = std::move(m_written);
        } else {
            target = make(size);
            m_spare.reset();
        }
        m_written = std::move(target);
        m_size = size;
        m_writes.clear();
    }

    // The value at `place` of the column being written (kept ones included).
    const T& operator[](std::size_t place) const { return m_written->data()[place]; }
    void write(std::size_t place, const T& value)
    {
        m_written->data()[place] = value;
        if (m_spare) // for the spare to catch up with when its turn comes
            m_writes.emplace_back(place, value);
    }
    // Where a column written whole (next(0, size)) is written: no spare to catch up.
    T* data() { return m_written->data(); }

    EventColumn<T> column() const { return EventColumn<T>::sharing(m_written, m_size); }
    std::size_t size() const { return m_written ? m_size : 0; }

private:
    using Store = SharedColumnStore<T>;
    // Room for the events the next updates append (mapped, faulted in as written).
    static std::shared_ptr<Store> make(std::size_t size)
    {
        return std::make_shared<Store>(std::max<std::size_t>(size + size / 2, std::size_t(1) << 12));
    }

    std::shared_ptr<Store> m_written, m_spare; // the last snapshot's; the one before's
    std::size_t m_size = 0;                    // values m_written holds
    std::vector<std::pair<std::size_t, T>> m_writes; // what m_written got that m_spare lacks
};

} // namespace spanscope::model::live
