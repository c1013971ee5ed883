#include "compare_command.h"

#include "kernel_class_option.h"
#include "model/analysis/gpu_comparison.h"
#include "model/capture_loader.h"
#include "model/report/compare_report.h"
#include "model/report/gpu_compare_report.h"

#include <charconv>
#include <optional>
#include <ostream>

namespace spanscope::app::cli {

namespace {

const char* kUsage = "usage: spanscope-cli compare BASELINE CANDIDATE... [--format text|json|csv]\n"
                     "                             [--threshold PCT]\n"
                     "                             [--metric mean|p50|p95|total|allocs|bytes|\n"
                     "                                       gpu_idle|launch_latency|critical_path]\n"
                     "                             [--region REGEX] [--per-rank] [--kernel-class NAME=REGEX]...\n";

} // namespace

int runCompare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    model::CompareOptions options;
    model::analysis::KernelClasses classes;
    std::optional<model::analysis::GpuMetric> gpuMetric;
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
        bool failed = false;
        if (takeKernelClassOption(args, i, classes, "compare", err, failed)) {
            if (failed)
                return 2;
        } else if (arg == "-h" || arg == "--help") {
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
            if (!next(value) || (!model::parseMetric(value) && !model::analysis::parseGpuMetric(value)))
                return usage("--metric takes mean, p50, p95, total, allocs, bytes, gpu_idle, launch_latency or "
                             "critical_path");
            if (const auto metric = model::parseMetric(value))
                options.metric = *metric;
            gpuMetric = model::analysis::parseGpuMetric(value);
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
    // Each run's GPU analyses, side by side (and the GPU metric's changes, when chosen).
    std::vector<model::analysis::GpuAnalysis> analyses;
    std::vector<const model::analysis::GpuAnalysis*> analysed;
    analyses.reserve(loaded.size());
    for (const auto& run : loaded) {
        analyses.push_back(model::analysis::analyzeGpu(*run.capture, classes));
        analysed.push_back(analyses.back().empty() ? nullptr : &analyses.back());
    }
    const auto gpu = model::analysis::compareGpu(analysed, gpuMetric, options);
    if (gpuMetric && gpu.empty()) {
        err << "spanscope-cli compare: --metric " << model::analysis::gpuMetricName(*gpuMetric)
            << " needs GPU work, and no run has any\n";
        return 2;
    }
    const model::analysis::GpuComparison* shown = gpu.empty() ? nullptr : &gpu;

    if (format == "json") {
        model::report::JsonWriter json;
        model::report::comparisonJson(comparison, json, shown);
        out << json.text() << "\n";
    } else if (format == "csv") {
        out << (gpuMetric ? model::report::gpuComparisonCsv(gpu, comparison.labels)
                          : model::report::comparisonCsv(comparison));
    } else {
        out << model::report::comparisonText(comparison, shown);
    }
    return (gpuMetric ? gpu.anySlowdown() : comparison.anySignificantSlowdown()) ? 1 : 0;
}

} // namespace spanscope::app::cli
