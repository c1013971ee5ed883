#include "compare_command.h"

#include "model/capture_loader.h"
#include "model/report/compare_report.h"

#include <charconv>
#include <ostream>

namespace spanscope::app::cli {

namespace {

const char* kUsage = "usage: spanscope-cli compare BASELINE CANDIDATE... [--format text|json|csv]\n"
                     "                             [--threshold PCT]\n"
                     "                             [--metric mean|p50|p95|total|allocs|bytes]\n"
                     "                             [--region REGEX] [--per-rank]\n";

} // namespace

int runCompare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    model::CompareOptions options;
    std::string format = "text";
    std::vector<std::string> files;
    auto usage = [&](const std::string& problem) {
        err << "spanscope-cli compare: " << problem << "\n" << kUsage;
        return 2;
    };
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        auto next = [&](std::string& value) {
            if (i + 1 >= args.size())
                return false;
            value = args[++i];
            return true;
        };
        std::string value;
        if (arg == "-h" || arg == "--help") {
            out << kUsage;
            return 0;
        } else if (arg == "--format") {
            if (!next(value) || (value != "text" && value != "json" && value != "csv"))
                return usage("--format takes text, json or csv");
            format = value;
        } else if (arg == "--threshold") {
            double threshold = 0;
            if (!next(value))
                return usage("--threshold needs a percentage");
            const auto r = std::from_chars(value.data(), value.data() + value.size(), threshold);
            if (r.ec != std::errc() || r.ptr != value.data() + value.size() || threshold < 0)
                return usage("--threshold needs a percentage >= 0, e.g. 5");
            options.thresholdPercent = threshold;
        } else if (arg == "--metric") {
            if (!next(value) || !model::parseMetric(value))
                return usage("--metric takes mean, p50, p95, total, allocs or bytes");
            options.metric = *model::parseMetric(value);
        } else if (arg == "--region") {
            if (!next(value))
                return usage("--region needs a regular expression");
            try {
                options.region = std::regex(value, std::regex::ECMAScript);
            } catch (const std::regex_error&) {
                return usage("--region: not a valid regular expression: " + value);
            }
        } else if (arg == "--per-rank") {
            options.perRank = true;
        } else if (arg.size() > 1 && arg[0] == '-') {
            return usage("unknown option '" + arg + "'");
        } else {
            files.push_back(arg);
        }
    }
    if (files.size() < 2)
        return usage("needs a baseline and at least one candidate");

    std::vector<model::LoadedCapture> loaded;
    for (const auto& file : files) {
        auto result = model::loadCapture(file, nullptr, model::LoadOptions{false, false}); // no args needed
        if (!result) {
            err << "spanscope-cli: " << result.error().toString() << "\n";
            return 1; // a comparison with a run missing would mislead a CI gate
        }
        loaded.push_back(std::move(result.value()));
    }
    std::vector<model::RunInput> runs;
    for (size_t i = 0; i < files.size(); ++i)
        runs.push_back({loaded[i].capture.get(), loaded[i].summary.get(), files[i]});
    const auto comparison = model::compareRuns(runs, options);

    if (format == "json") {
        model::report::JsonWriter json;
        model::report::comparisonJson(comparison, json);
        out << json.text() << "\n";
    } else if (format == "csv") {
        out << model::report::comparisonCsv(comparison);
    } else {
        out << model::report::comparisonText(comparison);
    }
    return comparison.anySignificantSlowdown() ? 1 : 0;
}

} // namespace spanscope::app::cli
