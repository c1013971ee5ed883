#include "summary_command.h"

#include "kernel_class_option.h"
#include "model/analysis/gpu_analysis.h"
#include "model/capture_loader.h"
#include "model/report/gpu_report.h"
#include "model/report/summary_report.h"

#include <iostream>
#include <optional>

namespace spanscope::app::cli {

using model::report::ReportFormat;

namespace {

const char* kUsage =
    "usage: spanscope-cli summary FILE... [--format text|json|csv] [--per-thread]\n"
    "                             [--kernel-class NAME=REGEX]... [--table regions|gpu-devices|gpu-streams|\n"
    "                             gpu-gaps|critical-path] (CSV: which table)\n";

} // namespace

int runSummary(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    ReportFormat format = ReportFormat::Text;
    model::report::SummaryOptions options;
    model::analysis::KernelClasses classes;
    std::optional<model::report::GpuCsvTable> gpuTable; // CSV: a GPU table instead of the regions
    std::vector<std::string> files;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        std::string value;
        bool failed = false;
        if (takeKernelClassOption(args, i, classes, "summary", err, failed)) {
            if (failed)
                return 2;
            continue;
        }
        if (arg == "--table" || arg.rfind("--table=", 0) == 0) {
            const std::string name = arg == "--table" ? (i + 1 < args.size() ? args[++i] : "") : arg.substr(8);
            gpuTable = model::report::gpuCsvTableFromName(name);
            if (!gpuTable && name != "regions") {
                err << "spanscope-cli summary: unknown table '" << name
                    << "' (use regions, gpu-devices, gpu-streams, gpu-gaps or critical-path)\n";
                return 2;
            }
            continue;
        }
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
    if (gpuTable && format != ReportFormat::Csv) {
        err << "spanscope-cli summary: --table chooses a CSV table; text and JSON show every table\n";
        return 2;
    }
    if (format == ReportFormat::Csv)
        out << (gpuTable ? model::report::gpuCsvHeader(*gpuTable) : model::report::summaryCsvHeader(options));
    bool firstText = true;
    for (const auto& file : files) {
        auto loaded = model::loadCapture(file, nullptr, model::LoadOptions{false, false}); // no args needed
        if (!loaded) {
            err << "spanscope-cli: " << loaded.error().toString() << "\n";
            exitCode = 1;
            continue;
        }
        const model::Capture& capture = *loaded.value().capture;
        const model::analysis::GpuAnalysis gpu = model::analysis::analyzeGpu(capture, classes);
        const model::report::SummaryInput input{capture, *loaded.value().summary, &gpu};
        switch (format) {
        case ReportFormat::Text:
            if (!firstText)
                out << "\n";
            firstText = false;
            out << model::report::summaryText(input, options);
            break;
        case ReportFormat::Json: model::report::summaryJson(input, json); break;
        case ReportFormat::Csv:
            out << (gpuTable ? model::report::gpuCsvRows(*gpuTable, capture, gpu)
                             : model::report::summaryCsvRows(input, options));
            break;
        }
    }
    if (jsonArray)
        json.endArray();
    if (format == ReportFormat::Json && !json.text().empty())
        out << json.text() << "\n";
    return exitCode;
}

} // namespace spanscope::app::cli
