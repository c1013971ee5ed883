#pragma once
// Progress and cancellation shared between a loader running on a worker thread and
// whoever waits for it (the GUI polls progress() with a timer). Lock-free; any thread.

#include <atomic>

namespace spanscope::model {

class LoadControl
{
public:
    void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }
    bool cancelled() const { return m_cancelled.load(std::memory_order_relaxed); }

    // Fraction done, 0..1.
    void setProgress(double fraction) { m_progress.store(fraction, std::memory_order_relaxed); }
    double progress() const { return m_progress.load(std::memory_order_relaxed); }

private:
    std::atomic<bool> m_cancelled{false};
    std::atomic<double> m_progress{0.0};
};

// Maps a sub-step's own 0..1 progress into [begin, end] of the whole load.
class ProgressRange
{
public:
    ProgressRange(LoadControl* control, double begin, double end)
        : m_control(control), m_begin(begin), m_end(end)
    {}
    void report(double fraction) const
    {
        if (m_control)
            m_control->setProgress(m_begin + (m_end - m_begin) * fraction);
    }
    bool cancelled() const { return m_control && m_control->cancelled(); }
    ProgressRange sub(double begin, double end) const
    {
        const double span = m_end - m_begin;
        return {m_control, m_begin + span * begin, m_begin + span * end};
    }

private:
    LoadControl* m_control;
    double m_begin, m_end;
};

} // namespace spanscope::model
