#include "summary_command.h"

#include "model/capture_loader.h"
#include "model/report/summary_report.h"

#include <iostream>

namespace spanscope::app::cli {

using model::report::ReportFormat;

namespace {

const char* kUsage =
    "usage: spanscope-cli summary FILE... [--format text|json|csv] [--per-thread]\n";

} // namespace

int runSummary(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    ReportFormat format = ReportFormat::Text;
    model::report::SummaryOptions options;
    std::vector<std::string> files;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        std::string value;
        if (arg == "--format") {
            if (i + 1 >= args.size()) {
                err << "spanscope-cli summary: --format needs a value (text, json or csv)\n" << kUsage;
                return 2;
            }
            value = args[++i];
        } else if (arg.rfind("--format=", 0) == 0) {
            value = arg.substr(9);
        } else if (arg == "--per-thread") {
            options.perThread = true;
            continue;
        } else if (arg == "-h" || arg == "--help") {
            out << kUsage;
            return 0;
        } else if (arg.size() > 1 && arg[0] == '-' && arg != "-") {
            err << "spanscope-cli summary: unknown option '" << arg << "'\n" << kUsage;
            return 2;
        } else {
            files.push_back(arg);
            continue;
        }
        if (value == "text")
            format = ReportFormat::Text;
        else if (value == "json")
            format = ReportFormat::Json;
        else if (value == "csv")
            format = ReportFormat::Csv;
        else {
            err << "spanscope-cli summary: unknown format '" << value << "' (use text, json or csv)\n";
            return 2;
        }
    }
    if (files.empty()) {
        err << "spanscope-cli summary: no file given\n" << kUsage;
        return 2;
    }

    int exitCode = 0;
    model::report::JsonWriter json;
    const bool jsonArray = format == ReportFormat::Json && files.size() > 1;
    if (jsonArray)
        json.beginArray();
    if (format == ReportFormat::Csv)
        out << model::report::summaryCsvHeader(options);
    bool firstText = true;
    for (const auto& file : files) {
        auto loaded = model::loadCapture(file, nullptr, model::LoadOptions{false, false}); // no args needed
        if (!loaded) {
            err << "spanscope-cli: " << loaded.error().toString() << "\n";
            exitCode = 1;
            continue;
        }
        const model::report::SummaryInput input{*loaded.value().capture, *loaded.value().summary};
        switch (format) {
        case ReportFormat::Text:
            if (!firstText)
                out << "\n";
            firstText = false;
            out << model::report::summaryText(input, options);
            break;
        case ReportFormat::Json: model::report::summaryJson(input, json); break;
        case ReportFormat::Csv: out << model::report::summaryCsvRows(input, options); break;
        }
    }
    if (jsonArray)
        json.endArray();
    if (format == ReportFormat::Json && !json.text().empty())
        out << json.text() << "\n";
    return exitCode;
}

} // namespace spanscope::app::cli
