// The debugger's moves: single steps as calls on the engine thread, the runs (and the backend comparison)
// as its jobs, and how each one ends.
#include <memory>

#include "qgpu/ui/DebugController.h"
#include "qgpu/ui/EngineThread.h"

namespace qgpu {

void DebugController::singleStep(const std::function<StopReason()>& call) {
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

void DebugController::step() {
    singleStep([this] { return m_session->step(); });
}
void DebugController::stepToken() {
    singleStep([this] { return m_session->stepToken(); });
}
void DebugController::stepBack() {
    singleStep([this] { return m_session->stepBack(); });
}
void DebugController::stepBackToken() {
    singleStep([this] { return m_session->stepBackToken(); });
}
void DebugController::reset() {
    singleStep([this] {
        m_session->reset();
        return StopReason::AtStart;
    });
}

void DebugController::run() {
    if (ensureBuilt()) startRun({}, {});
}

void DebugController::startRun(std::function<bool()> arrived, const QString& arrivedNote) {
    if (!m_session->loaded() || running()) return;
    struct Stop {
        StopReason reason = StopReason::Step;
        bool arrived = false;
        int budget = kUiStepLimit;  // steps the run may still take
        Hit hit;
        std::map<int, SourceBreakpoint> breakpoints;  // as the run began: the engine reads these
    };
    auto stop = std::make_shared<Stop>();
    stop->breakpoints = m_breakpoints;
    startJob(
        [this, arrived = std::move(arrived), stop, word = m_dataBreakpoint] {
            stop->reason = m_session->run(1);  // StepLimit: one step taken, nothing else happened
            bool goesOn = stop->reason == StopReason::StepLimit || stop->reason == StopReason::Breakpoint;
            if (goesOn && !(stop->hit.note = wordChanged(word)).isEmpty()) {
                stop->reason = StopReason::Breakpoint;  // a data breakpoint: after the step that wrote the word
                stop->hit.line = 0;
                return true;
            }
            if (stop->reason == StopReason::Breakpoint && !(stop->hit = conditionHolds(stop->breakpoints)).stop)
                stop->reason = StopReason::StepLimit;  // its condition holds for no lane about to run: on
            if (stop->reason != StopReason::StepLimit || --stop->budget <= 0) return true;
            stop->arrived = arrived && arrived();
            return stop->arrived;
        },
        [this, stop, arrivedNote](bool paused, const QString& error) {
            if (stop->arrived) return finishRun(StopReason::Step, paused, error, arrivedNote);
            if (stop->reason == StopReason::Breakpoint && !paused && stop->hit.line > 0) countHit(stop->hit.line);
            finishRun(stop->reason, paused, error, stop->hit.note.isEmpty() ? QString() : ": " + stop->hit.note);
        },
        QString("running on the %1 backend").arg(backend()));
}

void DebugController::stepLine() {
    pause();
    if (!ensureBuilt()) return;
    int from = m_built->sourceLine(m_session->peek().block);
    startRun(
        [this, from] {
            NextStep next = m_session->peek();
            return next.warp < 0 || m_built->sourceLine(next.block) != from;
        },
        ": the next step runs another source line.");
}

void DebugController::runToLine(int line) {
    pause();
    if (!ensureBuilt()) return;
    std::set<int> blocks = m_built->blocksAt([line](int l) { return l == line; });
    if (blocks.empty())
        return setStatus(QString("Line %1 has no machine code: put the cursor on a line with code.").arg(line));
    startRun([this, blocks] { return blocks.count(m_session->peek().block) > 0; },
             QString(": the next step runs code of line %1.").arg(line));
}

void DebugController::runBack() {
    pause();
    if (!ensureBuilt()) return;
    struct Stop {
        StopReason reason = StopReason::Step;
        Hit hit;
        std::map<int, SourceBreakpoint> breakpoints;
    };
    auto stop = std::make_shared<Stop>();
    stop->breakpoints = m_breakpoints;
    startJob(
        [this, stop] {  // Session::runBack a step at a time, so that Pause can end it
            stop->reason = m_session->stepBack();
            if (stop->reason == StopReason::Step && m_session->atBreakpoint() &&
                (stop->hit = conditionHolds(stop->breakpoints)).stop)
                stop->reason = StopReason::Breakpoint;
            return stop->reason != StopReason::Step;
        },
        [this, stop](bool paused, const QString& error) {
            if (stop->reason == StopReason::Breakpoint && !paused) countHit(stop->hit.line);
            finishRun(stop->reason, paused, error, stop->hit.note.isEmpty() ? QString() : ": " + stop->hit.note);
        },
        QString("running back on the %1 backend").arg(backend()));
}

void DebugController::moveTo(int position) {
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

void DebugController::moveToToken(size_t written) {
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

bool DebugController::compareBackends() {
    pause();
    if (!ensureBuilt()) return false;
    size_t other = m_backend == 0 ? 1 : 0;  // the reference is backend 0
    if (other >= m_backends.size()) {
        setStatus("Only the reference backend is here: there is nothing to compare it with.");
        return false;
    }
    return compareWith(m_backends[other].second, m_backends[other].first + " backend");
}

bool DebugController::compareWith(const SessionFactory& make, const QString& name) {
    struct Comparison {  // the job's own: the second session goes when the comparison ends
        std::unique_ptr<Session> with;
        std::unique_ptr<SessionComparer> comparer;
    };
    auto c = std::make_shared<Comparison>();
    try {
        c->with = make();  // here: the model's factory may wait for the model behind a dialog
        m_engine->call([&] {
            c->with->load(m_built->program, m_built->launch);
            c->comparer = std::make_unique<SessionComparer>(*m_session, *c->with);  // both back to the start
        });
    } catch (const std::exception& e) {
        setStatus("The comparison with the " + name + " failed: " + QString::fromUtf8(e.what()));
        return false;
    }
    QString b = QString::fromStdString(c->with->backendName());
    startJob([c] { return c->comparer->advance(1); },
             [this, c, b](bool paused, const QString& error) {
                 BackendComparison out{backend(), b, c->comparer->result(), {}, {}, paused, error};
                 if (error.isEmpty() && !paused && out.divergence.step >= 0) {
                     out.machineA = m_session->snapshot();
                     out.machineB = c->with->snapshot();
                 }
                 finishComparison(out);
             },
             QString("comparing with the %1").arg(name));
    return true;
}

QStringList BackendComparison::verdict() const {
    const Divergence& d = divergence;
    if (!error.isEmpty()) return {"The comparison failed: " + error};
    if (paused) return {QString("Stopped after %1 steps, all the same so far.").arg(d.stepsCompared)};
    if (d.step < 0)
        return {QString("%1 vs %2: the same machine after every one of %3 steps.").arg(a, b).arg(d.stepsCompared)};
    QStringList out{
        QString("%1 vs %2: the machines first differ at step %3 (%1's value first):").arg(a, b).arg(d.step)};
    for (const std::string& line : d.differences) out << "  " + QString::fromStdString(line);
    return out;
}

void DebugController::finishComparison(const BackendComparison& c) {
    if (c.paused && c.error.isEmpty()) {
        finishRun(StopReason::Step, true, {});
    } else {
        report(StopReason::Step);
        setStatus(c.verdict().front());
    }
    emit compared(c);
}

void DebugController::startJob(std::function<bool()> step, std::function<void(bool paused, const QString& error)> done,
                               const QString& what) {
    m_jobName = what;
    m_jobClock.start();
    m_jobFrom = {m_snapshot->position, m_snapshot->tokens.writtenNow};
    EngineThread::Job job;
    job.step = std::move(step);
    job.done = [this, done = std::move(done)](bool paused, const QString& error) {
        m_lastRunSeconds = m_engine->lastJobSeconds();
        emit runStateChanged(false);
        done(paused, error);
    };
    m_engine->start(std::move(job));
    emit runStateChanged(true);
    setStatus(what + " (Pause stops)");
}

void DebugController::finishRun(StopReason reason, bool paused, const QString& error, const QString& note) {
    if (!error.isEmpty()) {
        report(StopReason::Step);
        return setStatus(m_status + ": the " + backend() + " backend failed: " + error);
    }
    report(paused ? StopReason::Step : reason, paused ? QString(": paused.") : note);
}

void DebugController::pause() {
    if (m_engine->busy()) m_engine->stop();  // a run's `done` shows where it stopped; a trace is dropped
}

bool DebugController::running() const { return m_engine->busy() && !m_tracing; }

void DebugController::requestTrace() {
    if (!m_session->loaded() || running()) return;
    auto trace = std::make_shared<TokenTrace>();
    EngineThread::Job job;
    job.step = [this, trace] {
        *trace = m_session->tokenTrace();
        return true;
    };
    job.done = [this, trace](bool stopped, const QString& error) {
        m_tracing = false;
        // A move or a run came first: the trace is of another moment.
        if (stopped || !error.isEmpty() || m_engine->superseding()) return;
        m_trace = trace;
        emit traced();
    };
    m_engine->start(std::move(job));
    m_tracing = true;
}

void DebugController::waitIdle() { m_engine->waitIdle(); }

}  // namespace qgpu
