// A thread for engine work, so that the window stays live while it runs. The debugger's (DebugController's)
// runs every call that steps, rewinds or loads its session, and the GUI thread reads the session only under
// lock(), which it gets within one engine step; the chat panel has one of its own for Qwen's replies.
#pragma once

#include <QObject>
#include <QString>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

class QThread;

namespace qgpu {

class EngineThread : public QObject {
    Q_OBJECT
public:
    // Work that takes many steps (a run, a comparison). `step` runs on the engine thread with the session
    // locked, again and again until it returns true (over) or stop() asks it to end; it runs once at least.
    // `done` runs on the GUI thread afterwards: `paused` when stop() ended it before it was over, `error`
    // what an exception from `step` said (which also ends the job).
    struct Job {
        std::function<bool()> step;
        std::function<void(bool paused, const QString& error)> done;
    };

    explicit EngineThread(QObject* parent = nullptr);
    // Ends the job in flight between two steps and joins the thread; the job's `done` is not called (the
    // window that gave it is going away).
    ~EngineThread() override;

    void start(Job job);  // stops the job in flight first
    // Runs `fn` on the engine thread with the session locked and waits for it; its exception comes back
    // here. For the calls that take one step (or load a program): the GUI waits that long, no longer. Never
    // call it holding lock(). Another thread may call it while no job is in flight (the build's thread, while
    // the window draws).
    void call(const std::function<void()>& fn);
    // Asks the job in flight to end, waits for its current step (the engine checks between steps), then
    // runs its `done` here. Nothing when idle.
    void stop();
    bool busy() const { return m_job != nullptr; }  // a job was started and its `done` has not run yet
    // True while a job's `done` runs because start() or call() came with other work (what it made may be
    // stale already).
    bool superseding() const { return m_superseding; }
    // How long the last job that ended kept the engine thread, from its first step to its last (a run's
    // engine time, without the window's work before and after it).
    double lastJobSeconds() const { return m_jobSeconds; }
    void waitIdle();  // processes events until busy() is false

    // The session lock, for reading the session on the GUI thread. std::mutex is not fair, so the engine
    // lets a waiting reader in before it takes its next step: this waits for one step at most.
    std::unique_lock<std::mutex> lock();

signals:
    void progress();  // while a job runs, at most ten times a second

private:
    void work(std::shared_ptr<Job> job, quint64 serial);  // on the engine thread
    void finish(quint64 serial);                          // on the GUI thread
    void waitForEngine();                                 // until the engine has left the job
    void supersede();                                     // stop(), for the work that comes next

    std::unique_ptr<QThread> m_thread;
    std::unique_ptr<QObject> m_worker;  // lives on m_thread: what the GUI posts work to
    std::shared_ptr<Job> m_job;         // GUI thread: the job in flight
    quint64 m_serial = 0;               // GUI thread: which job the engine's reports are about
    bool m_superseding = false;         // GUI thread
    std::atomic<bool> m_stop{false};
    std::atomic<double> m_jobSeconds{0};

    std::mutex m_session;
    std::atomic<int> m_readers{0};  // GUI readers waiting for m_session

    std::mutex m_state;  // guards what follows, written by the engine when a job ends
    std::condition_variable m_idle;
    bool m_working = false;
    bool m_over = false;
    QString m_error;
};

}  // namespace qgpu
