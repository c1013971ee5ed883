#pragma once
// One tab of the main window comparing two or more files: every file loads on a worker of
// its own (one CaptureLoadJob each) behind one combined progress bar and one Cancel, then
// the comparison view computes and shows the comparison. The first file is the baseline.
// A file that fails to load stops the others: a comparison with a run missing would
// mislead. Reloading (F5) reads every file again and keeps the view until it is done.
// GUI thread only.

#include "model/capture_loader.h"
#include "model/result.h"

#include <QStringList>
#include <QWidget>
#include <vector>

class QStackedLayout;

namespace spanscope::views {
class ComparisonView;
}

namespace spanscope::app {

class LoadingPage;

class CaptureLoadJob;

class CompareTab : public QWidget
{
    Q_OBJECT

public:
    // `paths`: two or more absolute paths, the baseline first.
    explicit CompareTab(const QStringList& paths, QWidget* parent = nullptr);
    ~CompareTab() override;

    QStringList paths() const { return m_paths; }
    // The runs' labels: file names, with the parent folder where two names are equal.
    QStringList labels() const { return m_labels; }
    // "a.h5 vs b.h5", "a.h5 vs b.h5 (+2)": for the tab and the window title.
    QString title() const;

    // Starts loading every file, or loading them again; a load in progress is replaced.
    void load();
    void cancelLoad();
    // True while files load or the first comparison after a load is being computed.
    bool isLoading() const;
    // Null until the first load succeeded.
    views::ComparisonView* view() const { return m_view; }

signals:
    // A newly loaded comparison is on screen. `view()` is set.
    void loaded();
    void loadFailed(const QString& path, const spanscope::model::Error& error);
    // The user cancelled. `hadView`: an earlier comparison is still shown (a reload).
    void loadCancelled(bool hadView);
    void loadingChanged(bool loading);

private:
    void showProgress();
    void jobFinished();
    void stopJobs();
    void showView();

    QStringList m_paths;
    QStringList m_labels;
    std::vector<CaptureLoadJob*> m_jobs;
    std::vector<model::LoadedCapture> m_results; // per file, filled as its job finishes
    bool m_loading = false;                      // files are loading
    bool m_computing = false; // the runs are loaded; the first comparison is not shown yet
    QStackedLayout* m_stack = nullptr;
    LoadingPage* m_loadingPage = nullptr;
    views::ComparisonView* m_view = nullptr;
};

} // namespace spanscope::app
