#include "render_command.h"

#include "model/capture_loader.h"
#include "views/timeline/timeline_view.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QRegularExpression>

#include <charconv>
#include <ostream>

namespace spanscope::app::cli {

namespace {

const char* kUsage = "usage: spanscope-cli render FILE --output OUT.png [--width W] [--height H]\n"
                     "                            [--from NS] [--to NS] [--lanes REGEX]\n";

struct RenderOptions
{
    std::string file, output, lanes;
    int width = 1600, height = 900;
    std::optional<int64_t> from, to;
};

template <typename T>
bool parseNumber(const std::string& text, T& value)
{
    const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    return result.ec == std::errc() && result.ptr == text.data() + text.size();
}

// Returns an error message, empty on success.
std::string parse(const std::vector<std::string>& args, RenderOptions& options)
{
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        auto value = [&](std::string& into) {
            if (i + 1 >= args.size())
                return false;
            into = args[++i];
            return true;
        };
        std::string text;
        if (arg == "--output" || arg == "-o") {
            if (!value(options.output))
                return "--output needs a file name";
        } else if (arg == "--lanes") {
            if (!value(options.lanes))
                return "--lanes needs a regular expression";
            if (!QRegularExpression(QString::fromStdString(options.lanes)).isValid())
                return "--lanes: not a valid regular expression: " + options.lanes;
        } else if (arg == "--width" || arg == "--height") {
            int number = 0;
            if (!value(text) || !parseNumber(text, number) || number < 200 || number > 16384)
                return arg + " needs a number of pixels from 200 to 16384";
            (arg == "--width" ? options.width : options.height) = number;
        } else if (arg == "--from" || arg == "--to") {
            int64_t number = 0;
            if (!value(text) || !parseNumber(text, number))
                return arg + " needs a time in ns from the start of the run";
            (arg == "--from" ? options.from : options.to) = number;
        } else if (!arg.empty() && arg[0] == '-') {
            return "unknown option '" + arg + "'";
        } else if (options.file.empty()) {
            options.file = arg;
        } else {
            return "render takes one file";
        }
    }
    if (options.file.empty())
        return "no file given";
    if (options.output.empty())
        return "--output is required";
    if (options.from && options.to && *options.to <= *options.from)
        return "--to must be after --from";
    return {};
}

} // namespace

int runRender(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    RenderOptions options;
    if (args.size() == 1 && (args[0] == "-h" || args[0] == "--help")) {
        out << kUsage;
        return 0;
    }
    if (const std::string problem = parse(args, options); !problem.empty()) {
        err << "spanscope-cli render: " << problem << "\n" << kUsage;
        return 2;
    }
    auto loaded = model::loadCapture(options.file, nullptr, model::LoadOptions{true});
    if (!loaded) {
        err << "spanscope-cli: " << loaded.error().toString() << "\n";
        return 1;
    }
    if (!loaded.value().capture->eventDataAvailable) {
        err << "spanscope-cli: " << options.file << ": no per-call data (aggregate layout): nothing to draw\n";
        return 1;
    }

    // Headless: no display needed. The widget is the viewer's own, so the picture is the same.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "spanscope-cli";
    static char* argv[] = {name, nullptr};
    QApplication app(argc, argv);
    views::TimelineView view;
    view.resize(options.width, options.height);
    view.setCapture(loaded.value().capture, loaded.value().timeline);
    auto* zoom = view.zoom();
    if (options.from || options.to) {
        const int64_t start = zoom->runStart() + options.from.value_or(0);
        const int64_t end = options.to ? zoom->runStart() + *options.to : zoom->runEnd();
        zoom->setRange(start, end);
    }
    if (!options.lanes.empty())
        view.setLaneFilter(QRegularExpression(QString::fromStdString(options.lanes)));
    QElapsedTimer waited;
    waited.start();
    while (!view.frameUpToDate() && waited.elapsed() < 120'000)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    const QString output = QString::fromStdString(options.output);
    if (!view.grab().save(output, "PNG")) {
        err << "spanscope-cli: cannot write " << options.output << "\n";
        return 1;
    }
    out << options.output << ": " << options.width << "x" << options.height << ", "
        << view.drawList().callsInView << " calls in view\n";
    return 0;
}

} // namespace spanscope::app::cli
