// The debugger's session: its backends, the build that loads it, the breakpoints, and the snapshot and
// status every move ends with. The moves themselves are in DebugControllerMoves.cpp.
#include "qgpu/ui/DebugController.h"

#include <QEventLoop>
#include <QStringList>
#include <exception>
#include <thread>

#include "qgpu/compiler/Frontend.h"
#include "qgpu/core/Assembler.h"
#include "qgpu/core/Encoding.h"
#include "qgpu/core/DevicePrintf.h"
#include "qgpu/core/Trace.h"
#include "qgpu/ui/EngineThread.h"

namespace qgpu {

namespace {

// A __shared__ array's name as the kernel spells it: a function-local one is mangled in PTX
// ("_ZZ11tree_reducePKiPiE1s" holds "s").
std::string sourceName(const std::string& ptxName) {
    if (ptxName.rfind("_ZZ", 0) != 0) return ptxName;
    size_t e = ptxName.rfind('E');
    size_t digits = e == std::string::npos ? e : ptxName.find_first_not_of("0123456789", e + 1);
    if (digits == std::string::npos || digits == e + 1 || digits - e > 4) return ptxName;
    size_t length = std::stoul(ptxName.substr(e + 1, digits - e - 1));
    return digits + length == ptxName.size() ? ptxName.substr(digits) : ptxName;
}

CudaCompileOptions compileOptions(const DebugSource& source) {
    CudaCompileOptions options;
    if (source.debugBuild) {
        options.optLevel = 0;
        options.debugInfo = true;
    }
    return options;
}

// Compiles (CUDA) or assembles the source into `out`; throws DiagnosticError.
void compileSource(const DebugSource& source, BuiltProgram& out) {
    std::string file = source.fileName.toStdString();
    if (!source.cuda) {
        out.program = assemble(source.text.toStdString(), file);
        return;
    }
    CompiledKernel k = compileKernel(source.text.toStdString(), file, MachineSpec::standard(), compileOptions(source));
    out.ptx = std::move(k.ptx);
    out.program = std::move(k.kernel.program);
    out.lineMap = std::move(k.kernel.lineMap);
    for (SharedPlacement& a : k.kernel.shared) out.shared.push_back({sourceName(a.name), a.base, a.words});
}

// Runs `work` on a thread of its own while the window goes on drawing (a compile and a load into the model take a
// tenth of a second or more). The window's input waits until the work is done, so nothing the user does runs
// in between; what the work threw is thrown here.
void runWhileWindowDraws(const std::function<void()>& work) {
    std::exception_ptr failure;
    QEventLoop loop;
    std::thread worker([&] {
        try {
            work();
        } catch (...) {
            failure = std::current_exception();
        }
        QMetaObject::invokeMethod(&loop, &QEventLoop::quit, Qt::QueuedConnection);
    });
    loop.exec(QEventLoop::ExcludeUserInputEvents);
    worker.join();
    if (failure) std::rethrow_exception(failure);
}

// What a failed build still shows: a kernel that compiled but could not be lowered keeps its PTX, which the
// message may cite, and one whose launch did not fit keeps its parameters.
std::shared_ptr<BuiltProgram> failedBuild(const DebugSource& source, const BuiltProgram& made,
                                          std::vector<Diagnostic> diagnostics) {
    auto out = std::make_shared<BuiltProgram>();
    out->diagnostics = std::move(diagnostics);
    out->ptx = made.ptx;
    out->program.params = made.program.params;  // a kernel that compiled: the launch panel can follow it
    if (source.cuda && out->ptx.empty()) {
        CudaCompileResult r =
            compileCudaToPtx(source.text.toStdString(), source.fileName.toStdString(), compileOptions(source));
        if (r.ok) out->ptx = std::move(r.ptx);
    }
    return out;
}

}  // namespace

int BuiltProgram::sourceLine(int block) const {
    if (block < 0 || block >= int(program.blocks.size())) return 0;
    const Block& b = program.blocks[size_t(block)];
    return b.bodyLocs.empty() ? b.terminatorLoc.line : b.bodyLocs.front().line;
}

std::set<int> BuiltProgram::blocksAt(const std::function<bool(int line)>& atLine) const {
    std::set<int> out;
    for (size_t b = 0; b < program.blocks.size(); ++b) {
        const Block& blk = program.blocks[b];
        bool hit = atLine(blk.labelLoc.line) || atLine(blk.terminatorLoc.line);
        for (const auto& loc : blk.bodyLocs) hit = hit || atLine(loc.line);
        if (hit) out.insert(int(b));
    }
    return out;
}

QString positionText(int position) {
    return position == 0 ? QString("at the start") : QString("after step %1").arg(position - 1);
}

DebugController::DebugController(QObject* parent)
    : QObject(parent),
      m_session(makeReferenceSession()),
      m_built(std::make_shared<BuiltProgram>()),
      m_history(std::make_shared<std::vector<StepEvent>>()),
      m_snapshot(std::make_shared<DebugSnapshot>()),
      m_engine(std::make_unique<EngineThread>()) {
    m_backends.push_back({"reference", [] { return makeReferenceSession(); }});
    connect(m_engine.get(), &EngineThread::progress, this, [this] {
        publish(StopReason::Step);
        setStatus(QString("%1: %2 (Pause stops)").arg(m_jobName, progressText()));
    });
}

DebugController::~DebugController() { m_engine.reset(); }  // first: a run in flight steps the session

void DebugController::addBackend(const QString& name, SessionFactory make) {
    m_backends.push_back({name, std::move(make)});
    emit backendsChanged();
}

QStringList DebugController::backends() const {
    QStringList out;
    for (const auto& b : m_backends) out << b.first;
    return out;
}

QString DebugController::backend() const { return m_backends[size_t(m_backend)].first; }

bool DebugController::setBackend(const QString& name) {
    pause();
    for (size_t i = 0; i < m_backends.size(); ++i) {
        if (m_backends[i].first != name) continue;
        try {
            std::unique_ptr<Session> made = m_backends[i].second();  // may wait behind a progress dialog
            pause();  // a run started meanwhile ends before its session goes
            m_session = std::move(made);
        } catch (const std::exception& e) {
            setStatus("The " + name + " backend did not start: " + QString::fromUtf8(e.what()));
            emit backendChanged();  // the box goes back to the backend in use
            return false;
        }
        m_backend = int(i);
        m_history = std::make_shared<std::vector<StepEvent>>();
        emit backendChanged();
        if (m_document) return build();
        publish(StopReason::AtStart);
        return true;
    }
    setStatus("There is no backend named " + name + ".");
    return false;
}

bool DebugController::build() {
    pause();
    m_trace.reset();  // of the program built before
    if (!m_document) return false;
    m_source = m_document();
    if (!load(m_source)) {
        setStatus(QString::fromStdString(formatAll(m_built->diagnostics)));
        emit built(false);
        publish(StopReason::AtStart);
        return false;
    }
    setStatus(QString("Built %1 blocks; ready to run (F5) or step a line (F10).").arg(m_built->program.blocks.size()));
    relocateBreakpoints();
    emit built(true);
    publish(StopReason::AtStart);
    if (m_snapshot->tokens.fed.empty())  // the backend is as fast as the interpreter: no count needed
        m_stepCounter.clear();
    else
        m_stepCounter.start(m_built->program, m_built->launch, kUiStepLimit);
    return true;
}

bool DebugController::load(const DebugSource& source) {
    auto b = std::make_shared<BuiltProgram>();
    try {
        LinkedLaunch linked;
        runWhileWindowDraws([&] {  // the engine is idle: build() paused it
            compileSource(source, *b);
            if (!source.launchProblem.isEmpty())
                throw DiagnosticError(Diagnostic{"launch", 0, 0, source.launchProblem.toStdString()});
            b->launch = parseLaunchSpec(source.launch.toStdString(), "launch spec");
            linked = linkLaunch(b->program, b->launch);
            // On the engine thread, like every call that changes the session (a backend may keep per-thread
            // state); only a successful load replaces what the views show.
            m_engine->call([&] {
                m_session->load(b->program, b->launch);
                b->rom = m_session->rom();
            });
        });
        for (const Block& blk : linked.program.blocks)
            b->compiledRom.push_back(encodeBlock(blk, MachineSpec::standard().slotsPerBlock));
        b->map = std::move(linked.map);
    } catch (const DiagnosticError& e) {
        unload();
        m_built = failedBuild(source, *b, e.diagnostics());
        return false;
    } catch (const std::exception& e) {  // a library failure must never escape into Qt
        unload();
        m_built =
            failedBuild(source, *b, {Diagnostic{"", 0, 0, std::string("internal error while building: ") + e.what()}});
        return false;
    }
    b->ok = true;
    m_built = std::move(b);
    m_dataBreakpoint = -1;
    m_history = std::make_shared<std::vector<StepEvent>>();
    return true;
}

void DebugController::unload() {
    std::unique_ptr<Session> made;
    try {  // never keep running the previous kernel under new source
        made = m_backends[size_t(m_backend)].second();
    } catch (const std::exception&) {
        made = makeReferenceSession();
    }
    pause();  // the factory may have let a run start: it ends before its session goes
    m_session = std::move(made);
    m_history = std::make_shared<std::vector<StepEvent>>();
}

bool DebugController::ensureBuilt() {
    if (m_document && !(m_document() == m_source)) {
        m_rebuilt = build();
        return m_rebuilt;
    }
    return m_session->loaded();
}

std::unique_lock<std::mutex> DebugController::lock() { return m_engine->lock(); }

double DebugController::lastRunSeconds() const { return m_lastRunSeconds; }

void DebugController::setStatus(const QString& text) {
    m_status = text;
    emit statusChanged(text);
}

void DebugController::publish(StopReason stop) {
    auto s = std::make_shared<DebugSnapshot>();
    {
        auto lock = m_engine->lock();  // the engine steps on between two snapshots, never during one
        s->loaded = m_session->loaded();
        s->running = running();
        s->backend = backend();
        s->build = m_built;
        s->state = m_session->snapshot();
        const std::vector<StepEvent>& history = m_session->history();
        if (history.size() != m_history->size()) m_history = std::make_shared<std::vector<StepEvent>>(history);
        s->history = m_history;
        s->position = m_session->position();
        s->next = m_session->peek();
        s->tokens = m_session->tokens();
        s->stop = stop;
    }
    m_snapshot = std::move(s);
    emit moved();
}

QString momentText(const DebugSnapshot& s) {
    const TokenStream& ts = s.tokens;
    size_t start = s.position > 0 && size_t(s.position) <= ts.writtenAfterStep.size()
                       ? ts.writtenAfterStep[size_t(s.position - 1)]
                       : 0;
    if (ts.writtenNow <= start || size_t(s.position) >= ts.writtenAfterStep.size()) return positionText(s.position);
    size_t tokens = ts.writtenAfterStep[size_t(s.position)] - start;
    return QString("in step %1, after %2 of its %3 tokens").arg(s.position).arg(ts.writtenNow - start).arg(tokens);
}

QString DebugController::describe(StopReason r) const {
    const DebugSnapshot& s = *m_snapshot;
    QString where = momentText(s);
    switch (r) {
        case StopReason::Finished: {
            // The arrays in short (the Results panel has them whole), then the verdict on "expect".
            const BuiltProgram& b = *s.build;
            std::vector<std::string> bad = expectationMismatches(s.state, b.launch, b.map);
            QString verdict = !b.launch.hasExpectations() ? QString()
                              : bad.empty()               ? QString(" Every expected array matches.")
                                                          : " NOT AS EXPECTED: " + QString::fromStdString(bad.front()) +
                                                  (bad.size() > 1 ? QString(" (and %1 more)").arg(bad.size() - 1) : "");
            DevicePrintfOutput printed = readDevicePrintf(s.state.global, b.map);
            if (const PrintedRecord* failed = printed.failedAssertion())
                verdict = " A DEVICE ASSERTION FAILED: " + QString::fromStdString(failed->text).trimmed() + verdict;
            return where + ": the launch finished. " + QString::fromStdString(summarizeArrays(s.state, b.map)) +
                   verdict;
        }
        case StopReason::Faulted: {
            int block = s.position > 0 ? s.last()->block : -1;
            return where +
                   ": machine fault: " + QString::fromStdString(locatedFault(s.build->program, block, s.state.fault));
        }
        case StopReason::Breakpoint: return where + ": stopped at a breakpoint.";
        case StopReason::StepLimit:
            if (m_session->computedBy() != m_session->backendName())  // a replay of a recording
                return where + ": the recording ends here (it was saved before the launch ended).";
            return where + ": stopped after the step limit; the kernel may loop forever.";
        case StopReason::AtStart: return "At the start of the launch.";
        case StopReason::Step: return where;
    }
    return where;
}

QString DebugController::progressText() const {
    const DebugSnapshot& s = *m_snapshot;
    int total = m_stepCounter.steps();
    QString where =
        total > 0 ? QString("after step %1 of %2").arg(s.position - 1).arg(total) : positionText(s.position);
    double seconds = m_jobClock.elapsed() / 1000.0;
    int steps = s.position - m_jobFrom.position;
    if (seconds < 0.2 || steps <= 0) return where;
    double rate = steps / seconds;
    QString figures = QString("%1 steps/s").arg(rate, 0, 'f', 0);
    if (s.tokens.writtenNow > m_jobFrom.tokens)
        figures += QString(", %1 tokens/s").arg((s.tokens.writtenNow - m_jobFrom.tokens) / seconds, 0, 'f', 0);
    if (total > s.position) figures += QString(", about %1 s left").arg((total - s.position) / rate, 0, 'f', 1);
    return where + " (" + figures + ")";
}

void DebugController::report(StopReason r, const QString& note) {
    publish(r);
    QString text = describe(r) + note;
    if (m_rebuilt) text += " (built again first: the source or the launch had changed)";
    m_rebuilt = false;
    setStatus(text);
}

}  // namespace qgpu
