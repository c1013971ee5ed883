#pragma once
// Control over Qt's global thread pool, where the viewer's background work runs, so tests
// wait on conditions and never on time:
//  - PoolGate keeps every pool thread waiting until open() (or destruction): work handed
//    to the pool meanwhile cannot finish before the test has looked;
//  - settlePool() returns once every task handed to the pool has finished and the results
//    they posted have been delivered: a stale result that should be dropped has arrived
//    by then, so a check that it was dropped cannot pass by luck.

#include <QCoreApplication>
#include <QSemaphore>
#include <QThreadPool>

namespace spanscope::testing {

class PoolGate
{
public:
    PoolGate()
    {
        for (int i = 0; i < m_threads; ++i)
            QThreadPool::globalInstance()->start([this] { m_gate.acquire(); });
    }
    ~PoolGate()
    {
        open();
        QThreadPool::globalInstance()->waitForDone(); // nobody still inside m_gate
    }
    PoolGate(const PoolGate&) = delete;
    PoolGate& operator=(const PoolGate&) = delete;

    void open()
    {
        m_gate.release(m_threads - m_released);
        m_released = m_threads;
    }

private:
    QSemaphore m_gate;
    const int m_threads = QThreadPool::globalInstance()->maxThreadCount();
    int m_released = 0;
};

inline void settlePool()
{
    QThreadPool::globalInstance()->waitForDone();
    // Results come back as posted events (QFutureWatcher, queued signals); a delivered
    // event may post another, hence twice.
    for (int round = 0; round < 2; ++round) {
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
    }
}

} // namespace spanscope::testing
