#include "counter_series.h"

#include "permutation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace spanscope::model {

void CounterSeries::add(int64_t timeNs, double value)
{
    m_time.push_back(timeNs);
    m_value.push_back(value);
}

void CounterSeries::finish()
{
    m_time.shrink_to_fit(); // grown by push_back: give back what doubling reserved
    m_value.shrink_to_fit();
    const size_t n = m_time.size();
    if (!std::is_sorted(m_time.begin(), m_time.end())) {
        const auto order =
            sortedOrder(n, [&](uint32_t a, uint32_t b) { return m_time[a] < m_time[b]; });
        permute(m_time, order);
        permute(m_value, order);
    }
    m_maxLevels.clear();
    m_minLevels.clear();
    const Column<double>* maxBelow = &m_value;
    const Column<double>* minBelow = &m_value;
    // A mean series is drawn from its integral: no level of detail of its extremes.
    while (level == Level::Maximum && maxBelow->size() > kFanOut) {
        const size_t blocks = (maxBelow->size() + kFanOut - 1) / kFanOut;
        Column<double> maxima(blocks), minima(blocks);
        for (size_t b = 0; b < blocks; ++b) {
            const size_t first = b * kFanOut, last = std::min(first + kFanOut, maxBelow->size());
            maxima[b] = *std::max_element(maxBelow->begin() + int64_t(first),
                                          maxBelow->begin() + int64_t(last));
            minima[b] = *std::min_element(minBelow->begin() + int64_t(first),
                                          minBelow->begin() + int64_t(last));
        }
        m_maxLevels.push_back(std::move(maxima));
        m_minLevels.push_back(std::move(minima));
        maxBelow = &m_maxLevels.back();
        minBelow = &m_minLevels.back();
    }
    m_integral.clear();
    if (level == Level::Mean) {
        m_integral.resize(n);
        double sum = 0;
        for (size_t i = 0; i < n; ++i) {
            m_integral[i] = sum;
            if (i + 1 < n)
                sum += m_value[i] * double(m_time[i + 1] - m_time[i]);
        }
    }
    m_max = n ? *std::max_element(m_value.begin(), m_value.end()) : 0.0;
    m_min = n ? *std::min_element(m_value.begin(), m_value.end()) : 0.0;
}

size_t CounterSeries::firstAtOrAfter(int64_t t) const
{
    return size_t(std::lower_bound(m_time.begin(), m_time.end(), t) - m_time.begin());
}

template <typename Pick>
double CounterSeries::reduce(size_t begin, size_t end, const std::vector<Column<double>>& levels,
                             Pick pick) const
{
    // Walk up the levels: at each, take the partial blocks at both edges one by one and
    // move to the level above for the whole blocks in between. At most 2 x 15 values per
    // level.
    double result = m_value[begin];
    const Column<double>* values = &m_value;
    size_t level = 0;
    while (begin < end) {
        if (end - begin <= 2 * kFanOut || level == levels.size()) {
            for (size_t i = begin; i < end; ++i)
                result = pick(result, (*values)[i]);
            break;
        }
        while (begin % kFanOut != 0)
            result = pick(result, (*values)[begin++]);
        while (end % kFanOut != 0 && end > begin)
            result = pick(result, (*values)[--end]);
        begin /= kFanOut;
        end /= kFanOut;
        values = &levels[level++];
    }
    return result;
}

double CounterSeries::maxIn(size_t begin, size_t end) const
{
    return reduce(begin, end, m_maxLevels, [](double a, double b) { return std::max(a, b); });
}

double CounterSeries::minIn(size_t begin, size_t end) const
{
    return reduce(begin, end, m_minLevels, [](double a, double b) { return std::min(a, b); });
}

double CounterSeries::maxOver(int64_t t0, int64_t t1) const
{
    const size_t first = firstAtOrAfter(t0);
    const size_t last = firstAtOrAfter(t1);
    double result = std::numeric_limits<double>::quiet_NaN();
    if (first > 0)
        result = m_value[first - 1]; // the value holding at t0
    if (last > first) {
        const double inside = maxIn(first, last);
        result = std::isnan(result) ? inside : std::max(result, inside);
    }
    return result;
}

double CounterSeries::integralTo(int64_t t) const
{
    // The last sample at or before t, and the value it holds from there to t.
    const size_t after = size_t(std::upper_bound(m_time.begin(), m_time.end(), t) - m_time.begin());
    if (after == 0)
        return 0.0;
    return m_integral[after - 1] + m_value[after - 1] * double(t - m_time[after - 1]);
}

double CounterSeries::meanOver(int64_t t0, int64_t t1) const
{
    if (level != Level::Mean || m_time.empty() || t1 <= t0)
        return std::numeric_limits<double>::quiet_NaN();
    return (integralTo(t1) - integralTo(t0)) / double(t1 - t0);
}

size_t CounterSeries::residentBytes() const
{
    size_t bytes = m_time.capacity() * 8 + m_value.capacity() * 8 + m_integral.capacity() * 8;
    for (const auto& level : m_maxLevels)
        bytes += level.capacity() * 8;
    for (const auto& level : m_minLevels)
        bytes += level.capacity() * 8;
    return bytes;
}

} // namespace spanscope::model
