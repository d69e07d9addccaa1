// The studio's engine thread: a long run leaves the window's event loop live, reports its progress, and
// Pause (or closing the window) stops it between two steps, with the views showing where it stopped. The
// backend is the reference interpreter at the model's pace (a millisecond a step). Under xcb (Xvfb).
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QListWidget>
#include <QSemaphore>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "StudioTestSupport.h"
#include "qgpu/ui/MainWindow.h"

using namespace qgpu;
using namespace qgpu::testing;

namespace {

// How many session calls that change it ran on the GUI thread: the engine thread makes them all.
std::atomic<int> guiThreadCalls{0};
std::atomic<int> engineThreadCalls{0};

void countThread() {
    ++(QThread::currentThread() == QCoreApplication::instance()->thread() ? guiThreadCalls : engineThreadCalls);
}

// A step the test holds: it waits, holding the session as every step does, until the GUI thread's event
// loop lets it go (or 5 s pass: a window that stepped on its own thread would never let it go).
std::atomic<bool> holdNextStep{false};
std::atomic<bool> stepHeld{false};
QSemaphore letHeldStepGo;

// The reference interpreter, a millisecond a step: as slow as the model, whose steps take milliseconds.
class SlowSession : public Session {
public:
    std::string backendName() const override { return "slow"; }
    void load(const Program& program, const LaunchSpec& launch) override {
        countThread();
        m_ref->load(program, launch);
    }
    bool loaded() const override { return m_ref->loaded(); }
    void reset() override {
        countThread();
        m_ref->reset();
    }
    StopReason step() override {
        countThread();
        if (holdNextStep.exchange(false)) {
            stepHeld = true;
            letHeldStepGo.tryAcquire(1, 5000);
            stepHeld = false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return m_ref->step();
    }
    StopReason stepBack() override {
        countThread();
        return m_ref->stepBack();
    }
    const MachineState& snapshot() const override { return m_ref->snapshot(); }
    const std::vector<StepEvent>& history() const override { return m_ref->history(); }
    int position() const override { return m_ref->position(); }
    NextStep peek() const override { return m_ref->peek(); }
    RomImage rom() const override { return m_ref->rom(); }

private:
    std::unique_ptr<Session> m_ref = makeReferenceSession();
};

// loop_sum with one lane summing 1..100000: three steps an iteration, far past the window's step limit.
const QString kLongLoop = R"({"block": 1, "args": [{"name": "n", "array": [100000]}, {"name": "out", "zeros": 1}]})";

class Responsiveness : public ::testing::Test {
protected:
    void SetUp() override {
        window = std::make_unique<MainWindow>();
        window->debugger().addBackend("slow", [] { return std::make_unique<SlowSession>(); });
        window->resize(1200, 800);
        window->show();
        ASSERT_TRUE(window->openProgram(kExamples + "loop_sum.qasm", kLongLoop)) << window->statusText().toStdString();
        ASSERT_TRUE(window->debugger().setBackend("slow")) << window->statusText().toStdString();
        guiThreadCalls = engineThreadCalls = 0;
    }
    void TearDown() override { EXPECT_EQ(guiThreadCalls, 0) << "a call that changes the session ran on the GUI"; }

    QAction* action(const QString& text) const {
        for (QAction* a : window->findChildren<QAction*>())
            if (a->text() == text) return a;
        return nullptr;
    }
    // Runs the event loop for `ms` milliseconds.
    static void spin(int ms) {
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < ms) QApplication::processEvents(QEventLoop::AllEvents, 10);
    }

    std::unique_ptr<MainWindow> window;
};

}  // namespace

