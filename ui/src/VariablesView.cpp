#include "qgpu/ui/VariablesView.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "qgpu/core/Variables.h"
#include "qgpu/ui/DebugController.h"
#include "qgpu/ui/ReadOnlyTable.h"
#include "qgpu/ui/CudaThreads.h"

namespace qgpu {

namespace {

// A thread of the launch: its slot in the machine, where it stands and its CUDA name.
struct LaunchThread {
    int slot = 0, line = 0;
    bool running = false;
    QString name;
};

LaunchThread launchThread(const DebugSnapshot& s, int index) {
    const LaunchSpec& launch = s.build->launch;
    CudaThread cuda{index / launch.threadsPerBlock(), index % launch.threadsPerBlock()};
    LaunchThread out;
    out.slot = slotOf(s.state, cuda);
    const ThreadState& ts = s.state.threads[size_t(out.slot)];
    out.running = ts.status == LaneStatus::Live || ts.status == LaneStatus::AtBarrier;
    out.line = out.running ? s.build->sourceLine(ts.pc) : 0;
    out.name = cudaThreadName(launch, cuda);
    return out;
}

bool inScope(const ProgramVariable& v, int line) { return line >= v.firstLine && line <= v.lastLine; }

}  // namespace

VariablesView::VariablesView(DebugController& debugger, QWidget* parent) : QWidget(parent), m_debugger(debugger) {
    m_thread = new QSpinBox;
    m_thread->setObjectName("variablesThread");
    m_thread->setToolTip("The thread, by its index in the launch (block index * threads per block + thread index)");
    m_note = new QLabel;
    m_note->setObjectName("variablesNote");
    m_note->setWordWrap(true);
    m_table = readOnlyTable("variablesTable", {"Name", "Value", "Type"});
    m_focus = new QLineEdit;
    m_focus->setObjectName("variablesFocus");
    m_focus->setPlaceholderText("block (1,0,0) thread (3,0,0)");
    m_focus->setToolTip("Focus a thread as cuda-gdb's focus command names it; Enter goes there");
    connect(m_focus, &QLineEdit::returnPressed, this, [this] { focus(m_focus->text()); });
    auto* pick = new QHBoxLayout;
    pick->addWidget(new QLabel("Thread"));
    pick->addWidget(m_thread);
    pick->addWidget(m_focus, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(pick);
    layout->addWidget(m_note);
    layout->addWidget(m_table, 1);
    connect(m_thread, &QSpinBox::valueChanged, this, [this] {
        m_picked = true;
        showMoment();
    });
    connect(&debugger, &DebugController::built, this, [this] { m_picked = false; });
    connect(&debugger, &DebugController::moved, this, [this] { showMoment(); });
    m_note->setText("Build a kernel (Ctrl+B) to see its variables here.");
}

QString VariablesView::note() const { return m_note->text(); }
int VariablesView::thread() const { return m_thread->value(); }
void VariablesView::setThread(int t) { m_thread->setValue(t); }

bool VariablesView::focus(const QString& text) {
    std::shared_ptr<const DebugSnapshot> s = m_debugger.snapshot();
    if (!s->loaded) return false;
    const LaunchSpec& launch = s->build->launch;
    int perBlock = launch.threadsPerBlock();
    CudaFocus f = parseCudaFocus(text, launch, {thread() / perBlock, thread() % perBlock});
    if (!f.error.isEmpty()) {
        m_note->setText("Focus: " + f.error + ".");
        return false;
    }
    int index = f.thread.block * perBlock + f.thread.thread;
    if (index == thread()) showMoment();  // the note shows the thread again
    setThread(index);
    m_picked = true;
    return true;
}

void VariablesView::showMoment() {
    std::shared_ptr<const DebugSnapshot> s = m_debugger.snapshot();
    TableRefill refill(m_table);
    m_table->setRowCount(0);
    if (!s->loaded) return m_note->setText("Nothing is loaded: build the kernel (Ctrl+B).");
    int threads = s->build->launch.totalThreads();
    const QSignalBlocker quiet(m_thread);
    m_thread->setRange(0, std::max(0, threads - 1));
    if (!m_picked && s->next.warp >= 0) {  // the first lane of the warp about to run
        int lanes = s->state.lanesPerWarp, perBlock = s->build->launch.threadsPerBlock();
        int lane = 0;
        while (lane < lanes - 1 && !(s->next.mask >> lane & 1)) ++lane;
        CudaThread t = cudaThreadOf(s->state, s->next.warp * lanes + lane);
        m_thread->setValue(t.block * perBlock + std::min(perBlock - 1, t.thread));
    }
    showThread(*s, m_thread->value());
}

void VariablesView::showThread(const DebugSnapshot& s, int index) {
    const Program& program = s.build->program;
    if (program.variables.empty())
        return m_note->setText(
            "This build has no variable locations. Check Debug > Debug build (-O0 -g) and build "
            "again: optimized code keeps line tables only, as nvcc's -lineinfo.");
    LaunchThread t = launchThread(s, index);
    if (!t.running) return m_note->setText(t.name + " has exited: its variables are gone.");
    std::vector<const ProgramVariable*> shown;
    for (const ProgramVariable& v : program.variables)
        if (inScope(v, t.line)) shown.push_back(&v);
    m_note->setText(QString("%1, at line %2: %3 in scope.").arg(t.name).arg(t.line).arg(shown.size()));
    m_table->setRowCount(int(shown.size()));
    for (int r = 0; r < int(shown.size()); ++r) {
        const ProgramVariable& v = *shown[size_t(r)];
        std::string value = formatVariable(s.state, s.build->map, program, v, t.slot);
        setRow(m_table, r,
               {QString::fromStdString(v.name), QString::fromStdString(value), QString::fromStdString(v.typeName)});
    }
}

QString VariablesView::valuesOf(const QString& name) const {
    std::shared_ptr<const DebugSnapshot> s = m_debugger.snapshot();
    if (!s->loaded) return {};
    const Program& program = s->build->program;
    QStringList lines;
    bool known = false;
    for (int i = 0; i < s->build->launch.totalThreads() && lines.size() < 16; ++i) {
        LaunchThread t = launchThread(*s, i);
        for (const ProgramVariable& v : program.variables) {
            if (QString::fromStdString(v.name) != name) continue;
            known = true;
            if (t.running && inScope(v, t.line))
                lines << t.name + ": " +
                             QString::fromStdString(formatVariable(s->state, s->build->map, program, v, t.slot));
        }
    }
    if (!known) return {};
    return lines.isEmpty() ? name + " is in scope in no running thread here." : name + "\n" + lines.join("\n");
}

}  // namespace qgpu
