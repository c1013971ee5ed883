#pragma once
// How model values look at the display edge: formatted durations for cells and labels,
// exact ns for tooltips, and one dash for "not available". Pure functions; any thread.

#include <QString>
#include <cstdint>
#include <optional>

namespace spanscope::views {

// Shown wherever a figure does not exist (summary-only rows, no GPU data, ...).
inline const QString kMissingText = QStringLiteral("\u2013");

// "12.3 µs": three significant digits (model::report::formatDuration).
QString durationText(double ns);
QString durationText(std::optional<double> ns);
QString durationText(std::optional<int64_t> ns);

// "1,234,567 ns" for tooltips; fractional ns keep one decimal.
QString exactNsText(int64_t ns);
QString exactNsText(double ns);
QString exactNsText(std::optional<double> ns);
QString exactNsText(std::optional<int64_t> ns);

// "1.5 MiB" (model::report::formatBytes).
QString bytesText(double bytes);

// "1,234" with the locale's grouping.
QString countText(uint64_t count);

// "1 rank", "3 ranks", "1,204 calls": a count with the noun agreeing (no translation
// catalogue is loaded, so Qt's %n plural forms would print "rank(s)").
QString countedText(uint64_t count, const QString& singular, const QString& plural);

// A name short enough for a title: at most `maxChars` characters, the middle elided
// ("void at::native::…(int, float)"), since both ends tell C++ kernels apart.
QString elidedName(const QString& name, int maxChars = 120);

// "12.5 %", or the dash.
QString percentText(std::optional<double> percent);

} // namespace spanscope::views
