// MainWindow's live captures and saving: File > Launch, File > Attach, File > Save As.
// Kept apart from the file tabs in main_window.cpp.

#include "attach_dialog.h"
#include "capture_tab.h"
#include "launch_dialog.h"
#include "live_tab.h"
#include "main_window.h"
#include "model/io/capture_writer.h"
#include "recent_files.h"
#include "views/capture_view.h"

#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QtConcurrent/QtConcurrentRun>

namespace spanscope::app {

namespace {

constexpr int kStatusMessageMs = 4000;

} // namespace

LiveTab* MainWindow::liveTab(int index) const
{
    return qobject_cast<LiveTab*>(m_tabs->widget(index));
}

LiveTab* MainWindow::currentLiveTab() const
{
    return qobject_cast<LiveTab*>(m_tabs->currentWidget());
}

bool MainWindow::hasLiveCaptures() const
{
    for (int i = 0; i < m_tabs->count(); ++i)
        if (LiveTab* live = liveTab(i); live && live->isLive())
            return true;
    return false;
}

views::CaptureView* MainWindow::currentCaptureView() const
{
    if (CaptureTab* tab = currentTab())
        return tab->view();
    if (LiveTab* live = currentLiveTab())
        return live->view();
    return nullptr;
}

void MainWindow::launchDialog()
{
    LaunchDialog dialog(this);
    if (dialog.exec() == QDialog::Accepted)
        launchJob(dialog.spec());
}

LiveTab* MainWindow::launchJob(const LaunchSpec& spec)
{
    auto* tab = new LiveTab;
    if (auto started = tab->launch(spec); !started) {
        delete tab;
        const QString message = QString::fromStdString(started.error().toString());
        emit errorReported(spec.program, message);
        showError(tr("Cannot launch %1").arg(QFileInfo(spec.program).fileName()),
                  tr("spanscope could not launch \u201c%1\u201d.").arg(spec.program), message);
        return nullptr;
    }
    addLiveTab(tab);
    return tab;
}

void MainWindow::attachDialog()
{
    AttachDialog dialog(this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    if (const auto job = dialog.selectedJob())
        attachJob(*job, dialog.maxSpansPerSecond());
}

LiveTab* MainWindow::attachJob(const model::live::WaitingJob& job, double maxSpansPerSecond)
{
    auto* tab = new LiveTab;
    if (auto attached = tab->attach(job, maxSpansPerSecond); !attached) {
        delete tab;
        const QString message = QString::fromStdString(attached.error().toString());
        const QString command = QString::fromStdString(job.command);
        emit errorReported(command, message);
        showError(tr("Cannot attach"),
                  tr("spanscope could not attach to job %1 (%2).").arg(job.pid).arg(command),
                  message);
        return nullptr;
    }
    addLiveTab(tab);
    return tab;
}

void MainWindow::addLiveTab(LiveTab* tab)
{
    const int index = m_tabs->addTab(tab, tab->title());
    m_tabs->setTabToolTip(index, tab->commandLine());
    m_tabs->setCurrentIndex(index);
    auto decorate = [this, tab] {
        const int at = m_tabs->indexOf(tab);
        if (at < 0)
            return;
        // A red dot while the job streams; the warning icon once it is over, if any.
        m_tabs->setTabText(at, tab->isLive() ? QStringLiteral("\u25cf ") + tab->title()
                                             : tab->title());
        m_tabs->setTabIcon(at, !tab->isLive() && tab->warningCount() > 0
                                   ? style()->standardIcon(QStyle::SP_MessageBoxWarning)
                                   : QIcon());
        updateState();
    };
    connect(tab, &LiveTab::stateChanged, this, decorate);
    connect(tab, &LiveTab::updated, this, [this, tab] {
        if (tab == currentLiveTab())
            updateState();
    });
    connect(tab, &LiveTab::updated, this, [this, tab] {
        // The splitter layout the user chose elsewhere, once the view exists.
        static const char* const kLayoutHooked = "spanscopeLayoutHooked";
        views::CaptureView* view = tab->view();
        if (!view || view->property(kLayoutHooked).toBool())
            return;
        view->setProperty(kLayoutHooked, true);
        if (!m_viewLayout.isEmpty())
            view->restoreLayoutState(m_viewLayout);
        connect(view, &views::CaptureView::layoutStateChanged, this,
                [this, view] { m_viewLayout = view->saveLayoutState(); });
    });
    decorate();
}

void MainWindow::saveAsDialog()
{
    views::CaptureView* view = currentCaptureView();
    if (!view || !view->capture())
        return;
    QString suggested;
    if (CaptureTab* tab = currentTab())
        suggested = QFileInfo(tab->path()).completeBaseName() + QStringLiteral("-copy.h5");
    else if (LiveTab* live = currentLiveTab())
        suggested = live->title() + QDateTime::currentDateTime().toString(
                                        QStringLiteral("'-'yyyyMMdd-HHmmss'.h5'"));
    const QString start =
        QDir(m_lastDirectory.isEmpty() ? QDir::homePath() : m_lastDirectory).filePath(suggested);
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Capture As"), start,
                                                      tr("Region files (*.h5)"));
    if (path.isEmpty())
        return;
    m_lastDirectory = QFileInfo(path).absolutePath();
    saveCapture(path);
}

void MainWindow::saveCapture(const QString& path)
{
    views::CaptureView* view = currentCaptureView();
    if (!view || !view->capture())
        return;
    // The snapshot on screen: a live capture goes on growing in its tab meanwhile.
    std::shared_ptr<const model::Capture> capture = view->capture();
    const QString file = QFileInfo(path).absoluteFilePath();
    statusBar()->showMessage(tr("Saving %1\u2026").arg(QDir::toNativeSeparators(file)));
    ++m_savesRunning;
    updateState();
    auto* watcher = new QFutureWatcher<model::Status>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, file] {
        watcher->deleteLater();
        --m_savesRunning;
        updateState();
        const model::Status saved = watcher->result();
        if (!saved) {
            const QString message = QString::fromStdString(saved.error().toString());
            emit errorReported(file, message);
            showError(tr("Cannot save %1").arg(QFileInfo(file).fileName()),
                      tr("spanscope could not save \u201c%1\u201d.")
                          .arg(QDir::toNativeSeparators(file)),
                      message);
            return;
        }
        m_recent->add(file);
        statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(file)),
                                 kStatusMessageMs);
        emit captureSaved(file);
    });
    watcher->setFuture(QtConcurrent::run([capture, path = file.toStdString()] {
        return model::io::writeCaptureFile(*capture, path);
    }));
}

} // namespace spanscope::app
