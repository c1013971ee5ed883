#pragma once
// Screenshots for a person to look at (tests/screenshots/README.md), never compared by a
// test: with SPANSCOPE_SCREENSHOT_DIR set, saveScreenshot(widget, "name") writes
// DIR/name.png; unset, it does nothing.

#include <QCoreApplication>
#include <QDir>
#include <QWidget>

namespace spanscope::testing {

// Pending layouts and queued replots run first (plots fit their ticks to the laid-out size
// and replot once more). False when the file could not be written.
inline bool saveScreenshot(QWidget& widget, const QString& name)
{
    const QString dir = qEnvironmentVariable("SPANSCOPE_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return true;
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
    return widget.grab().save(QDir(dir).filePath(name + QStringLiteral(".png")));
}

} // namespace spanscope::testing
