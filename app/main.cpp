// spanscope: the desktop viewer. `spanscope [FILE...]` opens each file in a tab of its own;
// `spanscope --compare BASELINE CANDIDATE...` opens one comparison of the files instead;
// `spanscope --launch -- PROGRAM [ARGS...]` runs the program with the NVTX collector and
// shows its capture live (as File > Launch does).
// The hidden option `--screenshot PNG` waits until every file given has loaded (a
// comparison has been computed, a launched job has ended), saves the window as PNG and exits: for the screenshots in
// docs/ and for looking at the interface on machines without a display (run it under
// xvfb-run or QT_QPA_PLATFORM=offscreen).

#include "launch_dialog.h"
#include "main_window.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTimer>
#include <cstdio>

namespace {

// Loading fixtures takes well under a second; a stuck load must not hang a docs build.
constexpr int kScreenshotDeadlineMs = 60'000;
// Lets the last layout and paint settle after loading finished.
constexpr int kScreenshotSettleMs = 400;

void saveScreenshot(spanscope::app::MainWindow& window, const QString& file)
{
    const bool saved = window.grab().save(file, "PNG");
    if (!saved)
        std::fprintf(stderr, "spanscope: could not write the screenshot %s\n", qPrintable(file));
    QCoreApplication::exit(saved ? 0 : 1);
}

void saveScreenshotWhenLoaded(spanscope::app::MainWindow& window, const QString& file)
{
    auto* poll = new QTimer(&window);
    auto* clock = new QElapsedTimer;
    clock->start();
    QObject::connect(poll, &QTimer::timeout, &window, [&window, poll, clock, file] {
        if ((window.isLoading() || window.hasLiveCaptures()) &&
            clock->elapsed() < kScreenshotDeadlineMs)
            return;
        poll->stop();
        delete clock;
        QTimer::singleShot(kScreenshotSettleMs, &window,
                           [&window, file] { saveScreenshot(window, file); });
    });
    poll->start(100);
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    // Also the QSettings scope: ~/.config/spanscope/spanscope.conf on Linux.
    QApplication::setOrganizationName(QStringLiteral("spanscope"));
    QApplication::setApplicationName(QStringLiteral("spanscope"));
    QApplication::setApplicationVersion(QStringLiteral(SPANSCOPE_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Profile viewer for scope-profiler HDF5 region files and live NVTX captures."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("files"), QStringLiteral("Region files to open."),
                                 QStringLiteral("[FILE...]"));
    QCommandLineOption compare(
        QStringLiteral("compare"),
        QStringLiteral("Compare the files in one tab instead: the first is the baseline."));
    parser.addOption(compare);
    QCommandLineOption launch(
        QStringLiteral("launch"),
        QStringLiteral("Run PROGRAM [ARGS...] (after --) with the NVTX collector and show it live."));
    parser.addOption(launch);
    QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                  QStringLiteral("Save the window as PNG once loaded, then exit."),
                                  QStringLiteral("png"));
    screenshot.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(screenshot);
    // With --screenshot: take it after this many ms instead (a live capture mid-run).
    QCommandLineOption screenshotAfter(QStringLiteral("screenshot-after"),
                                       QStringLiteral("Take the screenshot after MS."),
                                       QStringLiteral("ms"));
    screenshotAfter.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(screenshotAfter);
    parser.process(app);
    if (parser.isSet(compare) && parser.positionalArguments().size() < 2) {
        std::fprintf(stderr, "spanscope: --compare needs two files or more, the baseline first\n");
        return 2;
    }
    if (parser.isSet(launch) && parser.positionalArguments().isEmpty()) {
        std::fprintf(stderr, "spanscope: --launch needs a program: spanscope --launch -- PROGRAM [ARGS...]\n");
        return 2;
    }

    spanscope::app::MainWindow window;
    if (parser.isSet(screenshot))
        window.resize(1400, 900); // the same picture whatever the saved geometry
    window.show();
    if (parser.isSet(launch)) {
        spanscope::app::LaunchSpec spec;
        spec.program = parser.positionalArguments().front();
        spec.arguments = parser.positionalArguments().mid(1);
        if (!window.launchJob(spec))
            return 2;
    } else if (parser.isSet(compare))
        window.compareFiles(parser.positionalArguments());
    else
        window.openFiles(parser.positionalArguments());
    if (parser.isSet(screenshot) && parser.isSet(screenshotAfter))
        QTimer::singleShot(parser.value(screenshotAfter).toInt(), &window,
                           [&window, file = parser.value(screenshot)] { saveScreenshot(window, file); });
    else if (parser.isSet(screenshot))
        saveScreenshotWhenLoaded(window, parser.value(screenshot));
    return app.exec();
}
