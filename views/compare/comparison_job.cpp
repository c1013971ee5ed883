#include "comparison_job.h"

#include <QtConcurrent/QtConcurrentRun>

namespace spanscope::views {

ComparisonJob::ComparisonJob(QObject* parent) : QObject(parent) {}

ComparisonJob::~ComparisonJob() = default;

void ComparisonJob::start(std::vector<ComparisonRun> runs, const model::CompareOptions& options)
{
    const quint64 generation = ++m_generation;
    m_running = true;
    auto compute = [runs = std::move(runs), options] {
        std::vector<model::RunInput> inputs;
        inputs.reserve(runs.size());
        for (const auto& run : runs)
            inputs.push_back({run.capture.get(), run.summary.get(), run.label});
        return std::make_shared<const model::Comparison>(model::compareRuns(inputs, options));
    };
    // The continuation runs on the GUI thread, and not at all once this job is gone.
    QtConcurrent::run(std::move(compute))
        .then(this, [this, generation](std::shared_ptr<const model::Comparison> comparison) {
            if (generation != m_generation)
                return; // a newer request is running or done
            m_running = false;
            emit finished(std::move(comparison));
        });
}

} // namespace spanscope::views
