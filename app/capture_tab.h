#pragma once
// One tab of the main window: one file, its load (progress bar and Cancel while the worker
// reads) and then its CaptureView. Cancelling a reload goes back to the capture already
// shown; a failed reload keeps it too. GUI thread only.

#include "model/result.h"

#include <QWidget>

class QStackedLayout;

namespace spanscope::views {
class CaptureView;
}

namespace spanscope::app {

class LoadingPage;

class CaptureLoadJob;

class CaptureTab : public QWidget
{
    Q_OBJECT

public:
    explicit CaptureTab(const QString& path, QWidget* parent = nullptr);
    ~CaptureTab() override;

    QString path() const { return m_path; }
    // Starts loading the file, or loading it again (F5); a load in progress is replaced.
    void load();
    void cancelLoad();
    bool isLoading() const;
    // Null until the first load succeeded.
    views::CaptureView* view() const { return m_view; }
    int warningCount() const;

signals:
    // A newly loaded capture is on screen. `view()` is set.
    void loaded();
    void loadFailed(const spanscope::model::Error& error);
    // The user cancelled. `hadCapture`: an earlier capture is still shown (a reload).
    void loadCancelled(bool hadCapture);
    void loadingChanged(bool loading);

private:
    void showProgress(double fraction);
    void showView();

    QString m_path;
    CaptureLoadJob* m_job = nullptr;
    QStackedLayout* m_stack = nullptr;
    LoadingPage* m_loadingPage = nullptr;
    views::CaptureView* m_view = nullptr;
};

} // namespace spanscope::app
