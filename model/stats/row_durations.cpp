#include "row_durations.h"

#include "saturating.h"

#include <algorithm>

namespace spanscope::model {

void DurationSums::add(int64_t start, int64_t end)
{
    const int64_t duration = subtractSaturating(end, start);
    ++closed;
    total = addSaturating(total, duration);
    minimum = std::min(minimum, duration);
    maximum = std::max(maximum, duration);
    startMin = std::min(startMin, start);
    endMax = std::max(endMax, end);
    const double delta = double(duration) - mean;
    mean += delta / double(closed);
    m2 += delta * (double(duration) - mean);
}

void DurationSums::merge(const DurationSums& other)
{
    if (other.closed == 0)
        return;
    if (closed == 0) {
        *this = other;
        return;
    }
    const double n = double(closed), m = double(other.closed);
    const double delta = other.mean - mean;
    mean += delta * m / (n + m);
    m2 += other.m2 + delta * delta * n * m / (n + m);
    closed += other.closed;
    total = addSaturating(total, other.total);
    minimum = std::min(minimum, other.minimum);
    maximum = std::max(maximum, other.maximum);
    startMin = std::min(startMin, other.startMin);
    endMax = std::max(endMax, other.endMax);
}

namespace {

// Counts `calls` into `counted` and `unclosed`; the closed ones into `sums` and their
// durations into `durations`.
void count(const std::vector<std::pair<int64_t, int64_t>>& calls, uint64_t& counted, uint64_t& unclosed,
           DurationSums& sums, std::vector<int64_t>& durations)
{
    durations.reserve(durations.size() + calls.size());
    for (const auto& [start, end] : calls) {
        ++counted;
        if (end < start) {
            ++unclosed;
            continue;
        }
        sums.add(start, end);
        durations.push_back(subtractSaturating(end, start));
    }
}

} // namespace

std::shared_ptr<const CommittedCalls> CommittedCalls::with(const std::vector<std::pair<int64_t, int64_t>>& added) const
{
    auto next = std::make_shared<CommittedCalls>();
    next->calls = calls;
    next->unclosed = unclosed;
    DurationSums addedSums;
    std::vector<int64_t> durations;
    count(added, next->calls, next->unclosed, addedSums, durations);
    next->sums = sums;
    next->sums.merge(addedSums);
    next->durations = this->durations.with(std::move(durations));
    return next;
}

std::shared_ptr<const RowDurations> RowDurations::of(std::shared_ptr<const CommittedCalls> committed,
                                                     const std::vector<std::pair<int64_t, int64_t>>& rest)
{
    auto row = std::make_shared<RowDurations>();
    row->calls = committed->calls;
    row->unclosed = committed->unclosed;
    DurationSums restSums;
    count(rest, row->calls, row->unclosed, restSums, row->pending);
    std::sort(row->pending.begin(), row->pending.end());
    row->sums = committed->sums;
    row->sums.merge(restSums);
    row->committed = std::move(committed);
    return row;
}

} // namespace spanscope::model
