#include "main_window.h"

#include "about_dialog.h"
#include "capture_tab.h"
#include "compare_tab.h"
#include "kernel_classes_dialog.h"
#include "views/compare/comparison_view.h"
#include "live_tab.h"
#include "profile_file_filters.h"
#include "recent_files.h"
#include "views/capture_view.h"
#include "views/compare/comparison_view.h"
#include "views/display_text.h"
#include "welcome_page.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolButton>

namespace spanscope::app {

namespace {

const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kViewLayoutKey = QStringLiteral("captureView/layout");
const QString kCompareLayoutKey = QStringLiteral("comparisonView/layout");
const QString kLastDirectoryKey = QStringLiteral("lastDirectory");
constexpr QSize kDefaultSize(1400, 900);
constexpr int kStatusMessageMs = 4000;

QStringList localFiles(const QMimeData* mime)
{
    QStringList files;
    if (mime && mime->hasUrls())
        for (const QUrl& url : mime->urls())
            if (url.isLocalFile())
                files << url.toLocalFile();
    return files;
}

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("spanscope"));
    setAcceptDrops(true);
    m_recent = new RecentFiles(this);

    m_welcome = new WelcomePage;
    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("captureTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->setTabsClosable(true);
    m_tabs->setMovable(true);
    // Whole titles, scrolled when there are many: elided ones ("b…5") told nothing apart.
    m_tabs->setElideMode(Qt::ElideNone);
    m_tabs->setUsesScrollButtons(true);
    m_stack = new QStackedWidget;
    m_stack->addWidget(m_welcome);
    m_stack->addWidget(m_tabs);
    setCentralWidget(m_stack);

    m_warningStatus = new QToolButton;
    m_warningStatus->setObjectName(QStringLiteral("warningStatus"));
    m_warningStatus->setAutoRaise(true);
    m_warningStatus->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_warningStatus->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
    m_warningStatus->setToolTip(tr("Show the warnings of this file"));
    m_warningStatus->hide();
    statusBar()->addPermanentWidget(m_warningStatus);

    createActions();
    createMenus();

    connect(m_warningStatus, &QToolButton::clicked, this, &MainWindow::showCurrentWarnings);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, &MainWindow::closeTab);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::updateState);
    connect(m_welcome, &WelcomePage::openRequested, this, &MainWindow::openDialog);
    connect(m_welcome, &WelcomePage::launchRequested, this, &MainWindow::launchDialog);
    connect(m_welcome, &WelcomePage::recentFileActivated, this, &MainWindow::openFile);
    connect(m_recent, &RecentFiles::changed, this, &MainWindow::rebuildRecentMenu);

    readSettings();
    rebuildRecentMenu();
    updateState();
}

MainWindow::~MainWindow() = default;

void MainWindow::openFiles(const QStringList& paths)
{
    for (const QString& path : paths)
        openFile(path);
}

void MainWindow::openFile(const QString& path)
{
    const QString file = QFileInfo(path).absoluteFilePath();
    for (int i = 0; i < m_tabs->count(); ++i)
        if (tab(i) && tab(i)->path() == file) {
            m_tabs->setCurrentIndex(i);
            return;
        }

    auto* tab = new CaptureTab(file);
    connect(tab, &CaptureTab::loaded, this, [this, tab] { onTabLoaded(tab); });
    connect(tab, &CaptureTab::loadFailed, this, [this, tab](const model::Error& error) {
        const QString failedPath = tab->path();
        if (!tab->view()) // nothing to show: the tab goes; a failed reload keeps the old data
            closeTab(m_tabs->indexOf(tab));
        if (error.code == model::ErrorCode::NotFound)
            m_recent->remove(failedPath);
        reportError(failedPath, error);
    });
    connect(tab, &CaptureTab::loadCancelled, this, [this, tab](bool hadCapture) {
        if (!hadCapture)
            closeTab(m_tabs->indexOf(tab));
        statusBar()->showMessage(tr("Loading cancelled"), kStatusMessageMs);
    });
    connect(tab, &CaptureTab::loadingChanged, this, &MainWindow::onTabLoadingChanged);

    const int index = m_tabs->addTab(tab, distinctTabTitle(QFileInfo(file).fileName()));
    m_tabs->setTabToolTip(index, QDir::toNativeSeparators(file));
    m_tabs->setCurrentIndex(index);
    tab->load();
    updateState();
}