TEST_F(Responsiveness, TheEventLoopRunsDuringARunAndPauseStopsItWhereTheViewsShow) {
    // The run's first step is held until a timer on this thread sees it in progress and lets it go: only
    // a window whose engine steps on another thread gets there.
    holdNextStep = true;
    window->debugger().run();
    ASSERT_TRUE(window->debugger().running());
    bool sawStepInProgress = false;
    QTimer poll;
    poll.setInterval(5);
    QObject::connect(&poll, &QTimer::timeout, [&] {
        if (!stepHeld) return;
        sawStepInProgress = true;
        letHeldStepGo.release();
        poll.stop();
    });
    poll.start();
    QElapsedTimer waited;
    waited.start();
    while (!sawStepInProgress && waited.elapsed() < 5000) QApplication::processEvents(QEventLoop::AllEvents, 10);
    ASSERT_TRUE(sawStepInProgress) << "no timer fired while the engine was in the middle of a step";
    ASSERT_TRUE(action("Step") && action("Pause"));
    EXPECT_FALSE(action("Step")->isEnabled());  // the actions that move the session wait for the run
    EXPECT_TRUE(action("Pause")->isEnabled());

    // A 10 ms timer keeps ticking while the engine steps, and the views follow the run as it goes. The
    // ticks wait for the progress refreshes and the repaints (tens of ms under Xvfb), never for the steps;
    // about 30 ticks of 150 come through under Xvfb on two cores, a handful when other work fills both.
    QElapsedTimer clock;
    clock.start();
    std::vector<qint64> ticks;
    int eventsShown = 0;
    QTimer timer;
    timer.setInterval(10);
    QObject::connect(&timer, &QTimer::timeout, [&] {
        ticks.push_back(clock.elapsed());
        eventsShown = window->events()->count();
    });
    timer.start();
    while (clock.elapsed() < 1500) QApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
    timer.stop();
    ASSERT_TRUE(window->debugger().running())
        << "the run should last far longer: " << window->statusText().toStdString();
    RecordProperty("ticks", int(ticks.size()));
    ASSERT_GE(ticks.size(), 3u);
    qint64 longest = ticks.front();
    for (size_t i = 1; i < ticks.size(); ++i) longest = std::max(longest, ticks[i] - ticks[i - 1]);
    RecordProperty("longestGapMs", int(longest));
    EXPECT_LT(longest, 1000) << "the event loop stalled for " << longest << " ms";
    EXPECT_GT(eventsShown, 0) << "progress reports refresh the views during the run";
    EXPECT_TRUE(window->statusText().startsWith("running on the slow backend: after step "))
        << window->statusText().toStdString();

    window->debugger().pause();
    EXPECT_FALSE(window->debugger().running());
    EXPECT_TRUE(action("Step")->isEnabled());
    int position = window->debugger().session().position();
    EXPECT_GT(position, 0);
    EXPECT_LT(position, 20000);
    EXPECT_EQ(window->statusText(), QString("after step %1: paused.").arg(position - 1));
    EXPECT_EQ(window->events()->count(), position);
    EXPECT_EQ(window->events()->currentRow(), position - 1);
    expectRegistersMatch(*window, referenceAfter(*window, position).state());
    EXPECT_GT(engineThreadCalls, 0);

    // The session stays where it stopped: nothing steps it after Pause.
    spin(100);
    EXPECT_EQ(window->debugger().session().position(), position);
    window->debugger().step();  // a single step: done (on the engine thread) when step() returns
    EXPECT_EQ(window->debugger().session().position(), position + 1);
    expectRegistersMatch(*window, referenceAfter(*window, position + 1).state());
}

TEST_F(Responsiveness, RunToCursorAndMovingToAStepRunOnTheEngineThread) {
    Program p = assemble(window->editor()->text().toStdString());
    ASSERT_GE(p.blocks.size(), 3u);
    window->debugger().runToLine(p.blocks[2].labelLoc.line);  // `body`: after entry and the first test
    EXPECT_TRUE(window->debugger().running());
    window->debugger().waitIdle();
    EXPECT_EQ(window->debugger().session().peek().block, 2);
    EXPECT_TRUE(window->statusText().contains("runs code of line")) << window->statusText().toStdString();
    window->debugger().run();
    spin(150);
    window->debugger().pause();
    ASSERT_GT(window->debugger().session().position(), 5);
    window->debugger().moveTo(5);  // back through recorded history
    EXPECT_TRUE(window->debugger().running());
    window->debugger().waitIdle();
    EXPECT_EQ(window->debugger().session().position(), 5);
    EXPECT_EQ(window->events()->currentRow(), 4);
    expectRegistersMatch(*window, referenceAfter(*window, 5).state());
    EXPECT_GT(engineThreadCalls, 0);
}

TEST_F(Responsiveness, PauseStopsAComparisonBetweenSteps) {
    ASSERT_TRUE(window->debugger().compareBackends());
    EXPECT_TRUE(window->debugger().running());
    spin(200);
    window->debugger().pause();
    EXPECT_FALSE(window->debugger().running());
    ASSERT_EQ(window->diff()->count(), 1);
    EXPECT_TRUE(window->diff()->item(0)->text().contains("all the same so far"))
        << window->diff()->item(0)->text().toStdString();
    EXPECT_TRUE(window->statusText().endsWith(": paused.")) << window->statusText().toStdString();
}

TEST_F(Responsiveness, ClosingOrDestroyingTheWindowMidRunEndsTheRun) {
    window->debugger().run();
    spin(100);
    window->close();
    EXPECT_FALSE(window->debugger().running());
    window->debugger().run();
    spin(100);
    ASSERT_TRUE(window->debugger().running());
    window.reset();  // joins the engine thread between two steps, before the session goes
}
