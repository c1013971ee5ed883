#include "capture_tab.h"

#include "capture_load_job.h"
#include "lane_layout_memory.h"
#include "loading_page.h"
#include "views/capture_view.h"
#include "views/warnings_widget.h"

#include <QFileInfo>
#include <QStackedLayout>

namespace spanscope::app {

CaptureTab::CaptureTab(const QString& path, QWidget* parent) : QWidget(parent), m_path(path)
{
    m_job = new CaptureLoadJob(this);
    m_stack = new QStackedLayout(this);

    m_loadingPage = new LoadingPage(tr("Loading %1\u2026").arg(QFileInfo(path).fileName()),
                                    QFileInfo(path).absolutePath(), tr("Stop loading this file"));
    m_stack->addWidget(m_loadingPage);

    connect(m_loadingPage, &LoadingPage::cancelRequested, this, &CaptureTab::cancelLoad);
    connect(m_job, &CaptureLoadJob::progressChanged, this, &CaptureTab::showProgress);
    connect(m_job, &CaptureLoadJob::finished, this, [this](const model::LoadedCapture& result) {
        if (!m_view) {
            m_view = new views::CaptureView;
            m_stack->addWidget(m_view);
            watchLaneLayout(m_view->timeline(), fileLayoutKey(m_path));
        }
        m_view->setCapture(result.capture, result.summary, result.timeline);
        showView();
        emit loaded();
        emit loadingChanged(false);
    });
    connect(m_job, &CaptureLoadJob::failed, this, [this](const model::Error& error) {
        showView();
        emit loadFailed(error);
        emit loadingChanged(false);
    });
    connect(m_job, &CaptureLoadJob::cancelled, this, [this] {
        showView();
        emit loadCancelled(m_view != nullptr);
        emit loadingChanged(false);
    });
}

CaptureTab::~CaptureTab() = default;

void CaptureTab::load()
{
    m_stack->setCurrentWidget(m_loadingPage);
    m_loadingPage->restart();
    m_job->start(m_path);
    emit loadingChanged(true);
}

void CaptureTab::cancelLoad()
{
    m_job->cancel();
}

bool CaptureTab::isLoading() const
{
    return m_job->isRunning();
}

int CaptureTab::warningCount() const
{
    return m_view ? m_view->warnings()->count() : 0;
}

void CaptureTab::showProgress(double fraction)
{
    m_loadingPage->setProgress(fraction);
}

void CaptureTab::showView()
{
    if (m_view)
        m_stack->setCurrentWidget(m_view);
}

} // namespace spanscope::app
