#include "percentile.h"

namespace spanscope::model {

std::vector<double> percentilesOfUnsorted(std::vector<int64_t>& values, const std::vector<double>& ps)
{
    std::vector<double> results(ps.size(), 0.0);
    const size_t n = values.size();
    if (n == 0)
        return results;
    // Lowest percentile first: each nth_element leaves everything after its position
    // larger, so the next (higher) one only searches that suffix. For p50, p95, p99 the
    // searches cover n, n/2 and n/20 values (n + 0.99n + 0.95n from the top down).
    size_t from = 0;
    const auto begin = values.begin();
    for (size_t k = 0; k < ps.size(); ++k) {
        const PercentilePlace place = percentilePlace(ps[k], n);
        const size_t below = std::max(size_t(place.below), from);
        std::nth_element(begin + int64_t(from), begin + int64_t(below), values.end());
        const int64_t low = values[below];
        int64_t high = low;
        if (below + 1 < n) {
            // Order statistic below+1 is the smallest of the part after `below`; put it
            // next to it, so the suffix searched next still holds only larger values.
            const auto smallest = std::min_element(begin + int64_t(below) + 1, values.end());
            std::iter_swap(smallest, begin + int64_t(below) + 1);
            high = values[below + 1];
        }
        from = below;
        results[k] = place.between(low, high);
    }
    return results;
}

} // namespace spanscope::model
