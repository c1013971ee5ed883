// MainWindow's actions and menus: what each command is called, its shortcut, and the
// File > Open Recent list. Kept apart from the tab and loading logic in main_window.cpp.

#include "main_window.h"
#include "recent_files.h"
#include "shortcuts_dialog.h"
#include "theme.h"
#include "welcome_page.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QFontMetrics>
#include <QMenu>
#include <QMenuBar>
#include <QStyle>

namespace spanscope::app {

namespace {

// Menu entries show whole paths, shortened in the middle beyond this many pixels.
constexpr int kRecentEntryWidthPx = 520;

} // namespace

void MainWindow::createActions()
{
    m_openAction =
        new QAction(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open\u2026"), this);
    m_openAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_O));
    m_openAction->setStatusTip(tr("Open one or more region files, each in a tab of its own"));
    connect(m_openAction, &QAction::triggered, this, &MainWindow::openDialog);

    m_compareAction = new QAction(tr("&Compare\u2026"), this);
    m_compareAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    m_compareAction->setStatusTip(
        tr("Compare two or more runs side by side, the first as the baseline"));
    connect(m_compareAction, &QAction::triggered, this, &MainWindow::compareDialog);

    m_launchAction = new QAction(style()->standardIcon(QStyle::SP_MediaPlay), tr("&Launch…"), this);
    m_launchAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    m_launchAction->setStatusTip(
        tr("Run a program with the NVTX collector and watch its timeline grow"));
    connect(m_launchAction, &QAction::triggered, this, &MainWindow::launchDialog);

    m_attachAction = new QAction(tr("A&ttach…"), this);
    m_attachAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    m_attachAction->setStatusTip(tr("Connect to a job started with spanscope-run --wait"));
    connect(m_attachAction, &QAction::triggered, this, &MainWindow::attachDialog);

    m_saveAsAction = new QAction(style()->standardIcon(QStyle::SP_DialogSaveButton),
                                 tr("&Save As…"), this);
    // QKeySequence::SaveAs is empty on plain X11 sessions: name the key itself.
    m_saveAsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    m_saveAsAction->setStatusTip(
        tr("Save the capture as a region file or Chrome trace JSON (a live one as it is now)"));
    connect(m_saveAsAction, &QAction::triggered, this, &MainWindow::saveAsDialog);

    m_exportAction = new QAction(tr("&Export as Chrome Trace…"), this);
    m_exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_exportAction->setStatusTip(tr("Write the capture as Chrome trace JSON for Perfetto UI or chrome://tracing"));
    connect(m_exportAction, &QAction::triggered, this, &MainWindow::exportDialog);

    m_reloadAction =
        new QAction(style()->standardIcon(QStyle::SP_BrowserReload), tr("&Reload"), this);
    m_reloadAction->setShortcut(QKeySequence(Qt::Key_F5));
    m_reloadAction->setStatusTip(tr("Read the current file again from disk"));
    connect(m_reloadAction, &QAction::triggered, this, &MainWindow::reloadCurrent);

    m_closeAction = new QAction(tr("&Close Tab"), this);
    m_closeAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W));
    m_closeAction->setStatusTip(tr("Close the current file"));
    connect(m_closeAction, &QAction::triggered, this, [this] { closeTab(m_tabs->currentIndex()); });

    m_quitAction = new QAction(tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    m_findAction = new QAction(tr("&Filter Regions"), this);
    m_findAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F));
    m_findAction->setStatusTip(tr("Type part of a region name or a regular expression"));
    connect(m_findAction, &QAction::triggered, this, &MainWindow::focusFilter);

    m_clearRecentAction = new QAction(tr("&Clear Menu"), this);
    connect(m_clearRecentAction, &QAction::triggered, m_recent, &RecentFiles::clear);
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openAction);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(m_compareAction);
    file->addSeparator();
    file->addAction(m_launchAction);
    file->addAction(m_attachAction);
    file->addSeparator();
    file->addAction(m_saveAsAction);
    file->addAction(m_exportAction);
    file->addAction(m_reloadAction);
    file->addAction(m_closeAction);
    file->addSeparator();
    file->addAction(m_quitAction);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_findAction);
    view->addAction(tr("Show &Warnings"), this, &MainWindow::showCurrentWarnings);
    view->addSeparator();
    // One theme for the whole application; System follows the desktop's colours.
    view->addAction(tr("&Kernel Classes…"), this, &MainWindow::editKernelClasses);
    QMenu* theme = view->addMenu(tr("&Theme"));
    auto* themes = new QActionGroup(theme);
    for (const auto& [choice, text] : {std::pair{Theme::System, tr("Follow the &System")},
                                       std::pair{Theme::Light, tr("&Light")}, std::pair{Theme::Dark, tr("&Dark")}}) {
        QAction* action = theme->addAction(text);
        action->setObjectName(QStringLiteral("theme-") + themeName(choice));
        action->setCheckable(true);
        action->setChecked(currentTheme() == choice);
        themes->addAction(action);
        connect(action, &QAction::triggered, this, [choice] {
            applyTheme(choice);
            saveTheme(choice);
        });
    }

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* shortcuts = help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
    shortcuts->setShortcuts({QKeySequence(Qt::Key_F1), QKeySequence(Qt::Key_Question)});
    shortcuts->setObjectName(QStringLiteral("keyboardShortcutsAction"));
    help->addSeparator();
    QAction* about = help->addAction(tr("&About spanscope"), this, &MainWindow::about);
    about->setMenuRole(QAction::AboutRole);
    QAction* aboutQt = help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
    aboutQt->setMenuRole(QAction::AboutQtRole);
}

void MainWindow::showShortcuts()
{
    // Non-modal, one per window: it can stay open beside the timeline.
    if (!m_shortcuts) {
        m_shortcuts = new ShortcutsDialog(menuBar(), this);
        m_shortcuts->setObjectName(QStringLiteral("keyboardShortcuts"));
    }
    m_shortcuts->show();
    m_shortcuts->raise();
    m_shortcuts->activateWindow();
}

void MainWindow::rebuildRecentMenu()
{
    const QStringList files = m_recent->files();
    m_recentMenu->clear();
    const QFontMetrics metrics(m_recentMenu->font());
    for (int i = 0; i < files.size(); ++i) {
        const QString path = QDir::toNativeSeparators(files[i]);
        QString label = metrics.elidedText(path, Qt::ElideMiddle, kRecentEntryWidthPx);
        label.replace(QLatin1Char('&'), QStringLiteral("&&"));
        // &1 .. &9, then &0 for the tenth: keyboard access to every entry.
        const QString text = tr("&%1  %2").arg((i + 1) % 10).arg(label);
        QAction* action = m_recentMenu->addAction(text);
        action->setStatusTip(path);
        action->setToolTip(path);
        const QString file = files[i];
        connect(action, &QAction::triggered, this, [this, file] { openFile(file); });
    }
    if (files.isEmpty())
        m_recentMenu->addAction(tr("No recent files"))->setEnabled(false);
    m_recentMenu->addSeparator();
    m_recentMenu->addAction(m_clearRecentAction);
    m_clearRecentAction->setEnabled(!files.isEmpty());
    m_welcome->setRecentFiles(files);
}

} // namespace spanscope::app
