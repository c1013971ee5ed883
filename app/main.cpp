// spanscope: the desktop viewer. `spanscope [FILE...]` opens each file in a tab of its own;
// `spanscope --compare BASELINE CANDIDATE...` opens one comparison of the files instead;
// `spanscope --launch -- PROGRAM [ARGS...]` runs the program with the NVTX collector and
// shows its capture live (as File > Launch does).
// The hidden option `--screenshot PNG` waits until every file given has loaded (a
// comparison has been computed, a launched job has ended), saves the window as PNG and exits: for the screenshots in
// docs/ and for looking at the interface on machines without a display (run it under
// xvfb-run or QT_QPA_PLATFORM=offscreen).

#include "application_icon.h"
#include "theme.h"
#include "launch_dialog.h"
#include "main_window.h"
#include "model/heap_reuse.h"
#include "spanscope_version.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTimer>
#include <cstdio>
#include <cstring>

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

// The viewer's command line; the same for the viewer and for answering --help alone.
struct CommandLine
{
    QCommandLineParser parser;
    QCommandLineOption compare{
        QStringLiteral("compare"),
        QStringLiteral("Compare the files in one tab instead: the first is the baseline.")};
    QCommandLineOption launch{
        QStringLiteral("launch"),
        QStringLiteral("Run PROGRAM [ARGS...] (after --) with the NVTX collector and show it live.")};
    QCommandLineOption screenshot{QStringLiteral("screenshot"),
                                  QStringLiteral("Save the window as PNG once loaded, then exit."),
                                  QStringLiteral("png")};
    // With --screenshot: take it after this many ms instead (a live capture mid-run).
    QCommandLineOption screenshotAfter{QStringLiteral("screenshot-after"),
                                       QStringLiteral("Take the screenshot after MS."),
                                       QStringLiteral("ms")};

    QCommandLineOption theme{QStringLiteral("theme"),
                             QStringLiteral("Colours for this session: system, light or dark (View > Theme "
                                            "chooses for good)."),
                             QStringLiteral("name")};
    // With --screenshot: the window's size, WIDTHxHEIGHT (default 1400x900).
    QCommandLineOption screenshotSize{QStringLiteral("screenshot-size"),
                                      QStringLiteral("Window size for the screenshot."),
                                      QStringLiteral("WxH"), QStringLiteral("1400x900")};

    CommandLine()
    {
        parser.setApplicationDescription(
            QStringLiteral("Profile viewer for GPU and CPU programs: scope-profiler HDF5 region "
                           "files, PyTorch profiler and Chrome trace JSON, spanscope captures, "
                           "and live NVTX and CUDA captures."));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addPositionalArgument(QStringLiteral("files"),
                                     QStringLiteral("Region files, captures and traces to open."),
                                     QStringLiteral("[FILE...]"));
        parser.addOption(compare);
        parser.addOption(launch);
        parser.addOption(theme);
        screenshot.setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(screenshot);
        screenshotAfter.setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(screenshotAfter);
        screenshotSize.setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(screenshotSize);
    }
};

void setIdentity()
{
    // Also the QSettings scope: ~/.config/spanscope/spanscope.conf on Linux.
    QCoreApplication::setOrganizationName(QStringLiteral("spanscope"));
    QCoreApplication::setApplicationName(QStringLiteral("spanscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SPANSCOPE_VERSION));
}

// --help and --version (before any "--") are answered without a display, so they work in
// a terminal without X and for help2man at build time.
bool asksOnlyForText(int argc, char** argv)
{
    for (int i = 1; i < argc && std::strcmp(argv[i], "--") != 0; ++i)
        for (const char* option : {"-h", "--help", "--help-all", "-v", "--version"})
            if (std::strcmp(argv[i], option) == 0)
                return true;
    return false;
}

} // namespace

int main(int argc, char** argv)
{
    spanscope::model::keepHeapForReuse(); // live updates' scratch reused, not faulted in afresh
    if (asksOnlyForText(argc, argv)) {
        QCoreApplication app(argc, argv);
        setIdentity();
        CommandLine commandLine;
        commandLine.parser.process(app); // prints and exits
        return 0;
    }
    QApplication app(argc, argv);
    setIdentity();
    // Desktops match the window to the installed .desktop file (its name and icon).
    QGuiApplication::setDesktopFileName(QStringLiteral(SPANSCOPE_APP_ID));
    QApplication::setWindowIcon(spanscope::app::applicationIcon());
    spanscope::app::applyTheme(spanscope::app::savedTheme());

    CommandLine commandLine;
    QCommandLineParser& parser = commandLine.parser;
    const QCommandLineOption &compare = commandLine.compare, &launch = commandLine.launch,
                             &screenshot = commandLine.screenshot,
                             &screenshotAfter = commandLine.screenshotAfter,
                             &screenshotSize = commandLine.screenshotSize, &theme = commandLine.theme;
    parser.process(app);
    if (parser.isSet(theme)) {
        const QString name = parser.value(theme);
        bool known = false;
        for (const auto choice : {spanscope::app::Theme::System, spanscope::app::Theme::Light, spanscope::app::Theme::Dark})
            if (name == spanscope::app::themeName(choice)) {
                spanscope::app::applyTheme(choice);
                known = true;
            }
        if (!known) {
            std::fprintf(stderr, "spanscope: --theme takes system, light or dark, not \"%s\"\n", qPrintable(name));
            return 2;
        }
    }
    if (parser.isSet(compare) && parser.positionalArguments().size() < 2) {
        std::fprintf(stderr, "spanscope: --compare needs two files or more, the baseline first\n");
        return 2;
    }
    if (parser.isSet(launch) && parser.positionalArguments().isEmpty()) {
        std::fprintf(stderr, "spanscope: --launch needs a program: spanscope --launch -- PROGRAM [ARGS...]\n");
        return 2;
    }

    const QStringList size = parser.value(screenshotSize).split(QLatin1Char('x'));
    const int width = size.size() == 2 ? size[0].toInt() : 0, height = size.size() == 2 ? size[1].toInt() : 0;
    if (parser.isSet(screenshot) && (width < 200 || height < 200)) {
        std::fprintf(stderr, "spanscope: --screenshot-size takes WIDTHxHEIGHT, each at least 200 px\n");
        return 2;
    }
    spanscope::app::MainWindow window;
    if (parser.isSet(screenshot))
        window.resize(width, height); // the same picture whatever the saved geometry
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
