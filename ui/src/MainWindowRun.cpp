// The Debug menu's engine work: single steps as calls on the engine thread, the runs (and the backend
// comparison) as its jobs, and what the window shows while they go on and when they stop.
#include "qgpu/ui/MainWindow.h"

#include <QAction>
#include <QDockWidget>
#include <QListWidget>

#include <memory>

#include "qgpu/ui/BackendDiffView.h"
#include "qgpu/ui/EngineThread.h"

namespace qgpu {

namespace {

constexpr int kUiStepLimit = 20000;  // Run stops here so an endless loop cannot swamp the window

}  // namespace

void MainWindow::singleStep(const std::function<StopReason()>& call) {
    pause();
    if (!ensureBuilt()) return;  // pause() left the engine idle: no lock needed
    StopReason r = StopReason::Step;
    try {
        m_engine->call([&] { r = call(); });
    } catch (const std::exception& e) {  // a backend failure must never escape into Qt
        return finishRun(StopReason::Step, false, QString::fromUtf8(e.what()));
    }
    report(r);
}

void MainWindow::step() {
    singleStep([this] { return m_session->step(); });
}
void MainWindow::stepToken() {
    singleStep([this] { return m_session->stepToken(); });
}
void MainWindow::stepBack() {
    singleStep([this] { return m_session->stepBack(); });
}
void MainWindow::stepBackToken() {
    singleStep([this] { return m_session->stepBackToken(); });
}
void MainWindow::reset() {
    singleStep([this] {
        m_session->reset();
        return StopReason::AtStart;
    });
}

void MainWindow::run() {
    if (ensureBuilt()) startRun({}, {});
}

void MainWindow::startRun(std::function<bool()> arrived, const QString& arrivedNote) {
    if (!m_session->loaded() || running()) return;
    struct Stop {
        StopReason reason = StopReason::Step;
        bool arrived = false;
        int budget = kUiStepLimit;  // steps the run may still take
    };
    auto stop = std::make_shared<Stop>();
    startJob(
        [this, arrived = std::move(arrived), stop] {
            stop->reason = m_session->run(1);  // StepLimit: one step taken, nothing else happened
            if (stop->reason != StopReason::StepLimit || --stop->budget <= 0) return true;
            stop->arrived = arrived && arrived();
            return stop->arrived;
        },
        [this, stop, arrivedNote](bool paused, const QString& error) {
            if (stop->arrived) return finishRun(StopReason::Step, paused, error, arrivedNote);
            finishRun(stop->reason, paused, error);
        },
        QString("running on the %1 backend").arg(backend()));
}

void MainWindow::stepLine() {
    pause();
    if (!ensureBuilt()) return;
    int from = sourceLine(m_session->peek().block);
    startRun(
        [this, from] {
            NextStep next = m_session->peek();
            return next.warp < 0 || sourceLine(next.block) != from;
        },
        ": the next step runs another source line.");
}

void MainWindow::runToLine(int line) {
    pause();
    if (!ensureBuilt()) return;
    std::set<int> blocks = blocksAt([line](int l) { return l == line; });
    if (blocks.empty())
        return setStatus(QString("Line %1 has no machine code: put the cursor on a line with code.").arg(line));
    startRun([this, blocks] { return blocks.count(m_session->peek().block) > 0; },
             QString(": the next step runs code of line %1.").arg(line));
}

void MainWindow::runBack() {
    pause();
    if (!ensureBuilt()) return;
    auto stop = std::make_shared<StopReason>(StopReason::Step);
    startJob(
        [this, stop] {  // Session::runBack a step at a time, so that Pause can end it
            *stop = m_session->stepBack();
            if (*stop == StopReason::Step && m_session->atBreakpoint()) *stop = StopReason::Breakpoint;
            return *stop != StopReason::Step;
        },
        [this, stop](bool paused, const QString& error) { finishRun(*stop, paused, error); },
        QString("running back on the %1 backend").arg(backend()));
}

void MainWindow::moveTo(int position) {
    pause();
    if (!m_session->loaded()) return;
    startJob(
        [this, position] {
            int at = m_session->position();
            if (at > position) return m_session->stepBack() == StopReason::AtStart || m_session->position() <= position;
            if (at < position) return m_session->step() != StopReason::Step || m_session->position() >= position;
            return true;
        },
        [this](bool paused, const QString& error) { finishRun(StopReason::Step, paused, error); },
        QString("moving to step %1").arg(position));
}

void MainWindow::moveToToken(size_t written) {
    pause();
    if (!m_session->loaded()) return;
    TokenStream ts = m_session->tokens();
    int step = 0;  // the step the token is in: it starts before the token and ends at or after it
    while (step < int(ts.writtenAfterStep.size()) && ts.writtenAfterStep[size_t(step)] < written) ++step;
    size_t start = step > 0 ? ts.writtenAfterStep[size_t(step - 1)] : 0;
    bool ends = step < int(ts.writtenAfterStep.size()) && ts.writtenAfterStep[size_t(step)] == written;
    int boundary = ends ? step + 1 : step;
    // First off any token the debugger shows mid-step, then to the step's start (or end) a step at a time,
    // then token by token within it.
    bool midStep =
        ts.writtenNow != (m_session->position() > 0 ? ts.writtenAfterStep[size_t(m_session->position() - 1)] : 0);
    startJob(
        [this, boundary, written, start, ends, midStep]() mutable {
            if (midStep) {
                midStep = false;
                m_session->stepBack();  // to the start of the step shown
                return false;
            }
            int at = m_session->position();
            if (at > boundary) return m_session->stepBack() == StopReason::AtStart && boundary > 0;
            if (at < boundary) return m_session->step() != StopReason::Step;
            for (size_t t = start; !ends && t < written; ++t) m_session->stepToken();
            return true;
        },
        [this](bool paused, const QString& error) { finishRun(StopReason::Step, paused, error); },
        QString("moving to token %1").arg(written));
}

bool MainWindow::compareBackends() {
    pause();
    if (!ensureBuilt()) return false;
    size_t other = m_backend == 0 ? 1 : 0;  // the reference is backend 0
    if (other >= m_backends.size()) {
        setStatus("Only the reference backend is here: there is nothing to compare it with.");
        return false;
    }
    struct Comparison {  // the job's own: the second session goes when the comparison ends
        std::unique_ptr<Session> with;
        std::unique_ptr<SessionComparer> comparer;
    };
    auto c = std::make_shared<Comparison>();
    try {
        c->with = m_backends[other].second();  // here: the model's factory may wait for the model behind a dialog
        m_engine->call([&] {
            c->with->load(m_program, m_launchSpec);
            c->comparer = std::make_unique<SessionComparer>(*m_session, *c->with);  // both back to the start
        });
    } catch (const std::exception& e) {
        setStatus("The comparison with the " + m_backends[other].first +
                  " backend failed: " + QString::fromUtf8(e.what()));
        return false;
    }
    m_diff->clear();
    m_diffView->clearMachines();
    if (auto* dock = findChild<QDockWidget*>("Backend diff")) dock->raise();
    QString a = backend(), b = QString::fromStdString(c->with->backendName());
    startJob(
        [c] { return c->comparer->advance(1); },
        [this, c, a, b](bool paused, const QString& error) {
            const Divergence& d = c->comparer->result();
            if (!error.isEmpty()) {
                m_diff->addItem("The comparison failed: " + error);
            } else if (paused) {
                m_diff->addItem(QString("Stopped after %1 steps, all the same so far.").arg(d.stepsCompared));
                return finishRun(StopReason::Step, true, {});
            } else if (d.step < 0) {
                m_diff->addItem(
                    QString("%1 vs %2: the same machine after every one of %3 steps.").arg(a, b).arg(d.stepsCompared));
            } else {
                m_diff->addItem(QString("%1 vs %2: the machines first differ at step %3 (%1's value first):")
                                    .arg(a, b)
                                    .arg(d.step));
                for (const std::string& line : d.differences) m_diff->addItem("  " + QString::fromStdString(line));
                m_diffView->showMachines(a, m_session->snapshot(), b, c->with->snapshot(), m_map, d.step);
            }
            report(StopReason::Step);
            setStatus(m_diff->item(0)->text());
        },
        QString("comparing with the %1 backend").arg(b));
    return true;
}

void MainWindow::startJob(std::function<bool()> step, std::function<void(bool paused, const QString& error)> done,
                          const QString& what) {
    m_jobName = what;
    EngineThread::Job job;
    job.step = std::move(step);
    job.done = [this, done = std::move(done)](bool paused, const QString& error) {
        updateActions();
        done(paused, error);
    };
    m_engine->start(std::move(job));
    updateActions();
    setStatus(what + " (Pause stops)");
}

void MainWindow::showProgress() {
    int position;
    {
        auto lock = m_engine->lock();
        position = m_session->position();
    }
    setStatus(QString("%1: %2 (Pause stops)").arg(m_jobName, positionText(position)));
    refresh();
}

void MainWindow::finishRun(StopReason reason, bool paused, const QString& error, const QString& note) {
    if (!error.isEmpty()) {
        report(StopReason::Step);
        return setStatus(statusText() + ": the " + backend() + " backend failed: " + error);
    }
    report(paused ? StopReason::Step : reason);
    if (paused)
        setStatus(statusText() + ": paused.");
    else if (!note.isEmpty())
        setStatus(statusText() + note);
}

void MainWindow::pause() {
    if (running()) m_engine->stop();  // the job's `done` shows where it stopped
}

bool MainWindow::running() const { return m_engine->busy(); }

void MainWindow::waitIdle() { m_engine->waitIdle(); }

void MainWindow::updateActions() {
    bool busy = running();
    for (QAction* a : m_moveActions) a->setEnabled(!busy);
    m_pauseAction->setEnabled(busy);
}

}  // namespace qgpu
