#pragma once
// The viewer's window: one tab per open file, comparison of files or live job, a welcome page when
// none is open, the File / View / Help menus, drag and drop, and the settings it remembers
// (geometry, splitters, recent files, last directory). Loading runs on workers; this class
// only reacts. Comparisons are opened in main_window_compare.cpp.
// GUI thread only.

#include "model/result.h"

#include <QByteArray>
#include <QList>
#include <QMainWindow>
#include <QPointer>

#include <functional>

class QAction;
class QToolButton;
class QMenu;
class QStackedWidget;
class QTabWidget;

namespace spanscope::model::live {
struct WaitingJob;
}
namespace spanscope::views {
class CaptureView;
struct SaveRequest;
}

namespace spanscope::app {

class CaptureTab;
class ShortcutsDialog;
class CompareTab;
class LiveTab;
struct LaunchSpec;
class RecentFiles;
class WelcomePage;

class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens each file in a tab of its own and returns at once; a file already open just
    // gets its tab shown. Failures are reported through showError().
    void openFiles(const QStringList& paths);
    void openFile(const QString& path);
    // Opens a comparison of two or more files (the first the baseline) in a tab of its own
    // and returns at once; the same comparison already open just gets its tab shown.
    // Failures are reported through showError(), naming the file.
    void compareFiles(const QStringList& paths);

    // True while any tab is still loading.
    bool isLoading() const;
    int tabCount() const;
    // The file tab at `index`, or null (no such tab, or a comparison there).
    CaptureTab* tab(int index) const;
    CaptureTab* currentTab() const;
    // The comparison tab at `index`, or null.
    CompareTab* compareTab(int index) const;
    CompareTab* currentCompareTab() const;
    RecentFiles* recentFiles() const { return m_recent; }

    // Live captures (main_window_live.cpp). Each opens a tab of its own and returns it, or
    // reports the error through showError() and returns null.
    LiveTab* launchJob(const LaunchSpec& spec);
    LiveTab* attachJob(const model::live::WaitingJob& job, double maxSpansPerSecond = 0);
    LiveTab* liveTab(int index) const;
    // True while a live tab still receives (waiting or recording).
    bool hasLiveCaptures() const;
    LiveTab* currentLiveTab() const;
    // Saves the current tab's capture (as shown now) on a worker; captureSaved() or an error.
    void saveCapture(const QString& path);
    // Live tabs whose capture holds ranges that were never saved.
    int unsavedLiveCaptures() const;

signals:
    // Every error shown to the user, before showError() shows it. `file` is the file it
    // concerns; `message` is model::Error::toString().
    void errorReported(const QString& file, const QString& message);
    // The last running load finished (loaded, failed or cancelled).
    void loadingFinished();
    void captureSaved(const QString& path);

protected:
    // The one place errors reach the user. The default opens a modal QMessageBox; tests
    // override it to record the error instead of blocking on a dialog.
    virtual void showError(const QString& title, const QString& text, const QString& details);
    // What to do with live captures that exist only in memory when their tab closes or the
    // window quits. The defaults ask with a QMessageBox (Save offered when `canSave`) and a
    // file dialog; tests override them.
    enum class UnsavedChoice { Save, Discard, Cancel };
    virtual UnsavedChoice askUnsaved(const QString& text, bool canSave);
    // Where to save a capture: empty when the user cancelled. The file name picks the
    // format (.json/.json.gz: Chrome trace JSON, else a region file); `chromeOnly` offers
    // Chrome trace JSON alone (File › Export).
    virtual QString askSavePath(const QString& suggested, bool chromeOnly = false);
    // Where to save what a view asked to save (SaveRequest), and the filter chosen; empty
    // when the user cancelled. Failures of the write go through showError().
    virtual QString askRequestedSavePath(const views::SaveRequest& request, QString* chosenFilter);

    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createActions();
    void createMenus();
    void rebuildRecentMenu();
    void openDialog();
    void compareDialog();
    void launchDialog();
    void attachDialog();
    void saveAsDialog();
    void exportDialog();
    void addLiveTab(LiveTab* tab);
    // Saves `view`'s capture to `path` on a worker; `saved` runs (GUI thread) once written.
    void saveCaptureOf(views::CaptureView* view, LiveTab* live, const QString& path,
                       std::function<void()> saved = {});
    // The file name a Save dialog proposes for the current tab: .json.gz when `chrome` or
    // when a region file could not hold the capture, else .h5.
    QString suggestedSaveName(bool chrome = false) const;
    // A live tab with an unsaved capture is about to close: true if it may.
    bool mayCloseLiveTab(LiveTab* tab);
    views::CaptureView* currentCaptureView() const;
    void reloadCurrent();
    void closeTab(int index);
    void focusFilter();
    void showCurrentWarnings();
    void about();
    void showShortcuts(); // Help › Keyboard Shortcuts
    void reportError(const QString& file, const model::Error& error);
    void onTabLoaded(CaptureTab* tab);
    // `base`, or "base (2)", "base (3)"... so no two tabs share a title.
    QString distinctTabTitle(const QString& base) const;
    // Quit with Save: asks where to save each unsaved live capture in turn, saves it, and
    // closes the window once all are written; a cancel or a failed save stops the quit.
    void saveLiveCapturesThenQuit();
    // Connects a tab's view once: the shared splitter layout, and its save requests.
    void hookView(views::CaptureView* view);
    // View › Kernel Classes: asks, saves and applies them to every open capture and comparison.
    void editKernelClasses();
    void applyKernelClasses();
    // Keep a layout the user chose (an untouched view's empty state keeps the last one).
    void rememberViewLayout(const QByteArray& state);
    void rememberCompareLayout(const QByteArray& state);
    // Asks where to save what a view asked to save, writes it, reports a failure.
    void answerSaveRequest(const views::SaveRequest& request);
    void onTabLoadingChanged();
    void onCompareTabLoaded(CompareTab* tab);
    void updateTabDecoration(CaptureTab* tab);
    void updateState();
    void readSettings();
    void writeSettings();

    RecentFiles* m_recent = nullptr;
    QStackedWidget* m_stack = nullptr;
    WelcomePage* m_welcome = nullptr;
    QTabWidget* m_tabs = nullptr;
    QToolButton* m_warningStatus = nullptr; // "3 warnings" in the status bar
    QMenu* m_recentMenu = nullptr;
    QAction* m_openAction = nullptr;
    QAction* m_compareAction = nullptr;
    QAction* m_launchAction = nullptr;
    QAction* m_attachAction = nullptr;
    QAction* m_saveAsAction = nullptr;
    QAction* m_exportAction = nullptr;
    QAction* m_reloadAction = nullptr;
    QAction* m_closeAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_findAction = nullptr;
    QAction* m_clearRecentAction = nullptr;
    // Splitter layout of the capture views: the last one the user chose, given to new tabs.
    QByteArray m_viewLayout;
    QByteArray m_compareLayout; // the same for comparison views
    QString m_lastDirectory;
    int m_savesRunning = 0;
    LiveTab* m_closingSaved = nullptr; // closing after its capture was saved: do not ask again
    QList<QPointer<LiveTab>> m_savedForQuit; // saved so far while quitting with Save
    bool m_quitOnceSaved = false;
    QPointer<ShortcutsDialog> m_shortcuts; // every unsaved capture was saved for quitting: do not ask again
};

} // namespace spanscope::app
