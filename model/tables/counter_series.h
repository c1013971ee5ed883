#pragma once
// A counter: samples (time, value) on one Counter track, drawn as a step plot (a value
// holds until the next sample). Zoomed out, many samples share a pixel; the level of
// detail keeps each block's maximum and minimum, so a one-sample peak is never lost.
// Read only after finish() (between truncate() or add() and finish() the level of detail
// is stale); any thread may read a finished copy while another thread changes the original.
//
// Kept in chunks that copies share (ChunkedArray): a series that grows from one live
// snapshot to the next (the GPU's derived lanes, model/gpu/gpu_lanes.h) is copied, cut back
// where its samples change (truncate()), added to and finished again, and finish() then
// rebuilds the level of detail and the integral only from the first sample that changed.

#include "../chunked_array.h"
#include "../track.h"

#include <cstdint>
#include <vector>

namespace spanscope::model {

class CounterSeries
{
public:
    TrackId track;
    NameId unit; // "bytes", or empty when the source does not say
    // Derived by spanscope from the capture's own events at analysis (a GPU's utilization,
    // a stream's queue): never saved or exported, made again when the capture is opened.
    bool derived = false;
    // How a pixel column that holds several samples is drawn: their largest value (a peak
    // is never lost), or the step plot's mean over it (a busy fraction; finish() then keeps
    // the running integral at every 16th sample, half a byte per sample).
    enum class Level : uint8_t { Maximum, Mean };
    Level level = Level::Maximum;

    void add(int64_t timeNs, double value);
    // Orders samples by time (stable: equal times keep their order, the last one wins
    // when drawn) and builds the level of detail. O(n log n), O(n) if already ordered;
    // after a finish(), O(k log k) for the k samples added since when none of them goes
    // before the samples there were (else the whole series is ordered and built again).
    void finish();
    // Keeps samples [0, n) and drops the rest; add() and finish() go on from there.
    void truncate(size_t n);

    size_t size() const { return m_time.size(); }
    bool empty() const { return m_time.empty(); }
    int64_t time(size_t i) const { return m_time[i]; }
    double value(size_t i) const { return m_value[i]; }

    // First sample at or after `t`. O(log n).
    size_t firstAtOrAfter(int64_t t) const;
    // Largest and smallest value of samples [begin, end), end > begin. O(log n) through
    // the level of detail.
    double maxIn(size_t begin, size_t end) const;
    double minIn(size_t begin, size_t end) const;
    // Largest value the step plot takes over [t0, t1): the value holding at t0 and every
    // sample inside. nullopt-like NaN before the first sample and for an empty range.
    double maxOver(int64_t t0, int64_t t1) const;
    // The step plot's mean over [t0, t1), t1 > t0 (zero before the first sample): its
    // integral over the range over its length. O(log n); Level::Mean series only (NaN else).
    double meanOver(int64_t t0, int64_t t1) const;
    // maxOver or meanOver, as `level` says.
    double levelOver(int64_t t0, int64_t t1) const { return level == Level::Mean ? meanOver(t0, t1) : maxOver(t0, t1); }
    double maximum() const { return m_max; }
    double minimum() const { return m_min; }

    size_t residentBytes() const;

private:
    template <typename T> using Chunks = ChunkedArray<T, 8192>; // 64 KiB chunks
    using Levels = std::vector<Chunks<double>>;
    template <typename Pick>
    double reduce(size_t begin, size_t end, const Levels& levels, Pick pick) const;
    void orderFrom(size_t first); // sorts samples [first, n) by time, stably
    template <typename Pick>
    static void buildLevels(const Chunks<double>& values, size_t first, Levels& levels, Pick pick);

    static constexpr size_t kFanOut = 16; // samples per block of the level above
    Chunks<int64_t> m_time;
    Chunks<double> m_value;
    Levels m_maxLevels, m_minLevels; // level k: blocks of 16^(k+1) samples
    // Level::Mean: value × ns from the first sample to sample k · kIntegralStep, per k; a
    // sample's own is summed on from there, in the same order, so to the same bits.
    static constexpr size_t kIntegralStep = 16;
    Chunks<double> m_integral;
    size_t m_finished = 0;     // samples the levels and the integral hold
    double integralTo(int64_t t) const; // of the step plot from the first sample to t
    void integrateFrom(size_t first);   // m_integral from sample `first` on
    double m_max = 0, m_min = 0;
};

} // namespace spanscope::model
