#include "qgpu/ui/EngineThread.h"

#include <QCoreApplication>
#include <QThread>

#include <chrono>
#include <exception>
#include <future>
#include <thread>

namespace qgpu {

namespace {
constexpr auto kProgressEvery = std::chrono::milliseconds(100);  // at most ten reports a second
}

EngineThread::EngineThread(QObject* parent) : QObject(parent), m_thread(new QThread), m_worker(new QObject) {
    m_thread->setObjectName("qgpu engine");
    m_worker->moveToThread(m_thread.get());
    m_thread->start();
}

EngineThread::~EngineThread() {
    m_stop = true;
    waitForEngine();
    m_job.reset();
    m_thread->quit();
    m_thread->wait();
    m_worker.reset();  // its thread has ended: nothing else touches it now
}

void EngineThread::start(Job job) {
    supersede();
    m_job = std::make_shared<Job>(std::move(job));
    m_stop = false;
    quint64 serial = ++m_serial;
    {
        std::lock_guard<std::mutex> state(m_state);
        m_working = true;
    }
    QMetaObject::invokeMethod(
        m_worker.get(), [this, job = m_job, serial]() mutable { work(std::move(job), serial); }, Qt::QueuedConnection);
}

void EngineThread::work(std::shared_ptr<Job> job, quint64 serial) {
    bool over = false;
    QString error;
    auto reported = std::chrono::steady_clock::now(), started = reported;
    do {  // a job started just before a stop still takes its one step
        {
            std::lock_guard<std::mutex> session(m_session);
            try {
                over = job->step();
            } catch (const std::exception& e) {  // an engine failure must never escape the thread
                error = QString::fromUtf8(e.what());
                over = true;
            } catch (...) {
                error = "an unknown failure";
                over = true;
            }
        }
        while (m_readers.load() > 0) std::this_thread::yield();  // the GUI reads before the next step
        auto now = std::chrono::steady_clock::now();
        if (!over && now - reported >= kProgressEvery) {
            reported = now;
            QMetaObject::invokeMethod(
                this,
                [this, serial] {
                    if (m_job && serial == m_serial) emit progress();  // a late report of a job since ended: none
                },
                Qt::QueuedConnection);
        }
    } while (!over && !m_stop);
    m_jobSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    job.reset();  // what the job holds (a second session) goes with the GUI's copy, not after idle is told
    QMetaObject::invokeMethod(
        this, [this, serial] { finish(serial); }, Qt::QueuedConnection);
    {
        std::lock_guard<std::mutex> state(m_state);
        m_over = over;
        m_error = error;
        m_working = false;
    }
    m_idle.notify_all();
}

void EngineThread::waitForEngine() {
    std::unique_lock<std::mutex> state(m_state);
    m_idle.wait(state, [this] { return !m_working; });
}

void EngineThread::finish(quint64 serial) {
    if (!m_job || serial != m_serial) return;  // stop() has already finished it
    waitForEngine();
    std::shared_ptr<Job> job = std::move(m_job);  // busy() is false from here: `done` may start another
    bool over;
    QString error;
    {
        std::lock_guard<std::mutex> state(m_state);
        over = m_over;
        error = m_error;
    }
    if (job->done) job->done(!over, error);
}

void EngineThread::stop() {
    if (!m_job) return;
    m_stop = true;
    finish(m_serial);
}

void EngineThread::supersede() {
    m_superseding = true;
    stop();
    m_superseding = false;
}

void EngineThread::call(const std::function<void()>& fn) {
    supersede();
    // Shared: the engine may still be inside set_value when this thread wakes and returns.
    auto result = std::make_shared<std::promise<void>>();
    std::future<void> done = result->get_future();
    QMetaObject::invokeMethod(
        m_worker.get(),
        [this, &fn, result] {
            std::lock_guard<std::mutex> session(m_session);
            try {
                fn();
                result->set_value();
            } catch (...) {
                result->set_exception(std::current_exception());
            }
        },
        Qt::QueuedConnection);
    done.get();
}

void EngineThread::waitIdle() {
    // The engine's end-of-job report is an event: waiting for events cannot miss it.
    while (busy()) QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
}

std::unique_lock<std::mutex> EngineThread::lock() {
    ++m_readers;
    std::unique_lock<std::mutex> session(m_session);
    --m_readers;
    return session;
}

}  // namespace qgpu
