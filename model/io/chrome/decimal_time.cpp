#include "decimal_time.h"

namespace spanscope::model::io {

namespace {

using Int128 = unsigned __int128;

// A decimal number as digits x 10^exponent. Up to 36 significant digits are kept; any
// further non-zero digit only sets `sticky`, which breaks exact ties when rounding.
struct Decimal
{
    bool negative = false;
    Int128 digits = 0;
    int64_t exponent = 0;
    bool sticky = false;
};

constexpr int kMaxDigits = 36;

std::optional<Decimal> parseDecimal(std::string_view text)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\n' ||
                             text.front() == '\r'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' ||
                             text.back() == '\r'))
        text.remove_suffix(1);
    Decimal d;
    size_t i = 0;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
        d.negative = text[i] == '-';
        ++i;
    }
    int kept = 0;
    bool anyDigit = false;
    auto addDigit = [&](char c, bool fraction) {
        anyDigit = true;
        const int digit = c - '0';
        if (kept == 0 && digit == 0) { // leading zeros carry no significance
            if (fraction)
                --d.exponent;
            return;
        }
        if (kept < kMaxDigits) {
            d.digits = d.digits * 10 + Int128(digit);
            ++kept;
            if (fraction)
                --d.exponent;
        } else {
            d.sticky |= digit != 0;
            if (!fraction)
                ++d.exponent;
        }
    };
    while (i < text.size() && text[i] >= '0' && text[i] <= '9')
        addDigit(text[i++], false);
    if (i < text.size() && text[i] == '.') {
        ++i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9')
            addDigit(text[i++], true);
    }
    if (!anyDigit)
        return std::nullopt;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool negativeExponent = false;
        if (i < text.size() && (text[i] == '-' || text[i] == '+'))
            negativeExponent = text[i++] == '-';
        if (i >= text.size())
            return std::nullopt;
        int64_t exponent = 0;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
            if (exponent < 100000)
                exponent = exponent * 10 + (text[i] - '0');
            ++i;
        }
        d.exponent += negativeExponent ? -exponent : exponent;
    }
    if (i != text.size())
        return std::nullopt;
    return d;
}

// digits x 10^shift, rounded half to even, as int64.
std::optional<int64_t> scaled(const Decimal& d, int64_t shift)
{
    constexpr Int128 kLimit = Int128(INT64_MAX);
    Int128 value = d.digits;
    if (value == 0)
        return 0;
    if (shift >= 0) {
        for (int64_t k = 0; k < shift; ++k) {
            value *= 10;
            if (value > kLimit + 1)
                return std::nullopt;
        }
    } else {
        if (-shift > 38)
            return 0;
        Int128 divisor = 1;
        for (int64_t k = 0; k < -shift; ++k)
            divisor *= 10;
        const Int128 quotient = value / divisor;
        const Int128 remainder = value % divisor;
        const Int128 twice = remainder * 2;
        bool up = false;
        if (twice > divisor || (twice == divisor && (d.sticky || (quotient & 1))))
            up = true;
        value = quotient + (up ? 1 : 0);
    }
    if (d.negative) {
        if (value > kLimit + 1)
            return std::nullopt;
        return value == kLimit + 1 ? INT64_MIN : -int64_t(value);
    }
    if (value > kLimit)
        return std::nullopt;
    return int64_t(value);
}

} // namespace

// The common shapes, "1669783687464181" and "4203669604595.407" (at most three decimals,
// no exponent, fits easily), without the general path's 128-bit arithmetic.
std::optional<int64_t> fastMicros(std::string_view text)
{
    size_t i = 0;
    int64_t whole = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
        if (i >= 16) // epoch µs have 16 digits; more cannot fit in int64 ns
            return std::nullopt;
        whole = whole * 10 + (text[i++] - '0');
    }
    if (i == 0)
        return std::nullopt;
    int64_t fraction = 0;
    int digits = 0;
    if (i < text.size() && text[i] == '.') {
        ++i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
            if (++digits > 3)
                return std::nullopt; // sub-ns digits: the exact path rounds them
            fraction = fraction * 10 + (text[i++] - '0');
        }
        if (digits == 0)
            return std::nullopt;
    }
    if (i != text.size())
        return std::nullopt;
    for (int d = digits; d < 3; ++d)
        fraction *= 10;
    int64_t ns = 0;
    if (__builtin_mul_overflow(whole, int64_t(1000), &ns) || __builtin_add_overflow(ns, fraction, &ns))
        return std::nullopt; // the exact path says so too
    return ns;
}

std::optional<int64_t> decimalMicrosToNs(std::string_view text)
{
    if (const auto fast = fastMicros(text))
        return fast;
    const auto d = parseDecimal(text);
    if (!d)
        return std::nullopt;
    return scaled(*d, d->exponent + 3);
}

std::optional<int64_t> decimalToInt64(std::string_view text)
{
    // Plain integers (pids, ids, sizes): up to 18 digits cannot overflow.
    const bool negative = !text.empty() && text.front() == '-';
    const std::string_view digits = negative ? text.substr(1) : text;
    if (!digits.empty() && digits.size() <= 18) {
        int64_t value = 0;
        size_t i = 0;
        for (; i < digits.size() && digits[i] >= '0' && digits[i] <= '9'; ++i)
            value = value * 10 + (digits[i] - '0');
        if (i == digits.size())
            return negative ? -value : value;
    }
    const auto d = parseDecimal(text);
    if (!d)
        return std::nullopt;
    if (d->exponent < 0) {
        // A fraction is allowed only if it is zero ("3.0").
        Int128 divisor = 1;
        for (int64_t k = 0; k < -d->exponent && k < 38; ++k)
            divisor *= 10;
        if (-d->exponent > 38 || d->digits % divisor != 0 || d->sticky)
            return std::nullopt;
        Decimal whole = *d;
        whole.digits = d->digits / divisor;
        whole.exponent = 0;
        return scaled(whole, 0);
    }
    return scaled(*d, d->exponent);
}

} // namespace spanscope::model::io
