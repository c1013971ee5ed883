// Maps CUPTI's timestamps onto CLOCK_MONOTONIC where CUPTI cannot stamp records with the
// collector's clock itself (no timestamp callback in that CUDA version). Fed pairs of
// (CUPTI ns, CLOCK_MONOTONIC ns read around it), it keeps a line through them: the offset of
// the latest pair, and the drift (rate) between the first pair and the latest one, so a
// clock that runs a little fast or slow stays aligned over a long run. Each new pair is
// first checked against the line as it was: the largest miss is the residual error the
// capture reports. Not thread-safe (the sender thread alone feeds and reads it).
#pragma once

#include <cmath>
#include <cstdint>

namespace spanscope::collector::cuda {

class GpuClockMap
{
public:
    // `cuptiNs` was read between `hostBeforeNs` and `hostAfterNs` (CLOCK_MONOTONIC).
    void addPair(std::uint64_t cuptiNs, std::uint64_t hostBeforeNs, std::uint64_t hostAfterNs)
    {
        // The host moment of the read is known to within half the bracket: take its middle.
        const double host = double(hostBeforeNs) + double(hostAfterNs - hostBeforeNs) / 2.0;
        const double source = double(cuptiNs);
        if (m_pairs > 0) {
            const double miss = std::fabs(map(source) - host);
            if (miss > m_residualNs)
                m_residualNs = miss;
        }
        if (m_pairs == 0) {
            m_firstSource = source;
            m_firstHost = host;
        } else if (source - m_firstSource > 0) {
            m_rate = (host - m_firstHost) / (source - m_firstSource);
        }
        m_lastSource = source;
        m_lastHost = host;
        ++m_pairs;
    }

    // `cuptiNs` on CLOCK_MONOTONIC; unchanged before the first pair.
    std::int64_t toHostNs(std::uint64_t cuptiNs) const
    {
        return m_pairs == 0 ? std::int64_t(cuptiNs) : std::int64_t(std::llround(map(double(cuptiNs))));
    }

    // Largest distance, ns, between a pair and the line drawn through the pairs before it.
    double residualNs() const { return m_residualNs; }
    // Host ns per CUPTI ns (1 = no drift).
    double rate() const { return m_rate; }
    std::uint64_t pairs() const { return m_pairs; }

private:
    double map(double source) const { return m_lastHost + (source - m_lastSource) * m_rate; }

    std::uint64_t m_pairs = 0;
    double m_firstSource = 0, m_firstHost = 0, m_lastSource = 0, m_lastHost = 0;
    double m_rate = 1.0;
    double m_residualNs = 0;
};

} // namespace spanscope::collector::cuda
