#include "comparison_job.h"

#include <QtConcurrent/QtConcurrentRun>

namespace spanscope::views {

ComparisonJob::ComparisonJob(QObject* parent) : QObject(parent) {}

ComparisonJob::~ComparisonJob() = default;

void ComparisonJob::start(std::vector<ComparisonRun> runs, const model::CompareOptions& options)
{
    auto compute = [runs = std::move(runs), options] {
        std::vector<model::RunInput> inputs;
        inputs.reserve(runs.size());
        for (const auto& run : runs)
            inputs.push_back({run.capture.get(), run.summary.get(), run.label});
        return std::make_shared<const model::Comparison>(model::compareRuns(inputs, options));
    };
    m_job.run(std::move(compute), [this](std::shared_ptr<const model::Comparison> comparison) {
        emit finished(std::move(comparison));
    });
}

} // namespace spanscope::views
