#include "export_command.h"

#include <algorithm>

#include "model/capture_loader.h"
#include "model/io/chrome/chrome_trace_writer.h"

#include <iostream>

namespace spanscope::app::cli {

namespace {

const char* kUsage = "usage: spanscope-cli export [--format chrome] --output OUT.json[.gz] FILE\n";

} // namespace

int runExport(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string format = "chrome", output, file;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        auto value = [&](const char* name) -> const std::string* {
            if (i + 1 >= args.size()) {
                err << "spanscope-cli export: " << name << " needs a value\n" << kUsage;
                return nullptr;
            }
            return &args[++i];
        };
        if (arg == "--format") {
            const std::string* v = value("--format");
            if (!v)
                return 2;
            format = *v;
        } else if (arg.rfind("--format=", 0) == 0) {
            format = arg.substr(9);
        } else if (arg == "-o" || arg == "--output") {
            const std::string* v = value("--output");
            if (!v)
                return 2;
            output = *v;
        } else if (arg.rfind("--output=", 0) == 0) {
            output = arg.substr(9);
        } else if (arg == "-h" || arg == "--help") {
            out << kUsage;
            return 0;
        } else if (arg.size() > 1 && arg[0] == '-') {
            err << "spanscope-cli export: unknown option '" << arg << "'\n" << kUsage;
            return 2;
        } else if (file.empty()) {
            file = arg;
        } else {
            err << "spanscope-cli export: one file at a time ('" << file << "' and '" << arg << "')\n" << kUsage;
            return 2;
        }
    }
    if (format != "chrome") {
        err << "spanscope-cli export: unknown format '" << format << "' (chrome is the one there is)\n";
        return 2;
    }
    if (file.empty() || output.empty()) {
        err << "spanscope-cli export: " << (file.empty() ? "no file given" : "no --output given") << "\n" << kUsage;
        return 2;
    }
    auto loaded = model::loadCapture(file);
    if (!loaded) {
        err << "spanscope-cli: " << loaded.error().toString() << "\n";
        return 1;
    }
    const auto& capture = *loaded.value().capture;
    if (!capture.eventDataAvailable) {
        err << "spanscope-cli: " << file << ": an aggregate file has no per-call data to export\n";
        return 1;
    }
    if (auto written = model::io::writeChromeTrace(capture, output); !written) {
        err << "spanscope-cli: " << written.error().toString() << "\n";
        return 1;
    }
    const auto counters = std::count_if(capture.counters.begin(), capture.counters.end(),
                                        [](const model::CounterSeries& s) { return !s.derived; });
    out << output << ": " << capture.callCount() << " calls, " << capture.flows.size() << " flows, "
        << counters << " counters, " << capture.allocations.size() << " allocation events\n";
    return 0;
}

} // namespace spanscope::app::cli
