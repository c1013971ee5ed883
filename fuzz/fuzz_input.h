#pragma once
// Reads typed choices from a fuzzer's bytes, front to back. Past the end every value is 0
// (the smallest choice), so any input, even an empty one, describes a complete case and a
// short input a small one. Plays the role of LLVM's FuzzedDataProvider but builds with any
// compiler, so the replay test (fuzz_replay) runs in every build.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace spanscope::fuzz {

class FuzzInput
{
public:
    FuzzInput(const std::uint8_t* data, std::size_t size) : m_data(data), m_size(size) {}

    bool empty() const { return m_pos >= m_size; }
    std::size_t remaining() const { return m_size - m_pos; }

    std::uint8_t byte() { return m_pos < m_size ? m_data[m_pos++] : 0; }
    bool flag() { return byte() & 1; }

    // A value in [lo, hi] (inclusive) from as few bytes as the range needs.
    template <typename T> T inRange(T lo, T hi)
    {
        static_assert(std::is_integral_v<T>);
        using U = std::make_unsigned_t<T>;
        const U span = U(U(hi) - U(lo));
        U value = 0;
        for (U left = span; left != 0; left = U(left >> 8))
            value = U((value << 8) | byte());
        if (span != std::numeric_limits<U>::max())
            value = U(value % (span + 1));
        return T(U(lo) + value);
    }

    template <typename T> T raw()
    {
        T value{};
        std::uint8_t bytes[sizeof(T)] = {};
        for (auto& b : bytes)
            b = byte();
        std::memcpy(&value, bytes, sizeof value);
        return value;
    }

    // An integer a file might hold: small, at a boundary, or any 64-bit pattern.
    std::int64_t hostileInt()
    {
        switch (byte() % 8) {
        case 0:
        case 1:
        case 2:
            return inRange<std::int64_t>(-4, 64);
        case 3:
            return raw<std::int64_t>();
        case 4:
            return std::numeric_limits<std::int64_t>::max() - byte();
        case 5:
            return std::numeric_limits<std::int64_t>::min() + byte();
        case 6:
            return std::int64_t(std::numeric_limits<std::uint32_t>::max()) + inRange<int>(-2, 2);
        default:
            return inRange<std::int64_t>(0, 1'000'000'000'000);
        }
    }

    // Up to `maxBytes` raw bytes: any byte value, NUL and invalid UTF-8 included.
    std::string bytes(std::size_t maxBytes)
    {
        const std::size_t n = inRange<std::size_t>(0, maxBytes);
        std::string out;
        for (std::size_t i = 0; i < n && !empty(); ++i)
            out += char(byte());
        return out;
    }

    // Everything not read yet.
    std::string rest()
    {
        std::string out(reinterpret_cast<const char*>(m_data + m_pos), remaining());
        m_pos = m_size;
        return out;
    }

    template <typename T, std::size_t N> const T& pick(const T (&choices)[N])
    {
        return choices[inRange<std::size_t>(0, N - 1)];
    }

private:
    const std::uint8_t* m_data;
    std::size_t m_size;
    std::size_t m_pos = 0;
};

} // namespace spanscope::fuzz
