#include "duration_ticker.h"

#include "model/report/duration_format.h"

#include <cmath>

namespace spanscope::views {

namespace {

// Round values within a decade that may carry a tick, finest first. The ticker takes the
// finest set that gives no more ticks than the axis has room for.
const QVector<double> kMantissaSets[] = {
    {1, 1.5, 2, 3, 4, 5, 6, 7, 8},
    {1, 2, 3, 5},
    {1, 2, 5},
    {1, 3},
};

// Ticks `mantissas` x 10^k put inside `range`.
int ticksInRange(const QVector<double>& mantissas, const QCPRange& range)
{
    int count = 0;
    const int first = int(std::floor(std::log10(range.lower)));
    const int last = int(std::ceil(std::log10(range.upper)));
    for (int exponent = first; exponent <= last; ++exponent)
        for (const double mantissa : mantissas) {
            const double tick = mantissa * std::pow(10.0, exponent);
            count += tick >= range.lower && tick <= range.upper;
        }
    return count;
}

} // namespace

QString durationTickText(double ns)
{
    QString text = QString::fromStdString(model::report::formatDuration(ns));
    const qsizetype space = text.indexOf(QLatin1Char(' '));
    const qsizetype point = text.indexOf(QLatin1Char('.'));
    if (space < 0 || point < 0 || point > space)
        return text;
    qsizetype end = space;
    while (end > point + 1 && text[end - 1] == QLatin1Char('0'))
        --end;
    if (end == point + 1)
        end = point; // "1." -> "1"
    return text.left(end) + text.mid(space);
}

double DurationTicker::getTickStep(const QCPRange& range)
{
    m_mode = Mode::Linear;
    if (!m_logarithmic || range.lower <= 0 || range.upper <= range.lower)
        return QCPAxisTicker::getTickStep(range);
    const int wanted = std::max(tickCount(), 2);
    // Narrower than the finest round values can show: plain evenly spaced ticks.
    if (ticksInRange(kMantissaSets[0], range) < 2)
        return QCPAxisTicker::getTickStep(range);
    for (const QVector<double>& mantissas : kMantissaSets)
        if (ticksInRange(mantissas, range) <= wanted) {
            m_mode = Mode::Mantissas;
            m_mantissas = mantissas;
            return 1.0;
        }
    m_mode = Mode::Decades;
    const double decades = std::log10(range.upper / range.lower);
    m_decadeStep = std::max(1, int(std::ceil(decades / double(wanted))));
    return m_decadeStep;
}

int DurationTicker::getSubTickCount(double tickStep)
{
    return m_mode == Mode::Linear ? QCPAxisTicker::getSubTickCount(tickStep) : 0;
}

QString DurationTicker::getTickLabel(double tick, const QLocale&, QChar, int)
{
    // Linear ticks at 0 come out as 1e-12 and the like after summing steps.
    return durationTickText(std::abs(tick) < 1e-6 ? 0.0 : tick);
}

QVector<double> DurationTicker::createTickVector(double tickStep, const QCPRange& range)
{
    if (m_mode == Mode::Linear)
        return QCPAxisTicker::createTickVector(tickStep, range);
    QVector<double> ticks;
    // One tick beyond each end, as QCPAxisTicker does, so sub ticks reach the edges.
    const int first = int(std::floor(std::log10(range.lower)));
    const int last = int(std::ceil(std::log10(range.upper)));
    if (m_mode == Mode::Decades) {
        const int start = int(std::floor(double(first) / m_decadeStep)) * m_decadeStep;
        for (int exponent = start; exponent <= last + m_decadeStep; exponent += m_decadeStep)
            ticks.append(std::pow(10.0, exponent));
        return ticks;
    }
    for (int exponent = first; exponent <= last; ++exponent)
        for (const double mantissa : m_mantissas)
            ticks.append(mantissa * std::pow(10.0, exponent));
    return ticks;
}

QVector<double> DurationTicker::createSubTickVector(int subTickCount, const QVector<double>& ticks)
{
    if (m_mode == Mode::Linear)
        return QCPAxisTicker::createSubTickVector(subTickCount, ticks);
    QVector<double> subTicks;
    if (m_mode != Mode::Decades)
        return subTicks;
    // 2..9 within each decade, or the skipped decades when ticks are further apart.
    for (qsizetype i = 0; i + 1 < ticks.size(); ++i) {
        if (m_decadeStep == 1) {
            for (int mantissa = 2; mantissa <= 9; ++mantissa)
                subTicks.append(ticks[i] * mantissa);
        } else {
            for (int decade = 1; decade < m_decadeStep; ++decade)
                subTicks.append(ticks[i] * std::pow(10.0, decade));
        }
    }
    return subTicks;
}

} // namespace spanscope::views
