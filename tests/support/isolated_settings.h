#pragma once
// Keeps the user's settings out of a test, and the test out of other test processes that
// run at the same time (two ctest runs, ctest -j): QSettings and QStandardPaths' test
// locations go to a folder of this process alone, removed when it exits. Call first thing
// in initTestCase(), before anything reads a setting.

#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

namespace spanscope::testing {

inline void isolateSettings()
{
    static QTemporaryDir folder;
    QStandardPaths::setTestModeEnabled(true);
    for (const auto format : {QSettings::NativeFormat, QSettings::IniFormat})
        QSettings::setPath(format, QSettings::UserScope, folder.path());
}

} // namespace spanscope::testing