QString MainWindow::distinctTabTitle(const QString& base) const
{
    const auto used = [this](const QString& title) {
        for (int i = 0; i < m_tabs->count(); ++i) {
            QString text = m_tabs->tabText(i);
            if (text.startsWith(kLiveTabMark))
                text.remove(0, kLiveTabMark.size());
            if (text == title)
                return true;
        }
        return false;
    };
    QString title = base;
    for (int n = 2; used(title); ++n)
        title = QStringLiteral("%1 (%2)").arg(base).arg(n);
    return title;
}

bool MainWindow::isLoading() const
{
    for (int i = 0; i < m_tabs->count(); ++i)
        if ((tab(i) && tab(i)->isLoading()) || (compareTab(i) && compareTab(i)->isLoading()))
            return true;
    return false;
}

int MainWindow::tabCount() const
{
    return m_tabs->count();
}

CaptureTab* MainWindow::tab(int index) const
{
    return qobject_cast<CaptureTab*>(m_tabs->widget(index));
}

CaptureTab* MainWindow::currentTab() const
{
    return qobject_cast<CaptureTab*>(m_tabs->currentWidget());
}

void MainWindow::closeTab(int index)
{
    if (CompareTab* compare = compareTab(index)) {
        if (compare->view())
            rememberCompareLayout(compare->view()->saveLayoutState());
        compare->disconnect(this);
        compare->cancelLoad();
        m_tabs->removeTab(index);
        compare->deleteLater();
        onTabLoadingChanged();
        return;
    }
    if (LiveTab* live = liveTab(index)) {
        if (live != m_closingSaved && !mayCloseLiveTab(live))
            return;
        if (live->view())
            rememberViewLayout(live->view()->saveLayoutState());
        live->disconnect(this);
        m_tabs->removeTab(index);
        delete live; // stops a job launched from here; an attached one is only detached
        updateState();
        return;
    }
    CaptureTab* tab = this->tab(index);
    if (!tab)
        return;
    if (tab->view())
        rememberViewLayout(tab->view()->saveLayoutState());
    tab->disconnect(this);
    tab->cancelLoad(); // the worker stops soon and its result is dropped
    m_tabs->removeTab(index);
    tab->deleteLater(); // may be inside one of the tab's own signals
    onTabLoadingChanged();
}

void MainWindow::reloadCurrent()
{
    if (CaptureTab* tab = currentTab())
        tab->load();
    else if (CompareTab* compare = currentCompareTab())
        compare->load();
}

void MainWindow::showCurrentWarnings()
{
    if (views::CaptureView* view = currentCaptureView())
        view->showWarnings();
}

void MainWindow::focusFilter()
{
    if (views::CaptureView* view = currentCaptureView())
        view->focusFilter();
    else if (CompareTab* compare = currentCompareTab(); compare && compare->view())
        compare->view()->focusFilter();
}

void MainWindow::onTabLoaded(CaptureTab* tab)
{
    m_recent->add(tab->path());
    hookView(tab->view());
    updateTabDecoration(tab);
    statusBar()->showMessage(tr("Loaded %1").arg(QDir::toNativeSeparators(tab->path())),
                             kStatusMessageMs);
    updateState();
}

void MainWindow::rememberViewLayout(const QByteArray& state)
{
    if (!state.isEmpty()) // empty: the view sized itself, the user chose nothing to keep
        m_viewLayout = state;
}

void MainWindow::rememberCompareLayout(const QByteArray& state)
{
    if (!state.isEmpty())
        m_compareLayout = state;
}

