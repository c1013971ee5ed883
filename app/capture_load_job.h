#pragma once
// Loads one region file on a worker thread (QtConcurrent's pool) and reports back on the
// GUI thread: progress about every 50 ms, then exactly one of finished, failed or
// cancelled. Latest wins: start() again (F5) cancels and forgets the previous load.
// Deleting the job while a load runs cancels it; the worker finishes on its own and its
// result is dropped. The object lives on the GUI thread.

#include "model/capture_loader.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>

namespace spanscope::app {

class CaptureLoadJob : public QObject
{
    Q_OBJECT

public:
    explicit CaptureLoadJob(QObject* parent = nullptr);
    ~CaptureLoadJob() override;

    void start(const QString& path);
    // Stops the current load (the reader notices within a few ms) and emits cancelled() at
    // once; the worker's eventual result is ignored. No-op when nothing runs.
    void cancel();

    bool isRunning() const { return m_watcher != nullptr; }
    QString path() const { return m_path; }
    double progress() const; // 0..1 of the current load

signals:
    void progressChanged(double fraction);
    void finished(const spanscope::model::LoadedCapture& loaded);
    void failed(const spanscope::model::Error& error);
    void cancelled();

private:
    using Outcome = model::Result<model::LoadedCapture>;

    // Cancels and disowns the running load, if any, without emitting anything.
    void abandon();
    void onWorkerDone(QFutureWatcher<Outcome>* watcher, quint64 generation);

    QString m_path;
    // Shared with the worker, which may outlive this job after a cancel.
    std::shared_ptr<model::LoadControl> m_control;
    QFutureWatcher<Outcome>* m_watcher = nullptr;
    quint64 m_generation = 0; // identifies the current load; older results are dropped
    QTimer m_progressTimer;
    double m_lastProgress = -1.0;
};

} // namespace spanscope::app
