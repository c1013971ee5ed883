#pragma once
// Runs model::compareRuns on a worker thread (QtConcurrent's pool) and hands the result to
// the GUI thread, through the views' one latest-wins helper (views/latest_job.h): start()
// again while one runs (the user changed the metric) and the older result is dropped. Deleting the job drops any pending result; the worker holds its own
// references to the captures, so it finishes safely on its own. Lives on the GUI thread.

#include "model/compare/run_comparison.h"
#include "views/latest_job.h"

#include <QObject>
#include <memory>
#include <vector>

namespace spanscope::views {

// The loaded runs of a comparison, kept alive together while any worker reads them.
struct ComparisonRun
{
    std::string label; // the file name, shown as column headers and legend entries
    std::shared_ptr<const model::Capture> capture;
    std::shared_ptr<const model::CaptureSummary> summary;
};

class ComparisonJob : public QObject
{
    Q_OBJECT

public:
    explicit ComparisonJob(QObject* parent = nullptr);
    ~ComparisonJob() override;

    // Needs two runs or more, the first the baseline.
    void start(std::vector<ComparisonRun> runs, const model::CompareOptions& options);
    bool isRunning() const { return m_job.isRunning(); }

signals:
    // The comparison of the latest start(), on the GUI thread.
    void finished(std::shared_ptr<const spanscope::model::Comparison> comparison);

private:
    LatestJob m_job; // the latest request wins; results of older ones are dropped
};

} // namespace spanscope::views