void MainWindow::hookView(views::CaptureView* view)
{
    static const char* const kHooked = "spanscopeViewHooked";
    if (!view || view->property(kHooked).toBool())
        return;
    view->setProperty(kHooked, true);
    view->setKernelClasses(savedKernelClasses());
    // New views take the splitter layout last chosen in any tab (or the last session).
    if (!m_viewLayout.isEmpty())
        view->restoreLayoutState(m_viewLayout);
    connect(view, &views::CaptureView::layoutStateChanged, this,
            [this, view] { m_viewLayout = view->saveLayoutState(); });
    connect(view, &views::CaptureView::saveRequested, this, &MainWindow::answerSaveRequest);
}

void MainWindow::editKernelClasses()
{
    KernelClassesDialog dialog(this);
    dialog.setSpecs(savedKernelClassSpecs());
    if (dialog.exec() != QDialog::Accepted)
        return;
    saveKernelClassSpecs(dialog.specs());
    applyKernelClasses();
}

void MainWindow::applyKernelClasses()
{
    const auto classes = savedKernelClasses();
    for (views::CaptureView* view : m_tabs->findChildren<views::CaptureView*>())
        view->setKernelClasses(classes);
    for (views::ComparisonView* view : m_tabs->findChildren<views::ComparisonView*>())
        view->setKernelClasses(classes);
}

void MainWindow::answerSaveRequest(const views::SaveRequest& request)
{
    QString chosenFilter;
    QString path = askRequestedSavePath(request, &chosenFilter);
    if (path.isEmpty())
        return;
    // A name typed without a known suffix gets the one of the chosen format.
    if (!request.suffixes.contains(QFileInfo(path).suffix().toLower())) {
        const qsizetype chosen = request.filters.indexOf(chosenFilter);
        path += QLatin1Char('.') + request.suffixes.value(chosen < 0 ? 0 : chosen);
    }
    m_lastDirectory = QFileInfo(path).absolutePath();
    QString error;
    if (!request.write(path, &error)) {
        emit errorReported(path, error);
        showError(request.caption, tr("Could not save %1.").arg(QDir::toNativeSeparators(path)), error);
        return;
    }
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), kStatusMessageMs);
}

QString MainWindow::askRequestedSavePath(const views::SaveRequest& request, QString* chosenFilter)
{
    const QString start = QDir(m_lastDirectory.isEmpty() ? QDir::homePath() : m_lastDirectory)
                              .filePath(request.suggestedName);
    *chosenFilter = request.filters.value(0);
    return QFileDialog::getSaveFileName(this, request.caption, start,
                                        request.filters.join(QStringLiteral(";;")), chosenFilter);
}

void MainWindow::onTabLoadingChanged()
{
    updateState();
    if (!isLoading())
        emit loadingFinished();
}

void MainWindow::updateTabDecoration(CaptureTab* tab)
{
    const int index = m_tabs->indexOf(tab);
    if (index < 0)
        return;
    const int warnings = tab->warningCount();
    QString toolTip = QDir::toNativeSeparators(tab->path());
    if (warnings > 0)
        toolTip += QLatin1Char('\n') +
                   views::countedText(uint64_t(warnings), tr("warning"), tr("warnings"));
    m_tabs->setTabIcon(index, warnings > 0 ? style()->standardIcon(QStyle::SP_MessageBoxWarning)
                                           : QIcon());
    m_tabs->setTabToolTip(index, toolTip);
}

