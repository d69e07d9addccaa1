// The studio's debugger, without a widget: it owns the session (stepped on its engine thread), the backends,
// the build, the breakpoints and every step, run and move. Views subscribe to its past-tense signals and read
// snapshot(), an immutable picture of one moment, so no view steps the session or reads it mid-step.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "qgpu/compiler/Lowering.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Launch.h"
#include "qgpu/core/RecordedRun.h"
#include "qgpu/core/Session.h"
#include "qgpu/ui/Condition.h"
#include "qgpu/ui/LaunchStepCounter.h"

namespace qgpu {

class EngineThread;

inline constexpr int kUiStepLimit = 20000;  // a run stops here, so that an endless loop cannot swamp the studio

// What a build reads: the document, a kernel's source (CUDA or qasm) and its launch spec.
struct DebugSource {
    QString text;
    QString fileName;         // for messages; "<editor>" when the document has no file yet
    bool cuda = false;        // CUDA, else qasm
    QString launch;           // the launch spec's JSON
    QString launchProblem;    // what the launch form could not take; "" when it took everything
    bool debugBuild = false;  // CUDA at -O0 -g, with every variable's location (as nvcc -G), else -O2
    bool operator==(const DebugSource&) const = default;
};

// What the last build made; it does not change until the next build.
struct BuiltProgram {
    bool ok = false;
    std::vector<Diagnostic> diagnostics;  // why it failed
    std::string ptx;                      // CUDA; kept when the lowering failed, for the PTX lines it cites
    Program program;                      // as compiled, before linking
    std::vector<LineMapEntry> lineMap;
    std::vector<SharedPlacement> shared;  // the kernel's __shared__ arrays, under their source names
    MemoryMap map;
    LaunchSpec launch;
    std::vector<std::vector<uint64_t>> compiledRom;  // the compiler's words, to hold the backend's ROM against
    RomImage rom;                                    // the ROM as the backend holds it after the load
    int sourceLine(int block) const;                 // the first source line with code in `block` (0: none)
    // The blocks with code on a line that `atLine` accepts (in assembly also a block's label line).
    std::set<int> blocksAt(const std::function<bool(int line)>& atLine) const;
};

// A breakpoint on a source line: off when disabled; with a condition, a run stops there only for a lane
// where it holds; `hits` counts the runs that stopped there.
struct SourceBreakpoint {
    bool enabled = true;
    QString condition;
    int hits = 0;
};

// One moment of the session, as every view shows it.
struct DebugSnapshot {
    bool loaded = false;
    bool running = false;  // a run goes on: the moment is a progress report
    QString backend;
    std::shared_ptr<const BuiltProgram> build;
    MachineState state;
    std::shared_ptr<const std::vector<StepEvent>> history;  // every step recorded, also those ahead
    int position = 0;                                       // steps applied
    NextStep next;
    TokenStream tokens;                     // empty for a backend that writes none
    StopReason stop = StopReason::AtStart;  // how the last move ended
    const StepEvent* last() const { return position > 0 ? &(*history)[size_t(position - 1)] : nullptr; }
};

// A comparison of two backends, as it ended.
struct BackendComparison {
    QString a, b;  // the debugger's backend, and the other
    Divergence divergence;
    MachineState machineA, machineB;  // where both stopped
    bool paused = false;
    QString error;
    // In words: the first line the verdict, then the differences ("  thread 5 r3: 7 vs 9").
    QStringList verdict() const;
};

class DebugController : public QObject {
    Q_OBJECT
public:
    using SessionFactory = std::function<std::unique_ptr<Session>()>;
    explicit DebugController(QObject* parent = nullptr);
    ~DebugController() override;  // ends a run in flight between two steps and joins the engine thread

    // The reference interpreter is there from the start; the app adds the GPU inside the model.
    void addBackend(const QString& name, SessionFactory make);
    QStringList backends() const;
    QString backend() const;
    // Switches to the named backend and builds the document again on it; false (the status says why) when
    // there is no such backend or it does not start.
    bool setBackend(const QString& name);

    // Where the document comes from: moves build it again first when it changed since the last build.
    void setDocument(std::function<DebugSource()> document) { m_document = std::move(document); }
    bool build();  // builds the document and loads it; built() says how it went, lastBuild() has it
    const BuiltProgram& lastBuild() const { return *m_built; }

    // Single steps run on the engine thread while the caller waits; they return with moved() emitted.
    void step();
    void stepToken();  // one token of the step the model is writing (other backends: a step)
    void stepBack();
    void stepBackToken();
    void reset();
    // Runs go on after they return (running() meanwhile); moved() reports progress and where they stop.
    void run();  // to a breakpoint, the end or the step limit
    void runBack();
    void stepLine();           // until the next step runs code of another source line
    void runToLine(int line);  // 1-based: until the next step runs code of the line
    void moveTo(int position);
    void moveToToken(size_t written);  // to the moment the model had written `written` tokens
    // Runs the launch on a second backend beside this one and stops both at the first step where their
    // machines differ; compared() gives the verdict. False when there is nothing to compare with.
    bool compareBackends();
    // Recorded runs. saveRun writes the steps the backend has recorded so far (all of them, also those ahead
    // of the position) with the document that was built; false, with the status saying why, when nothing
    // has run yet or the file cannot be written.
    bool saveRun(const QString& path);
    // The run becomes a backend of its own, "recorded: NAME" (it replaces the last one opened), and the
    // debugger switches to it: the document must already be the run's source and launch.
    bool openRun(std::shared_ptr<const RecordedRun> run, const QString& name);
    // Compares this session with a recorded run, as compareBackends does with another backend.
    bool compareWithRun(std::shared_ptr<const RecordedRun> run);
    void pause();
    bool running() const;
    // The engine thread's time for the last run or comparison, from its first step to its last.
    double lastRunSeconds() const;
    void waitIdle();  // processes events until the run in flight (if any) has stopped and is shown

