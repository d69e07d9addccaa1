// The runtime's headers come before Qt's (Qt's `emit` macro).
#include "StudioBench.h"

#include "qgpu/compiler/Frontend.h"
#include "qgpu/compiler/gpu/Stream.h"
#include "qgpu/runtime/ModelSession.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "qgpu/ui/DebugController.h"
#include "qgpu/ui/MainWindow.h"

namespace qgpu::studio {

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double secondsOf(const std::function<void()>& work) {
    auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The longest time the GUI thread's event loop went without running: a 1 ms timer ticks while the loop runs,
// and the longest gap between two ticks is the longest stall (an action called on the GUI thread stalls it
// for as long as it takes, as does a slot that a run's progress report runs).
class StallMeter {
public:
    StallMeter() {
        m_timer.setInterval(1);
        m_timer.setTimerType(Qt::PreciseTimer);
        QObject::connect(&m_timer, &QTimer::timeout, [this] { tick(); });
    }
    // Milliseconds: the longest stall from just before `action` until the debugger is idle and shown.
    double measure(DebugController& debugger, const std::function<void()>& action) {
        m_timer.start();
        settle(20);
        m_longest = 0;
        m_clock.restart();
        m_last = 0;
        action();
        debugger.waitIdle();
        settle(30);
        m_timer.stop();
        return m_longest;
    }

private:
    void tick() {
        qint64 now = m_clock.nsecsElapsed();
        m_longest = std::max(m_longest, double(now - m_last) / 1e6);
        m_last = now;
    }
    static void settle(int ms) {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < ms) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    double m_longest = 0;
};

struct Rate {
    size_t tokens = 0;
    std::vector<double> seconds;
    double perSecond() const { return double(tokens) / median(seconds); }
};

// The CLI's launch (`qgpu run --backend model`): GpuModel::run, which decodes the machine once at the end.
Rate cliRate(const GpuModel& model, const BuiltProgram& b, int runs) {
    Program linked = linkLaunch(b.program, b.launch).program;
    gpu::ReferenceLaunch ref = gpu::referenceLaunch(linked, b.launch);
    Rate r;
    for (int i = 0; i < runs; ++i) {
        GpuLaunch run = model.run(linked, b.launch.grid, b.launch.block, ref.initialGlobal, int(ref.stream.size()));
        r.tokens = run.fed.size() + run.written.size();
        r.seconds.push_back(run.seconds);
    }
    return r;
}

// The model session alone, stepped to the end on this thread: what the studio's engine thread does. `whole`
// loads the program and the launch (the model reads them) and steps; `steps` is the stepping alone, over the
// tokens the model wrote.
struct SessionRates {
    Rate whole, steps;
};
SessionRates sessionRates(const GpuModel& model, const BuiltProgram& b, int runs) {
    SessionRates r;
    for (int i = 0; i < runs; ++i) {
        std::unique_ptr<Session> s = makeModelSession(model);
        double load = secondsOf([&] { s->load(b.program, b.launch); });
        double steps = secondsOf([&] {
            while (s->step() == StopReason::Step) {
            }
        });
        r.whole.seconds.push_back(load + steps);
        r.steps.seconds.push_back(steps);
        TokenStream t = s->tokens();
        r.whole.tokens = t.fed.size() + t.written.size();
        r.steps.tokens = t.written.size();
    }
    return r;
}

// The studio: the window's debugger builds and runs the launch to its end, every panel following it. The
// compile's own time (measured alone) is taken out of `whole`, as the others start from a compiled program.
// `run` is from Run until the window shows the end, `engine` the run's time on the engine thread (Run's and
// the window's work before and after it left out); both over the tokens the model wrote.
struct StudioRates {
    Rate whole, run, engine;
};
StudioRates studioRates(DebugController& debugger, const QString& source, const QString& file, int runs) {
    std::vector<double> compile;
    for (int i = 0; i < runs; ++i)
        compile.push_back(secondsOf([&] { compileKernel(source.toStdString(), file.toStdString()); }));
    StudioRates r;
    for (int i = 0; i < runs; ++i) {
        double build = secondsOf([&] { debugger.build(); });
        double run = secondsOf([&] {
            debugger.run();
            debugger.waitIdle();
        });
        r.whole.seconds.push_back(build + run - median(compile));
        r.run.seconds.push_back(run);
        r.engine.seconds.push_back(debugger.lastRunSeconds());
        const TokenStream& t = debugger.snapshot()->tokens;
        r.whole.tokens = t.fed.size() + t.written.size();
        r.run.tokens = r.engine.tokens = t.written.size();
    }
    return r;
}

void printRates(const Rate& cli, const SessionRates& session, const StudioRates& studio) {
    auto row = [](const char* name, const Rate& r, const Rate& base) {
        std::printf("| %s | %zu | %.3f | %.0f | %.2f |\n", name, r.tokens, median(r.seconds), r.perSecond(),
                    r.perSecond() / base.perSecond());
    };
    std::printf("| path | tokens | median s | tokens/s | against the CLI |\n|---|---|---|---|---|\n");
    row("CLI (`qgpu run --backend model`: GpuModel::run)", cli, cli);
    row("model session stepped alone (ModelSession: load and step)", session.whole, cli);
    row("studio (build and run in the window, every panel following)", studio.whole, cli);
    std::printf(
        "\nThe tokens the model wrote (the program and the launch read in before):\n\n"
        "| path | tokens | median s | tokens/s | against the session's steps |\n|---|---|---|---|---|\n");
    row("model session, its steps alone", session.steps, session.steps);
    row("studio, the run on its engine thread", studio.engine, session.steps);
    row("studio, from Run until the window shows the end", studio.run, session.steps);
}

// Each debugger action on the model backend with the longest stall it caused (medians over the runs).
void printStalls(DebugController& d, int runs) {
    struct Action {
        const char* name;
        std::function<void()> act;
    };
    std::vector<Action> actions = {
        {"build (compile and load into the model)", [&] { d.build(); }},
        {"run to the end", [&] { d.run(); }},
        {"step back", [&] { d.stepBack(); }},
        {"step back a token", [&] { d.stepBackToken(); }},
        {"step forward (recorded)", [&] { d.step(); }},
        {"move to the start", [&] { d.moveTo(0); }},
        {"run again (recorded)", [&] { d.run(); }},
        {"run back", [&] { d.runBack(); }},
    };
    std::vector<std::vector<double>> ms(actions.size());
    StallMeter meter;
    for (int i = 0; i < runs; ++i)
        for (size_t a = 0; a < actions.size(); ++a) ms[a].push_back(meter.measure(d, actions[a].act));
    std::printf("\n| action (model backend) | longest main-thread stall, ms |\n|---|---|\n");
    for (size_t a = 0; a < actions.size(); ++a) std::printf("| %s | %.1f |\n", actions[a].name, median(ms[a]));
}

}  // namespace

int runStudioBench(MainWindow& window, ModelHolder& model, const BenchOptions& options) {
    QString path = QFileInfo(options.path).absoluteFilePath();
    if (!window.openProgram(path)) {
        std::fprintf(stderr, "qgpu-studio --bench: %s\n", window.debugger().status().toUtf8().constData());
        return 2;
    }
    DebugController& d = window.debugger();
    if (!d.setBackend("model")) {
        std::fprintf(stderr, "qgpu-studio --bench: %s\n", d.status().toUtf8().constData());
        return 2;
    }
    const GpuModel& gpu = *model.get().get();
    const BuiltProgram& built = d.lastBuild();
    int runs = std::max(1, options.runs);
    std::printf("%s on the sparse engine, medians of %d runs\n\n", QFileInfo(path).fileName().toUtf8().constData(),
                runs);
    Rate cli = cliRate(gpu, built, runs);
    SessionRates session = sessionRates(gpu, built, runs);
    QFile file(path);
    file.open(QIODevice::ReadOnly);
    StudioRates studio = studioRates(d, QString::fromUtf8(file.readAll()), path, runs);
    printRates(cli, session, studio);
    printStalls(d, runs);
    return 0;
}

}  // namespace qgpu::studio