void MainWindow::updateState()
{
    CaptureTab* tab = currentTab();
    CompareTab* compare = currentCompareTab();
    LiveTab* live = currentLiveTab();
    views::CaptureView* view = currentCaptureView();
    m_stack->setCurrentWidget(m_tabs->count() > 0 ? static_cast<QWidget*>(m_tabs) : m_welcome);
    m_reloadAction->setEnabled(tab || compare);
    m_closeAction->setEnabled(tab || compare || live);
    m_findAction->setEnabled(view || (compare && compare->view()));
    m_saveAsAction->setEnabled(view && view->capture() && m_savesRunning == 0);
    m_exportAction->setEnabled(view && view->capture() && view->capture()->eventDataAvailable && m_savesRunning == 0);
    setWindowTitle(tab       ? tr("%1 — spanscope").arg(QFileInfo(tab->path()).fileName())
                   : compare ? tr("%1 — spanscope").arg(compare->title())
                   : live    ? tr("%1 (live) — spanscope").arg(live->title())
                             : QStringLiteral("spanscope"));
    const int warnings = tab && !tab->isLoading() ? tab->warningCount()
                         : live                   ? live->warningCount()
                                                  : 0;
    m_warningStatus->setText(views::countedText(uint64_t(warnings), tr("warning"), tr("warnings")));
    m_warningStatus->setVisible(warnings > 0);
}

void MainWindow::reportError(const QString& file, const model::Error& error)
{
    const QString message = QString::fromStdString(error.toString());
    emit errorReported(file, message);
    showError(tr("Cannot open %1").arg(QFileInfo(file).fileName()),
              tr("spanscope could not open \u201c%1\u201d.").arg(QDir::toNativeSeparators(file)),
              message);
}

void MainWindow::showError(const QString& title, const QString& text, const QString& details)
{
    QMessageBox box(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
    box.setInformativeText(details);
    box.exec();
}

void MainWindow::openDialog()
{
    const QString start = m_lastDirectory.isEmpty() ? QDir::homePath() : m_lastDirectory;
    const QStringList files =
        QFileDialog::getOpenFileNames(this, tr("Open Profiles"), start, profileFileFilters());
    if (files.isEmpty())
        return;
    m_lastDirectory = QFileInfo(files.front()).absolutePath();
    openFiles(files);
}

void MainWindow::about()
{
    AboutDialog dialog(this);
    dialog.exec();
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    const int unsaved = m_quitOnceSaved ? 0 : unsavedLiveCaptures();
    m_quitOnceSaved = false;
    if (unsaved > 0) {
        const QString text =
            unsaved == 1 ? tr("A live capture has not been saved. Save it before quitting?")
                         : tr("%1 live captures have not been saved. Save them before quitting?")
                               .arg(unsaved);
        switch (askUnsaved(text, true)) {
        case UnsavedChoice::Discard:
            break;
        case UnsavedChoice::Cancel:
            event->ignore();
            return;
        case UnsavedChoice::Save:
            event->ignore();
            m_savedForQuit.clear();
            saveLiveCapturesThenQuit();
            return;
        }
    }
    writeSettings();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (!localFiles(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QStringList files = localFiles(event->mimeData());
    if (files.isEmpty())
        return;
    event->acceptProposedAction();
    openFiles(files);
}

void MainWindow::readSettings()
{
    const QSettings settings;
    if (!restoreGeometry(settings.value(kGeometryKey).toByteArray())) {
        QSize size = kDefaultSize;
        if (const QScreen* screen = QApplication::primaryScreen())
            size = size.boundedTo(screen->availableSize() * 0.95);
        resize(size);
    }
    m_viewLayout = settings.value(kViewLayoutKey).toByteArray();
    m_compareLayout = settings.value(kCompareLayoutKey).toByteArray();
    m_lastDirectory = settings.value(kLastDirectoryKey).toString();
}

void MainWindow::writeSettings()
{
    if (views::CaptureView* view = currentCaptureView())
        rememberViewLayout(view->saveLayoutState());
    if (CompareTab* compare = currentCompareTab(); compare && compare->view())
        rememberCompareLayout(compare->view()->saveLayoutState());
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kViewLayoutKey, m_viewLayout);
    settings.setValue(kCompareLayoutKey, m_compareLayout);
    settings.setValue(kLastDirectoryKey, m_lastDirectory);
}

} // namespace spanscope::app
