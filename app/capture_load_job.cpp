#include "capture_load_job.h"

#include <QFile>
#include <QtConcurrent/QtConcurrentRun>

namespace spanscope::app {

namespace {

// Often enough for a smooth bar, rarely enough to cost nothing.
constexpr int kProgressIntervalMs = 50;

} // namespace

CaptureLoadJob::CaptureLoadJob(QObject* parent) : QObject(parent)
{
    m_progressTimer.setInterval(kProgressIntervalMs);
    connect(&m_progressTimer, &QTimer::timeout, this, [this] {
        const double fraction = progress();
        if (fraction != m_lastProgress) {
            m_lastProgress = fraction;
            emit progressChanged(fraction);
        }
    });
}

CaptureLoadJob::~CaptureLoadJob()
{
    abandon();
}

void CaptureLoadJob::start(const QString& path)
{
    abandon();
    m_path = path;
    m_control = std::make_shared<model::LoadControl>();
    m_lastProgress = -1.0;
    const quint64 generation = ++m_generation;

    auto control = m_control;
    const std::string nativePath = QFile::encodeName(path).toStdString();
    auto* watcher = new QFutureWatcher<Outcome>(this);
    m_watcher = watcher;
    connect(watcher, &QFutureWatcherBase::finished, this,
            [this, watcher, generation] { onWorkerDone(watcher, generation); });
    watcher->setFuture(QtConcurrent::run(
        [nativePath, control] { return model::loadCapture(nativePath, control.get(), model::LoadOptions{true}); }));
    m_progressTimer.start();
    emit progressChanged(0.0);
}

void CaptureLoadJob::cancel()
{
    if (!isRunning())
        return;
    abandon();
    emit cancelled();
}

double CaptureLoadJob::progress() const
{
    return m_control ? m_control->progress() : 0.0;
}

void CaptureLoadJob::abandon()
{
    m_progressTimer.stop();
    if (m_control)
        m_control->cancel();
    if (m_watcher) {
        // The worker keeps its own reference to the control; its result goes nowhere.
        m_watcher->disconnect(this);
        m_watcher->deleteLater();
        m_watcher = nullptr;
    }
}

void CaptureLoadJob::onWorkerDone(QFutureWatcher<Outcome>* watcher, quint64 generation)
{
    if (generation != m_generation || watcher != m_watcher)
        return; // a newer load replaced this one
    m_progressTimer.stop();
    m_watcher = nullptr;
    watcher->deleteLater();
    Outcome outcome = watcher->result();
    if (outcome.ok()) {
        emit progressChanged(1.0);
        emit finished(outcome.value());
    } else if (outcome.error().code == model::ErrorCode::Cancelled) {
        emit cancelled();
    } else {
        emit failed(outcome.error());
    }
}

} // namespace spanscope::app
