#pragma once
// Tests for "did the durations change?" between two runs. Both are non-parametric, so
// skewed, heavy-tailed timing distributions are fine, and both thin samples larger than
// `maxSample` evenly (every k-th call) first, so they cost O(maxSample log maxSample)
// however many calls the runs hold. Inputs are copied.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace spanscope::model {

struct DistributionTest
{
    double pValue = 1;   // two-sided
    double effect = 0;   // see each test
    uint64_t baselineN = 0, candidateN = 0; // sample sizes actually tested
};

// Mann-Whitney U (Wilcoxon rank-sum): does one run tend to take longer? Normal
// approximation with tie and continuity correction. effect = Cliff's delta,
// P(candidate > baseline) - P(candidate < baseline), -1..1. For means and totals.
DistributionTest mannWhitney(const std::vector<int64_t>& baseline, const std::vector<int64_t>& candidate,
                             size_t maxSample = 200'000);

// Exceedance test for a quantile: is the share of calls above the baseline's q-quantile
// different in the candidate (two-proportion z-test)? Sensitive to a change in the tail
// only, where the rank test is not. effect = candidate share - baseline share.
DistributionTest exceedance(const std::vector<int64_t>& baseline, const std::vector<int64_t>& candidate,
                            double quantile, size_t maxSample = 200'000);

// The smallest two-sided p-value that samples of these sizes can give in an exact rank
// test, whatever their values: 2 / C(n1 + n2, n1), the chance of the most extreme order.
// When it is not below the significance level, no test can find a change in so few calls
// (1 and 1 call: 1; 4 and 4: 0.029; 5 and 5: 0.0079).
double smallestAttainablePValue(uint64_t baselineN, uint64_t candidateN);

} // namespace spanscope::model
