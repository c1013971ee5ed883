#pragma once
// A per-call column of a capture (EventColumns) whose storage may be shared with other
// captures: the snapshots of a live capture share the columns that do not change once a
// call is closed (docs/live-updates.md, step 2), each seeing its own length, so that an
// update writes only the events it adds instead of every column afresh.
//
// A column owns its values (a Column, as any reader makes it) or reads them from a
// SharedColumnStore. Reading is the same either way, and only reading is open to all:
// operator[], data(), iteration and size() are const. Anything that changes a column that
// shares its store (mutableData(), resize(), push_back(), ...) first copies its values into
// storage of its own, so a column never changes what another capture reads. Copying a column
// copies its values; moving it moves them (or the reference to the store).

#include "column.h"
#include "prefault_ahead.h"

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <type_traits>
#include <utility>

namespace spanscope::model {

// Storage reserved once for `capacity` values, that never moves; values are written past the
// end of every column that shares it (by one writer: whoever builds the next snapshot), so
// readers of those columns and the writer never touch the same place. Pages are faulted in
// as they are written (from 2 MiB on a mapping of huge pages, not touched here: column.h).
template <typename T> class SharedColumnStore
{
    static_assert(std::is_trivially_copyable_v<T>, "values are written into raw storage");

public:
    explicit SharedColumnStore(std::size_t capacity)
        : m_capacity(capacity), m_data(static_cast<T*>(detail::allocateStore(capacity * sizeof(T))))
    {
    }
    ~SharedColumnStore() { detail::releaseStore(m_data, m_capacity * sizeof(T)); }
    SharedColumnStore(const SharedColumnStore&) = delete;
    SharedColumnStore& operator=(const SharedColumnStore&) = delete;

    std::size_t capacity() const { return m_capacity; }
    T* data() { return m_data; }
    const T* data() const { return m_data; }

private:
    std::size_t m_capacity;
    T* m_data;
};

// After an update appended `appended` values to `store`, which now holds `size`: the pages
// of the next updates' values faulted in ahead, off the writer's thread (prefaultNext()).
template <typename T>
void prefaultStoreAhead(const std::shared_ptr<SharedColumnStore<T>>& store, std::size_t size, std::size_t appended)
{
    if (store && size < store->capacity())
        prefaultNext(store, store->data() + size, store->capacity() - size, appended);
}

template <typename T> class EventColumn
{
public:
    using value_type = T;
    using size_type = std::size_t;
    using const_iterator = const T*;
    using iterator = const T*; // reading only; see mutableData()

    EventColumn() = default;
    explicit EventColumn(std::size_t n) : m_owned(n) { repoint(); }
    EventColumn(std::size_t n, const T& value) : m_owned(n, value) { repoint(); }
    EventColumn(std::initializer_list<T> values) : m_owned(values) { repoint(); }
    template <typename It> EventColumn(It first, It last) : m_owned(first, last) { repoint(); }
    explicit EventColumn(Column<T>&& values) : m_owned(std::move(values)) { repoint(); }
    EventColumn(const EventColumn& other) : m_owned(other.begin(), other.end()) { repoint(); }
    EventColumn(EventColumn&& other) noexcept { *this = std::move(other); }
    EventColumn& operator=(const EventColumn& other)
    {
        if (this != &other) {
            Column<T> values(other.begin(), other.end());
            m_store.reset();
            m_owned = std::move(values);
            repoint();
        }
        return *this;
    }
    EventColumn& operator=(EventColumn&& other) noexcept
    {
        if (this != &other) {
            m_owned = std::move(other.m_owned);
            m_store = std::move(other.m_store);
            m_data = other.m_data;
            m_size = other.m_size;
            other.m_owned.clear();
            other.m_store.reset();
            other.m_data = nullptr;
            other.m_size = 0;
        }
        return *this;
    }

    // The first `size` values of `store` (already written), read in place.
    static EventColumn sharing(std::shared_ptr<const SharedColumnStore<T>> store, std::size_t size)
    {
        EventColumn column;
        column.m_data = store->data();
        column.m_size = size;
        column.m_store = std::move(store);
        return column;
    }
    bool shared() const { return m_store != nullptr; }

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const T* data() const { return m_data; }
    const T& operator[](std::size_t i) const { return m_data[i]; }
    const T* begin() const { return m_data; }
    const T* end() const { return m_data + m_size; }
    const T* cbegin() const { return begin(); }
    const T* cend() const { return end(); }
    const T& front() const { return m_data[0]; }
    const T& back() const { return m_data[m_size - 1]; }
    std::size_t capacity() const { return m_store ? m_size : m_owned.capacity(); }

    // The values to write, the column's own from now on (a shared column's are copied).
    T* mutableData()
    {
        own();
        return m_owned.data();
    }
    void set(std::size_t i, const T& value) { mutableData()[i] = value; }
    void resize(std::size_t n)
    {
        change([&] { m_owned.resize(n); });
    }
    void resize(std::size_t n, const T& value)
    {
        change([&] { m_owned.resize(n, value); });
    }
    void assign(std::size_t n, const T& value)
    {
        m_store.reset();
        m_owned.assign(n, value);
        repoint();
    }
    template <typename It> void assign(It first, It last)
    {
        Column<T> values(first, last); // `first` may point into this column
        m_store.reset();
        m_owned = std::move(values);
        repoint();
    }
    void push_back(const T& value)
    {
        change([&] { m_owned.push_back(value); });
    }
    void reserve(std::size_t n)
    {
        change([&] { m_owned.reserve(n); });
    }
    void clear()
    {
        m_store.reset();
        m_owned.clear();
        repoint();
    }
    void shrink_to_fit()
    {
        change([&] { shrinkToFit(m_owned); });
    }
    // Inserts [first, last) before `position` (an iterator of this column).
    template <typename It> void insert(const T* position, It first, It last)
    {
        const std::size_t at = std::size_t(position - m_data);
        Column<T> values(first, last); // `first` may point into this column
        change([&] {
            m_owned.insert(m_owned.begin() + std::ptrdiff_t(at), values.begin(), values.end());
        });
    }
    void insert(const T* position, std::size_t count, const T& value)
    {
        const std::size_t at = std::size_t(position - m_data);
        const T copy = value; // `value` may be in this column
        change([&] { m_owned.insert(m_owned.begin() + std::ptrdiff_t(at), count, copy); });
    }
    void swap(EventColumn& other) noexcept { std::swap(*this, other); }

    friend bool operator==(const EventColumn& a, const EventColumn& b)
    {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }

private:
    // Values shared with a store become the column's own.
    void own()
    {
        if (!m_store)
            return;
        Column<T> values(m_data, m_data + m_size);
        m_store.reset();
        m_owned = std::move(values);
        repoint();
    }
    template <typename F> void change(F&& f)
    {
        own();
        f();
        repoint();
    }
    void repoint()
    {
        m_data = m_owned.data();
        m_size = m_owned.size();
    }

    Column<T> m_owned;                                   // the values, unless shared
    std::shared_ptr<const SharedColumnStore<T>> m_store; // else the store they are read from
    const T* m_data = nullptr;
    std::size_t m_size = 0;
};

// The values of a column to write, for code that takes either kind.
template <typename T> T* writableData(Column<T>& column)
{
    return column.data();
}
template <typename T> T* writableData(EventColumn<T>& column)
{
    return column.mutableData();
}

} // namespace spanscope::model
