#include "counter_series.h"

#include "../stats/saturating.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace spanscope::model {

namespace {

// Value × ns from sample j to sample j + 1 of a series' columns; saturating, as a damaged
// source's times may lie 2^63 ns apart.
template <typename Times, typename Values>
double stepArea(const Times& time, const Values& value, size_t j)
{
    return value[j] * double(subtractSaturating(time[j + 1], time[j]));
}

} // namespace

void CounterSeries::add(int64_t timeNs, double value)
{
    m_time.push_back(timeNs);
    m_value.push_back(value);
}

void CounterSeries::truncate(size_t n)
{
    m_time.truncate(n);
    m_value.truncate(n);
    m_finished = std::min(m_finished, n);
}

void CounterSeries::orderFrom(size_t first)
{
    const size_t n = m_time.size();
    std::vector<size_t> order(n - first);
    std::iota(order.begin(), order.end(), first);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return m_time[a] < m_time[b]; });
    std::vector<int64_t> times(order.size());
    std::vector<double> values(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
        times[i] = m_time[order[i]];
        values[i] = m_value[order[i]];
    }
    for (size_t i = 0; i < order.size(); ++i) {
        m_time.edit(first + i) = times[i];
        m_value.edit(first + i) = values[i];
    }
}

template <typename Pick>
void CounterSeries::buildLevels(const Chunks<double>& values, size_t first, Levels& levels, Pick pick)
{
    // Level k's block b summarises the level below's [16b, 16b + 16): from the block holding
    // the first changed value below, every block is made again.
    size_t k = 0;
    for (auto below = [&] { return k == 0 ? &values : &levels[k - 1]; }; below()->size() > kFanOut; ++k) {
        first /= kFanOut;
        if (k == levels.size())
            levels.emplace_back(); // moves the levels: `below` is looked up after
        const Chunks<double>* belowLevel = below();
        const size_t blocks = (belowLevel->size() + kFanOut - 1) / kFanOut;
        Chunks<double>& level = levels[k];
        level.truncate(first);
        for (size_t b = level.size(); b < blocks; ++b) {
            const size_t begin = b * kFanOut, end = std::min(begin + kFanOut, belowLevel->size());
            double summary = (*belowLevel)[begin];
            for (size_t i = begin + 1; i < end; ++i)
                summary = pick(summary, (*belowLevel)[i]);
            level.push_back(summary);
        }
    }
    levels.resize(k);
}

void CounterSeries::finish()
{
    const size_t n = m_time.size();
    size_t first = m_finished;
    // Samples added since the last finish() go after those there were, or all are ordered again.
    if (first > 0 && first < n) {
        int64_t earliest = m_time[first];
        for (size_t i = first + 1; i < n; ++i)
            earliest = std::min(earliest, m_time[i]);
        if (earliest < m_time[first - 1])
            first = 0;
    }
    bool ordered = true;
    for (size_t i = std::max<size_t>(first, 1); i < n && ordered; ++i)
        ordered = m_time[i - 1] <= m_time[i];
    if (!ordered)
        orderFrom(first);
    m_time.shrinkToFit(); // grown by push_back: give back what doubling reserved
    m_value.shrinkToFit();
    buildLevels(m_value, first, m_maxLevels, [](double a, double b) { return std::max(a, b); });
    buildLevels(m_value, first, m_minLevels, [](double a, double b) { return std::min(a, b); });
    if (level == Level::Mean)
        integrateFrom(first);
    else
        m_integral.truncate(0);
    m_finished = n;
    m_max = n ? maxIn(0, n) : 0.0;
    m_min = n ? minIn(0, n) : 0.0;
}

void CounterSeries::integrateFrom(size_t first)
{
    // The entries at samples before `first` hold; the sum goes on from the last of them.
    const size_t n = m_time.size();
    m_integral.truncate((first + kIntegralStep - 1) / kIntegralStep);
    if (m_integral.empty() && n > 0)
        m_integral.push_back(0.0);
    if (m_integral.empty())
        return;
    double sum = m_integral.back();
    for (size_t j = (m_integral.size() - 1) * kIntegralStep; j + 1 < n; ++j) {
        sum += stepArea(m_time, m_value, j);
        if ((j + 1) % kIntegralStep == 0)
            m_integral.push_back(sum);
    }
}

size_t CounterSeries::firstAtOrAfter(int64_t t) const
{
    return partitionPoint(m_time, [t](int64_t time) { return time < t; });
}

template <typename Pick>
double CounterSeries::reduce(size_t begin, size_t end, const Levels& levels, Pick pick) const
{
    // Walk up the levels: at each, take the partial blocks at both edges one by one and
    // move to the level above for the whole blocks in between. At most 2 x 15 values per
    // level.
    double result = m_value[begin];
    const Chunks<double>* values = &m_value;
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
    const size_t after = partitionPoint(m_time, [t](int64_t time) { return time <= t; });
    if (after == 0)
        return 0.0;
    const size_t k = after - 1;
    double sum = m_integral[k / kIntegralStep];
    for (size_t j = k - k % kIntegralStep; j < k; ++j)
        sum += stepArea(m_time, m_value, j);
    return sum + m_value[k] * double(subtractSaturating(t, m_time[k]));
}

double CounterSeries::meanOver(int64_t t0, int64_t t1) const
{
    if (level != Level::Mean || m_time.empty() || t1 <= t0)
        return std::numeric_limits<double>::quiet_NaN();
    return (integralTo(t1) - integralTo(t0)) / double(subtractSaturating(t1, t0));
}

size_t CounterSeries::residentBytes() const
{
    size_t bytes = m_time.residentBytes() + m_value.residentBytes() + m_integral.residentBytes();
    for (const auto& level : m_maxLevels)
        bytes += level.residentBytes();
    for (const auto& level : m_minLevels)
        bytes += level.residentBytes();
    return bytes;
}

} // namespace spanscope::model
