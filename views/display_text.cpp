#include "display_text.h"

#include "model/report/duration_format.h"

#include <QLocale>
#include <cmath>

namespace spanscope::views {

QString bytesText(double bytes)
{
    return QString::fromStdString(model::report::formatBytes(bytes));
}

QString durationText(double ns)
{
    return QString::fromStdString(model::report::formatDuration(ns));
}

QString durationText(std::optional<double> ns)
{
    return ns ? durationText(*ns) : kMissingText;
}

QString durationText(std::optional<int64_t> ns)
{
    return ns ? durationText(double(*ns)) : kMissingText;
}

QString exactNsText(int64_t ns)
{
    return QLocale().toString(qlonglong(ns)) + QStringLiteral(" ns");
}

QString exactNsText(double ns)
{
    // Whole values (sums, medians of an odd count) print without a pointless ".0".
    if (std::nearbyint(ns) == ns && std::abs(ns) < 9.0e15)
        return exactNsText(int64_t(ns));
    return QLocale().toString(ns, 'f', 1) + QStringLiteral(" ns");
}

QString exactNsText(std::optional<double> ns)
{
    return ns ? exactNsText(*ns) : QString();
}

QString exactNsText(std::optional<int64_t> ns)
{
    return ns ? exactNsText(*ns) : QString();
}

QString countText(uint64_t count)
{
    return QLocale().toString(qulonglong(count));
}

QString countedText(uint64_t count, const QString& singular, const QString& plural)
{
    return countText(count) + QLatin1Char(' ') + (count == 1 ? singular : plural);
}

QString percentText(std::optional<double> percent)
{
    return percent ? QLocale().toString(*percent, 'f', 1) + QStringLiteral(" %") : kMissingText;
}

QString elidedName(const QString& name, int maxChars)
{
    if (name.size() <= maxChars)
        return name;
    const int tail = maxChars / 3;
    return name.left(maxChars - tail - 1) + QChar(0x2026) + name.right(tail);
}

} // namespace spanscope::views
