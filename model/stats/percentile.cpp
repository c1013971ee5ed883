#include "percentile.h"

namespace spanscope::model {

std::vector<double> percentilesOfUnsorted(std::vector<int64_t>& values, const std::vector<double>& ps)
{
    std::vector<double> results(ps.size(), 0.0);
    const size_t n = values.size();
    if (n == 0)
        return results;
    // Work from the highest percentile down: each nth_element leaves everything below its
    // position smaller, so the next search only needs the prefix.
    size_t limit = n;
    for (size_t k = ps.size(); k-- > 0;) {
        const double position = std::clamp(ps[k], 0.0, 100.0) / 100.0 * double(n - 1);
        const size_t below = size_t(std::floor(position));
        const double fraction = position - double(below);
        const auto begin = values.begin();
        std::nth_element(begin, begin + int64_t(below), begin + int64_t(limit));
        const int64_t low = values[below];
        int64_t high = low;
        if (below + 1 < limit) {
            // Order statistic below+1 is the smallest of the upper part; move it next to
            // `below` so the prefix [0, below+2) holds exactly the smallest below+2 values.
            const auto smallest = std::min_element(begin + int64_t(below) + 1, begin + int64_t(limit));
            std::iter_swap(smallest, begin + int64_t(below) + 1);
            high = values[below + 1];
        }
        limit = std::min(below + 2, limit);
        results[k] = double(low) + (double(high) - double(low)) * fraction;
    }
    return results;
}

} // namespace spanscope::model
