#pragma once
// Tick marks for an axis of durations in ns, labelled the way the rest of the viewer
// writes durations ("1 µs", "2.5 ms"). On a log axis the ticks sit at round numbers: the
// finest of 1-1.5-2-3-...-8, 1-2-3-5, 1-2-5, 1-3 (x 10^k) that stays within tickCount(),
// else every decade or every few; spans too narrow for those get even linear steps.
// GUI thread only (QCustomPlot owns it).

#include <qcustomplot.h>

namespace spanscope::views {

// formatDuration's text without trailing zeros: 1000 -> "1 µs", 2500000 -> "2.5 ms".
QString durationTickText(double ns);

class DurationTicker : public QCPAxisTicker
{
public:
    explicit DurationTicker(bool logarithmic) : m_logarithmic(logarithmic) {}

protected:
    double getTickStep(const QCPRange& range) override;
    int getSubTickCount(double tickStep) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                         int precision) override;
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override;
    QVector<double> createSubTickVector(int subTickCount, const QVector<double>& ticks) override;

private:
    // How the last range asked for is ticked (QCPAxisTicker::generate calls getTickStep
    // first with the range, then the other hooks).
    enum class Mode { Linear, Mantissas, Decades };
    Mode m_mode = Mode::Linear;
    bool m_logarithmic = false;
    int m_decadeStep = 1;        // Decades: a tick every this many decades
    QVector<double> m_mantissas; // Mantissas: the round values in [1, 10) that get ticks
};

} // namespace spanscope::views