    // Breakpoints by source line (1-based). On a line without code the breakpoint goes to the next line with
    // code; a build moves those that lost their code. The returned text says where it went ("" when put).
    QString toggleBreakpoint(int line);
    void setBreakpoints(std::set<int> lines);  // the lines an edit moved them to; each keeps its settings
    void restoreBreakpoints(std::map<int, SourceBreakpoint> breakpoints);  // as a document saved them
    void setBreakpointEnabled(int line, bool enabled);
    // A condition a run checks for each lane about to run the line: it stops where one holds. "" when the text is
    // a condition, else what is wrong with it (and the condition is left as it was).
    QString setBreakpointCondition(int line, const QString& condition);
    const std::map<int, SourceBreakpoint>& breakpoints() const { return m_breakpoints; }
    // A data breakpoint: runs stop after a step that changes this global word (-1: none; a build clears it).
    void setDataBreakpoint(int address);
    int dataBreakpoint() const { return m_dataBreakpoint; }

    std::shared_ptr<const DebugSnapshot> snapshot() const { return m_snapshot; }
    // The token going in at the snapshot's moment, run through the model layer by layer (the Layers panel and
    // the heatmap). requestTrace() computes it on the engine thread, off the window's thread (it costs a model
    // step), and traced() says when trace() has it; a move or a run started meanwhile drops it (or waits for
    // it, when it is about done). The trace of the moment before stays until then; null when none has been
    // made for this build.
    void requestTrace();
    std::shared_ptr<const TokenTrace> trace() const { return m_trace; }
    QString status() const { return m_status; }
    // For reading the session itself (the model's views) while no run is in flight; lock() during one.
    const Session& session() const { return *m_session; }
    std::unique_lock<std::mutex> lock();

signals:
    void backendsChanged();
    void backendChanged();
    void built(bool ok);  // lastBuild() holds the program, or the diagnostics
    void moved();         // snapshot() is new
    void traced();        // trace() is new
    void runStateChanged(bool running);
    void breakpointsChanged();
    void compared(const BackendComparison& comparison);
    void statusChanged(const QString& text);

private:
    bool ensureBuilt();
    bool load(const DebugSource& source);  // false: lastBuild() holds the diagnostics, the session is empty
    void unload();
    void setStatus(const QString& text);
    void publish(StopReason stop);  // a new snapshot, then moved()
    void report(StopReason r, const QString& note = {});
    QString describe(StopReason r) const;
    void relocateBreakpoints();
    void applyBreakpoints();  // the enabled ones into the session, then breakpointsChanged()
    int nextLineWithCode(int line) const;
    std::vector<int> breakpointLinesAt(int block) const;  // the enabled breakpoints' lines with code in `block`
    struct Hit {
        bool stop = false;
        int line = 0;
        QString note;  // why a condition that could not be evaluated stopped the run
    };
    Hit conditionHolds(const std::map<int, SourceBreakpoint>& breakpoints) const;
    QString wordChanged(int address) const;  // the step just taken changed the word: how; else ""
    void countHit(int line);
    void singleStep(const std::function<StopReason()>& call);
    void startRun(std::function<bool()> arrived, const QString& arrivedNote);
    void startJob(std::function<bool()> step, std::function<void(bool paused, const QString& error)> done,
                  const QString& what);
    void finishRun(StopReason reason, bool paused, const QString& error, const QString& note = {});
    bool compareWith(const SessionFactory& make, const QString& name);
    void finishComparison(const BackendComparison& c);
    QString progressText() const;  // "after step 120 of 4000 (310 steps/s, 4,560 tokens/s, about 12.5 s left)"

    std::vector<std::pair<QString, SessionFactory>> m_backends;
    int m_backend = 0;
    std::unique_ptr<Session> m_session;
    std::function<DebugSource()> m_document;
    DebugSource m_source;    // what the last build read
    bool m_rebuilt = false;  // ensureBuilt built again: the next report says so
    std::shared_ptr<const BuiltProgram> m_built;
    std::shared_ptr<const std::vector<StepEvent>> m_history;
    std::shared_ptr<const DebugSnapshot> m_snapshot;
    std::map<int, SourceBreakpoint> m_breakpoints;
    int m_dataBreakpoint = -1;
    QString m_status, m_jobName;
    QElapsedTimer m_jobClock;  // since the job in flight began
    struct {
        int position = 0;
        size_t tokens = 0;
    } m_jobFrom;                              // where it began
    mutable LaunchStepCounter m_stepCounter;  // the launch's steps to its end, for the progress report
    std::shared_ptr<const TokenTrace> m_trace;
    bool m_tracing = false;  // the engine's job is a trace: not a run (running() is false)
    // Last, so that it goes first: its jobs use the session.
    std::unique_ptr<EngineThread> m_engine;
    double m_lastRunSeconds = 0;  // the engine thread's, for the last run or comparison
};

// A thread's names for a condition or a watch at source line `line`: CUDA's threadIdx, blockIdx, blockDim
// and gridDim (.x .y .z), the registers r0..r15, the launch's arrays' elements ("out[3]") and a debug build's
// variables in scope at the line. Reads `state` and `b` when called: both must outlive it.
NameLookup threadNames(const MachineState& state, const BuiltProgram& b, int slot, int line);

// Where a session stands, in the step list's numbering (its first step is step 0): "after step 4".
QString positionText(int position);
// The same, mid-step where the model has written part of a step's tokens: "in step 5, after 3 of its 9 tokens".
QString momentText(const DebugSnapshot& s);

}  // namespace qgpu
