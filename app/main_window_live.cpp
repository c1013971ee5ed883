// MainWindow's live captures and saving: File > Launch, File > Attach, File > Save As.
// Kept apart from the file tabs in main_window.cpp.

#include "attach_dialog.h"
#include "capture_tab.h"
#include "launch_dialog.h"
#include "live_tab.h"
#include "main_window.h"
#include "model/io/capture_file_checks.h"
#include "model/io/capture_writer.h"
#include "model/io/chrome/chrome_trace_writer.h"
#include "recent_files.h"
#include "views/capture_view.h"

#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QMessageBox>
#include <QPointer>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QtConcurrent/QtConcurrentRun>

#include <cstring>

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
    tab->setTitle(distinctTabTitle(tab->title())); // "spanscope-demo (2)" beside the first
    const int index = m_tabs->addTab(tab, tab->title());
    m_tabs->setTabToolTip(index, tab->commandLine());
    m_tabs->setCurrentIndex(index);
    auto decorate = [this, tab] {
        const int at = m_tabs->indexOf(tab);
        if (at < 0)
            return;
        // A red dot while the job streams; the warning icon once it is over, if any.
        m_tabs->setTabToolTip(at, tab->pid() > 0 ? tr("%1 (pid %2)").arg(tab->commandLine()).arg(tab->pid())
                                                 : tab->commandLine());
        m_tabs->setTabText(at,
                           tab->isLive() ? kLiveTabMark + tab->title() : tab->title());
        m_tabs->setTabIcon(at, !tab->isLive() && tab->warningCount() > 0
                                   ? style()->standardIcon(QStyle::SP_MessageBoxWarning)
                                   : QIcon());
        updateState();
    };
    connect(tab, &LiveTab::stateChanged, this, decorate);
    connect(tab, &LiveTab::updated, this, [this, tab] {
        hookView(tab->view()); // once the view exists
        if (tab == currentLiveTab())
            updateState();
    });
    decorate();
}

namespace {

const char* kRegionFilter = QT_TRANSLATE_NOOP("MainWindow", "Region files (*.h5)");
const char* kChromeFilter = QT_TRANSLATE_NOOP("MainWindow", "Chrome trace JSON (*.json.gz *.json)");

bool isChromePath(const QString& path)
{
    return path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)
           || path.endsWith(QLatin1String(".json.gz"), Qt::CaseInsensitive);
}

// The capture on screen can only be kept whole as Chrome JSON (GPU work, flows, ...).
bool needsChrome(const views::CaptureView* view)
{
    return view && view->capture() && !model::io::regionFileLoses(*view->capture()).empty();
}

} // namespace

QString MainWindow::suggestedSaveName(bool chrome) const
{
    const QString extension = chrome || needsChrome(currentCaptureView()) ? QStringLiteral(".json.gz")
                                                                          : QStringLiteral(".h5");
    if (CaptureTab* tab = currentTab()) {
        QString base = QFileInfo(tab->path()).fileName();
        for (const char* suffix : {".json.gz", ".json", ".gz", ".h5", ".hdf5", ".he5"})
            if (base.endsWith(QLatin1String(suffix), Qt::CaseInsensitive)) {
                base.chop(int(std::strlen(suffix)));
                break;
            }
        return base + QStringLiteral("-copy") + extension;
    }
    if (LiveTab* live = currentLiveTab())
        return live->title() + QDateTime::currentDateTime().toString(QStringLiteral("'-'yyyyMMdd-HHmmss")) + extension;
    return QStringLiteral("capture") + extension;
}

QString MainWindow::askSavePath(const QString& suggested, bool chromeOnly)
{
    const QString start =
        QDir(m_lastDirectory.isEmpty() ? QDir::homePath() : m_lastDirectory).filePath(suggested);
    const QString region = tr(kRegionFilter), chrome = tr(kChromeFilter);
    const QString filters = chromeOnly ? chrome
                            : isChromePath(suggested) ? chrome + QStringLiteral(";;") + region
                                                      : region + QStringLiteral(";;") + chrome;
    QString selected = isChromePath(suggested) ? chrome : region;
    QString path = QFileDialog::getSaveFileName(this, chromeOnly ? tr("Export as Chrome Trace") : tr("Save Capture As"),
                                                start, filters, &selected);
    // A name typed without its extension gets the one of the chosen format.
    if (!path.isEmpty() && !isChromePath(path) && !path.endsWith(QLatin1String(".h5"), Qt::CaseInsensitive))
        path += selected == chrome ? QStringLiteral(".json.gz") : QStringLiteral(".h5");
    return path;
}

MainWindow::UnsavedChoice MainWindow::askUnsaved(const QString& text, bool canSave)
{
    QMessageBox box(QMessageBox::Warning, tr("Unsaved Capture"), text,
                    (canSave ? QMessageBox::Save : QMessageBox::NoButton) | QMessageBox::Discard |
                        QMessageBox::Cancel,
                    this);
    box.setInformativeText(tr("A live capture exists only in this window until it is saved."));
    box.setDefaultButton(QMessageBox::Cancel);
    switch (box.exec()) {
    case QMessageBox::Save:
        return UnsavedChoice::Save;
    case QMessageBox::Discard:
        return UnsavedChoice::Discard;
    default:
        return UnsavedChoice::Cancel;
    }
}

