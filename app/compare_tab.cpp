#include "compare_tab.h"

#include "capture_load_job.h"
#include "loading_page.h"
#include "views/compare/comparison_view.h"

#include <QDir>
#include <QFileInfo>
#include <QStackedLayout>
#include <algorithm>

namespace spanscope::app {

namespace {


QStringList runLabels(const QStringList& paths)
{
    QStringList names;
    for (const QString& path : paths)
        names << QFileInfo(path).fileName();
    QStringList labels;
    for (int i = 0; i < paths.size(); ++i) {
        const QFileInfo file(paths[i]);
        // Runs of the same name from different folders (run1/out.h5, run2/out.h5).
        labels << (names.count(names[i]) > 1 ? file.dir().dirName() + QLatin1Char('/') + names[i]
                                             : names[i]);
    }
    return labels;
}

} // namespace

CompareTab::CompareTab(const QStringList& paths, QWidget* parent)
    : QWidget(parent), m_paths(paths), m_labels(runLabels(paths))
{
    m_stack = new QStackedLayout(this);
    m_loadingPage = new LoadingPage(tr("Loading %1 runs to compare\u2026").arg(paths.size()),
                                    m_labels.join(QStringLiteral("\n")), tr("Stop loading these files"));
    m_stack->addWidget(m_loadingPage);

    m_results.resize(size_t(paths.size()));
    for (int i = 0; i < paths.size(); ++i) {
        auto* job = new CaptureLoadJob(this);
        m_jobs.push_back(job);
        connect(job, &CaptureLoadJob::progressChanged, this, &CompareTab::showProgress);
        connect(job, &CaptureLoadJob::finished, this,
                [this, i](const model::LoadedCapture& loaded) {
                    m_results[size_t(i)] = loaded;
                    jobFinished();
                });
        connect(job, &CaptureLoadJob::failed, this, [this, i](const model::Error& error) {
            if (!m_loading)
                return;
            stopJobs();
            showView();
            emit loadFailed(m_paths[i], error);
            emit loadingChanged(false);
        });
        // A job is only cancelled through cancelLoad() or stopJobs(), which report it.
    }
    connect(m_loadingPage, &LoadingPage::cancelRequested, this, &CompareTab::cancelLoad);
}

CompareTab::~CompareTab() = default;

QString CompareTab::title() const
{
    QString text = tr("%1 vs %2").arg(m_labels.value(0), m_labels.value(1));
    if (m_labels.size() > 2)
        text += tr(" (+%1)").arg(m_labels.size() - 2);
    return text;
}

void CompareTab::load()
{
    m_loading = true;
    m_computing = false;
    m_stack->setCurrentWidget(m_loadingPage);
    m_loadingPage->restart();
    for (int i = 0; i < m_paths.size(); ++i)
        m_jobs[size_t(i)]->start(m_paths[i]);
    emit loadingChanged(true);
}

void CompareTab::cancelLoad()
{
    if (!m_loading && !m_computing)
        return;
    stopJobs();
    // Cancelled while the first comparison computes: the view has nothing to show yet.
    const bool hadView = m_view && m_view->comparison();
    m_computing = false;
    showView();
    emit loadCancelled(hadView);
    emit loadingChanged(false);
}

bool CompareTab::isLoading() const
{
    return m_loading || m_computing;
}

void CompareTab::stopJobs()
{
    m_loading = false;
    for (CaptureLoadJob* job : m_jobs)
        job->cancel(); // emits cancelled() for a running job; nobody listens
}

void CompareTab::showProgress()
{
    // Each file counts the same: sizes differ, but the bar only needs to move steadily.
    double sum = 0.0;
    for (const CaptureLoadJob* job : m_jobs)
        sum += job->isRunning() ? job->progress() : 1.0;
    m_loadingPage->setProgress(sum / double(m_jobs.size()));
}

void CompareTab::jobFinished()
{
    showProgress();
    if (!m_loading || std::any_of(m_jobs.begin(), m_jobs.end(),
                                  [](const CaptureLoadJob* job) { return job->isRunning(); }))
        return;
    m_loading = false;
    m_computing = true;
    std::vector<views::ComparedRun> runs;
    for (size_t i = 0; i < m_results.size(); ++i)
        runs.push_back(
            {m_labels[int(i)], m_results[i].capture, m_results[i].summary, m_results[i].timeline});
    m_results.assign(m_results.size(), {}); // the view holds the snapshots from here on
    if (!m_view) {
        m_view = new views::ComparisonView;
        m_stack->addWidget(m_view);
        connect(m_view, &views::ComparisonView::comparisonShown, this, [this] {
            if (!m_computing)
                return; // a recomputation after the user changed an option
            m_computing = false;
            showView();
            emit loaded();
            emit loadingChanged(false);
        });
    }
    m_view->setRuns(std::move(runs));
}

void CompareTab::showView()
{
    if (m_view)
        m_stack->setCurrentWidget(m_view);
}

} // namespace spanscope::app
