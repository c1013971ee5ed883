#pragma once
// One tab of a live capture: a job launched from the viewer (File > Launch) or a waiting
// job attached to (File > Attach). It shows the job's state and figures in a bar at the
// top (recording / ended / detached, processes, ranges, marks, dropped records, bytes,
// updates per second) with Stop Job and Detach, the CaptureView that grows about ten
// times a second, and for launched jobs the job's output below.
//
// The collector's streams are read and analysed on model::live::LiveIngest's threads;
// this class only takes the newest analysed snapshot (latest wins) on the GUI thread.
// Closing the tab of a job launched from the viewer stops the job; an attached job is
// only detached and carries on. GUI thread only.

#include "model/live/job_registry.h"
#include "model/live/live_ingest.h"
#include "model/result.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QWidget>
#include <deque>
#include <memory>
#include <mutex>

class QLabel;
class QPlainTextEdit;
class QSplitter;
class QStackedWidget;
class QToolButton;

namespace spanscope::views {
class CaptureView;
class ElidedLabel;
}

namespace spanscope::app {

// The mark before a live tab's title while its job streams ("● spanscope-demo").
inline const QString kLiveTabMark = QStringLiteral("\u25cf ");

// The spanscope-run that launches and attaches jobs: $SPANSCOPE_RUN, else the one next to
// this executable.
QString spanscopeRunPath();

struct LaunchSpec
{
    QString program;
    QStringList arguments;
    QString workingDirectory;     // empty = the viewer's
    QStringList environment;      // KEY=VALUE added to (or replacing in) the viewer's own
    double maxSpansPerSecond = 0; // NVTX span budget, 0 = unlimited
    bool lossless = false;        // spanscope-run --lossless: queue rather than drop
    bool alloc = false;           // spanscope-run --alloc: count allocations per range
    bool cuda = true;             // record CUDA activity (false: spanscope-run --no-cuda)
};

class LiveTab : public QWidget
{
    Q_OBJECT

public:
    enum class State { Waiting, Recording, Ended, Detached, FailedToStart };

    explicit LiveTab(QWidget* parent = nullptr);
    ~LiveTab() override;

    // Starts the job under spanscope-run --connect (next to this executable, or
    // $SPANSCOPE_RUN). The error names what could not be started.
    model::Status launch(const LaunchSpec& spec);
    // Asks a waiting job to run and stream here; `maxSpansPerSecond` as in LaunchSpec.
    model::Status attach(const model::live::WaitingJob& job, double maxSpansPerSecond = 0);

    State state() const { return m_state; }
    bool isLive() const { return m_state == State::Waiting || m_state == State::Recording; }
    QString title() const { return m_title; }
    void setTitle(const QString& title) { m_title = title; }
    // The job's process id once known (launched or attached), else 0.
    int pid() const { return m_pid; }
    QString commandLine() const { return m_commandLine; }
    // Null until the first snapshot with something in it (or the end) arrived.
    views::CaptureView* view() const { return m_view; }
    int warningCount() const;
    QString statusText() const; // the figures line, for tests
    QPlainTextEdit* outputView() const { return m_output; }
    QToolButton* stopButton() const { return m_stop; }
    QToolButton* detachButton() const { return m_detach; }
    int updatesShown() const { return m_updatesShown; }

    // The capture on screen holds ranges that were never saved (a newer snapshot than the
    // one saved counts as unsaved).
    bool hasUnsavedCapture() const;
    void markSaved(const std::shared_ptr<const model::Capture>& capture) { m_saved = capture; }

    // Ends the job: SIGTERM, then SIGKILL after 3 s if it is still there. What arrived stays.
    void stopJob();
    // Stops reading; the job carries on without capture. What arrived stays.
    void detach();

signals:
    void updated();      // a newer snapshot is on screen
    void stateChanged(); // see state()

private:
    model::Status startIngest(double maxSpansPerSecond);
    void takeUpdate();
    void showUpdate(const model::live::LiveUpdate& update);
    void setState(State state);
    void refreshStatus();
    void updateButtons();
    void appendOutput();

    State m_state = State::Waiting;
    QString m_title, m_commandLine, m_endNote;
    int m_pid = 0;
    QProcess* m_process = nullptr; // launched jobs only
    std::unique_ptr<model::live::LiveIngest> m_ingest;

    std::mutex m_pendingMutex; // the analysis thread hands updates over here
    std::shared_ptr<const model::live::LiveUpdate> m_pending;
    std::shared_ptr<const model::live::LiveUpdate> m_last;
    std::weak_ptr<const model::Capture> m_saved; // the snapshot last saved
    std::deque<qint64> m_updateTimes;            // ms on m_clock of the updates in the last second
    QElapsedTimer m_clock;
    int m_updatesShown = 0;

    QLabel* m_stateLabel = nullptr;
    views::ElidedLabel* m_figures = nullptr;
    QToolButton* m_stop = nullptr;
    QToolButton* m_detach = nullptr;
    QStackedWidget* m_stack = nullptr;
    QLabel* m_waiting = nullptr;
    QSplitter* m_splitter = nullptr;
    views::CaptureView* m_view = nullptr;
    QPlainTextEdit* m_output = nullptr;
};

} // namespace spanscope::app