void MainWindow::exportDialog()
{
    views::CaptureView* view = currentCaptureView();
    if (!view || !view->capture())
        return;
    const QString path = askSavePath(suggestedSaveName(true), true);
    if (path.isEmpty())
        return;
    m_lastDirectory = QFileInfo(path).absolutePath();
    saveCapture(path);
}

void MainWindow::saveAsDialog()
{
    views::CaptureView* view = currentCaptureView();
    if (!view || !view->capture())
        return;
    const QString path = askSavePath(suggestedSaveName());
    if (path.isEmpty())
        return;
    m_lastDirectory = QFileInfo(path).absolutePath();
    saveCapture(path);
}

void MainWindow::saveCapture(const QString& path)
{
    saveCaptureOf(currentCaptureView(), currentLiveTab(), path);
}

int MainWindow::unsavedLiveCaptures() const
{
    int unsaved = 0;
    for (int i = 0; i < m_tabs->count(); ++i)
        if (LiveTab* live = liveTab(i); live && live->hasUnsavedCapture())
            ++unsaved;
    return unsaved;
}

void MainWindow::saveLiveCapturesThenQuit()
{
    // Tabs saved earlier in this quit are skipped: a job still running has sent more since.
    LiveTab* next = nullptr;
    for (int i = 0; i < m_tabs->count() && !next; ++i)
        if (LiveTab* live = liveTab(i);
            live && live->hasUnsavedCapture() && !m_savedForQuit.contains(live))
            next = live;
    if (!next) {
        // Everything the user asked to keep is written; a job still running may have sent
        // more since, which quitting now does not ask about again.
        m_quitOnceSaved = true;
        close();
        return;
    }
    m_tabs->setCurrentWidget(next);
    const QString path = askSavePath(suggestedSaveName());
    if (path.isEmpty())
        return; // cancelled: the window stays
    m_lastDirectory = QFileInfo(path).absolutePath();
    // One at a time, each once the previous is written; a failed save is reported and
    // stops the quit (the capture stays in its tab).
    saveCaptureOf(next->view(), next, path, [this, saved = QPointer<LiveTab>(next)] {
        m_savedForQuit.append(saved);
        saveLiveCapturesThenQuit();
    });
}

bool MainWindow::mayCloseLiveTab(LiveTab* tab)
{
    if (!tab->hasUnsavedCapture())
        return true;
    m_tabs->setCurrentWidget(tab);
    const QString question =
        tab->isLive() ? tr("%1 is still running. Save what it recorded before its tab closes "
                           "(which stops it)?")
                            .arg(tab->title())
                      : tr("Save the capture of %1 before its tab closes?").arg(tab->title());
    switch (askUnsaved(question, true)) {
    case UnsavedChoice::Discard:
        return true;
    case UnsavedChoice::Cancel:
        return false;
    case UnsavedChoice::Save:
        break;
    }
    const QString path = askSavePath(suggestedSaveName());
    if (path.isEmpty())
        return false;
    m_lastDirectory = QFileInfo(path).absolutePath();
    // The tab closes once the file is written; if that fails it stays, with its capture.
    QPointer<LiveTab> live(tab);
    saveCaptureOf(tab->view(), tab, path, [this, live] {
        if (!live)
            return;
        m_closingSaved = live; // a job still running may have sent more meanwhile: no asking
        closeTab(m_tabs->indexOf(live));
        m_closingSaved = nullptr;
    });
    return false;
}

void MainWindow::saveCaptureOf(views::CaptureView* view, LiveTab* live, const QString& path,
                               std::function<void()> saved)
{
    if (!view || !view->capture())
        return;
    // The snapshot on screen: a live capture goes on growing in its tab meanwhile.
    std::shared_ptr<const model::Capture> capture = view->capture();
    const QString file = QFileInfo(path).absoluteFilePath();
    statusBar()->showMessage(tr("Saving %1\u2026").arg(QDir::toNativeSeparators(file)));
    ++m_savesRunning;
    updateState();
    auto* watcher = new QFutureWatcher<model::Status>(this);
    connect(watcher, &QFutureWatcherBase::finished, this,
            [this, watcher, file, capture, tab = QPointer<LiveTab>(live), saved] {
                watcher->deleteLater();
                --m_savesRunning;
                updateState();
                const model::Status result = watcher->result();
                if (!result) {
                    const QString message = QString::fromStdString(result.error().toString());
                    emit errorReported(file, message);
                    showError(tr("Cannot save %1").arg(QFileInfo(file).fileName()),
                              tr("spanscope could not save \u201c%1\u201d.")
                                  .arg(QDir::toNativeSeparators(file)),
                              message);
                    return;
                }
                if (tab)
                    tab->markSaved(capture);
                m_recent->add(file);
                statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(file)),
                                         kStatusMessageMs);
                emit captureSaved(file);
                if (saved)
                    saved();
            });
    // The file's name chooses its format: Chrome trace JSON keeps everything any source
    // recorded; a region file what scope-profiler's format has a place for.
    watcher->setFuture(QtConcurrent::run([capture, path = file.toStdString(), chrome = isChromePath(file)] {
        return chrome ? model::io::writeChromeTrace(*capture, path) : model::io::writeCaptureFile(*capture, path);
    }));
}

} // namespace spanscope::app
