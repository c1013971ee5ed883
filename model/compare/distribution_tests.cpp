#include "distribution_tests.h"

#include "../stats/percentile.h"

#include <algorithm>
#include <cmath>

namespace spanscope::model {

namespace {

std::vector<int64_t> thinned(const std::vector<int64_t>& values, size_t maxSample)
{
    if (values.size() <= maxSample)
        return values;
    std::vector<int64_t> sample;
    sample.reserve(maxSample);
    const double step = double(values.size()) / double(maxSample);
    for (size_t k = 0; k < maxSample; ++k)
        sample.push_back(values[size_t(double(k) * step)]);
    return sample;
}

// Both samples thinned and sorted; false when either is empty (no test possible).
bool prepare(const std::vector<int64_t>& baseline, const std::vector<int64_t>& candidate, size_t maxSample,
             std::vector<int64_t>& a, std::vector<int64_t>& b, DistributionTest& test)
{
    a = thinned(baseline, maxSample);
    b = thinned(candidate, maxSample);
    test.baselineN = a.size();
    test.candidateN = b.size();
    if (a.empty() || b.empty())
        return false;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return true;
}

} // namespace

DistributionTest mannWhitney(const std::vector<int64_t>& baseline, const std::vector<int64_t>& candidate,
                             size_t maxSample)
{
    DistributionTest test;
    std::vector<int64_t> a, b;
    if (!prepare(baseline, candidate, maxSample, a, b, test))
        return test;
    // U_b = sum over candidate values of (#baseline below + half #baseline equal), by a merge.
    // Tie groups also feed the variance correction.
    const double n1 = double(a.size()), n2 = double(b.size()), n = n1 + n2;
    double u = 0, tieTerm = 0;
    size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
        const int64_t value = j == b.size() || (i < a.size() && a[i] < b[j]) ? a[i] : b[j];
        size_t ia = i, jb = j;
        while (ia < a.size() && a[ia] == value)
            ++ia;
        while (jb < b.size() && b[jb] == value)
            ++jb;
        const double equalA = double(ia - i), equalB = double(jb - j);
        u += equalB * (double(i) + equalA / 2.0);
        const double tied = equalA + equalB;
        tieTerm += tied * tied * tied - tied;
        i = ia;
        j = jb;
    }
    test.effect = 2.0 * u / (n1 * n2) - 1.0;
    const double mean = n1 * n2 / 2.0;
    const double variance = n1 * n2 / 12.0 * ((n + 1.0) - tieTerm / (n * (n - 1.0)));
    if (variance <= 0) {
        test.pValue = 1.0; // every value equal: no evidence of any difference
        return test;
    }
    const double z = (std::fabs(u - mean) - 0.5) / std::sqrt(variance); // continuity-corrected
    test.pValue = std::clamp(std::erfc(std::max(z, 0.0) / std::sqrt(2.0)), 0.0, 1.0);
    return test;
}

DistributionTest exceedance(const std::vector<int64_t>& baseline, const std::vector<int64_t>& candidate,
                            double quantile, size_t maxSample)
{
    DistributionTest test;
    std::vector<int64_t> a, b;
    if (!prepare(baseline, candidate, maxSample, a, b, test))
        return test;
    const double threshold = percentileOfSorted(a, quantile * 100.0);
    const auto above = [threshold](const std::vector<int64_t>& v) {
        return double(std::count_if(v.begin(), v.end(), [threshold](int64_t d) { return double(d) > threshold; }));
    };
    const double n1 = double(a.size()), n2 = double(b.size());
    const double p1 = above(a) / n1, p2 = above(b) / n2;
    test.effect = p2 - p1;
    const double pooled = (p1 * n1 + p2 * n2) / (n1 + n2);
    const double se = std::sqrt(pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2));
    if (se <= 0) {
        test.pValue = p1 == p2 ? 1.0 : 0.0;
        return test;
    }
    test.pValue = std::clamp(std::erfc(std::fabs(p2 - p1) / se / std::sqrt(2.0)), 0.0, 1.0);
    return test;
}

double smallestAttainablePValue(uint64_t baselineN, uint64_t candidateN)
{
    if (baselineN == 0 || candidateN == 0)
        return 1.0;
    // log C(n1 + n2, n1) through lgamma: the counts may be large.
    const double n1 = double(baselineN), n2 = double(candidateN);
    const double logChoose = std::lgamma(n1 + n2 + 1) - std::lgamma(n1 + 1) - std::lgamma(n2 + 1);
    return std::min(1.0, 2.0 * std::exp(-logChoose));
}

} // namespace spanscope::model
