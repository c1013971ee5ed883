#include "capture_tab.h"

#include "capture_load_job.h"
#include "views/capture_view.h"
#include "views/warnings_widget.h"

#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedLayout>
#include <QVBoxLayout>

namespace spanscope::app {

namespace {

// The progress bar counts in tenths of a percent.
constexpr int kProgressSteps = 1000;

} // namespace

CaptureTab::CaptureTab(const QString& path, QWidget* parent) : QWidget(parent), m_path(path)
{
    m_job = new CaptureLoadJob(this);
    m_stack = new QStackedLayout(this);

    m_loadingPage = new QWidget;
    auto* outer = new QVBoxLayout(m_loadingPage);
    auto* column = new QWidget;
    column->setMaximumWidth(480);
    auto* layout = new QVBoxLayout(column);
    m_loadingLabel = new QLabel(tr("Loading %1\u2026").arg(QFileInfo(path).fileName()));
    m_loadingLabel->setAlignment(Qt::AlignCenter);
    QFont font = m_loadingLabel->font();
    font.setPointSizeF(font.pointSizeF() * 1.2);
    m_loadingLabel->setFont(font);
    auto* pathLabel = new QLabel(QFileInfo(path).absolutePath());
    pathLabel->setAlignment(Qt::AlignCenter);
    pathLabel->setEnabled(false);
    pathLabel->setWordWrap(true);
    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("loadProgress"));
    m_progress->setRange(0, kProgressSteps);
    m_progress->setMinimumWidth(360);
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setObjectName(QStringLiteral("cancelLoad"));
    m_cancel->setToolTip(tr("Stop loading this file"));
    layout->addWidget(m_loadingLabel);
    layout->addWidget(pathLabel);
    layout->addSpacing(8);
    layout->addWidget(m_progress);
    layout->addWidget(m_cancel, 0, Qt::AlignHCenter);
    outer->addStretch(1);
    outer->addWidget(column, 0, Qt::AlignHCenter);
    outer->addStretch(2);
    m_stack->addWidget(m_loadingPage);

    connect(m_cancel, &QPushButton::clicked, this, &CaptureTab::cancelLoad);
    connect(m_job, &CaptureLoadJob::progressChanged, this, &CaptureTab::showProgress);
    connect(m_job, &CaptureLoadJob::finished, this, [this](const model::LoadedCapture& result) {
        if (!m_view) {
            m_view = new views::CaptureView;
            m_stack->addWidget(m_view);
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
    m_progress->setValue(0);
    m_stack->setCurrentWidget(m_loadingPage);
    m_cancel->setFocus();
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
    m_progress->setValue(int(fraction * kProgressSteps));
}

void CaptureTab::showView()
{
    if (m_view)
        m_stack->setCurrentWidget(m_view);
}

} // namespace spanscope::app
