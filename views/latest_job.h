#pragma once
// The one "latest wins" background job every view uses (after hotspot's JobTracker): run()
// computes on QtConcurrent's pool and hands the result to the GUI thread, but only the
// result of the newest run(); an older one still computing is dropped when it arrives
// (a generation counter), as is everything once cancel() is called or the job is deleted.
// The work must own what it reads (shared_ptr copies of snapshots), so it finishes safely
// whenever it finishes. Lives on the GUI thread.

#include <QFuture>
#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>
#include <type_traits>
#include <utility>

namespace spanscope::views {

class LatestJob : public QObject
{
public:
    explicit LatestJob(QObject* parent = nullptr) : QObject(parent) {}

    // `work()` runs on a worker; `done(result)` on this object's (GUI) thread, from the
    // event loop (never inside run()), if this is still the newest run and the job still
    // exists. A QFutureWatcher carries the result: Qt 6.4's QFuture::then(context) was
    // seen here to drop continuations of work that finished while being attached.
    template <typename Work, typename Done>
    void run(Work&& work, Done&& done)
    {
        using Result = std::invoke_result_t<std::decay_t<Work>>;
        const quint64 generation = ++m_generation;
        m_running = true;
        auto* watcher = new QFutureWatcher<Result>(this);
        connect(watcher, &QFutureWatcherBase::finished, this,
                [this, watcher, generation, done = std::forward<Done>(done)]() mutable {
                    watcher->deleteLater();
                    if (generation != m_generation)
                        return; // a newer run is going or done, or the job was cancelled
                    m_running = false;
                    done(watcher->result());
                });
        watcher->setFuture(QtConcurrent::run(std::forward<Work>(work)));
    }

    // Whatever is computing now is dropped when it arrives.
    void cancel()
    {
        ++m_generation;
        m_running = false;
    }
    bool isRunning() const { return m_running; }

private:
    quint64 m_generation = 0;
    bool m_running = false;
};

} // namespace spanscope::views
