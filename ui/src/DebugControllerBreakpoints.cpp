// The debugger's breakpoints, by source line: placed on lines with code, moved by builds and edits, enabled
// or not, with a condition over a thread's names, and counted when a run stops at them.
#include "qgpu/core/Variables.h"
#include "qgpu/ui/Condition.h"
#include "qgpu/ui/CudaThreads.h"
#include "qgpu/ui/DebugController.h"
#include "qgpu/ui/EngineThread.h"

#include <algorithm>
#include <cctype>

#include "qgpu/core/Trace.h"

namespace qgpu {

namespace {

// "out[3]": an element of one of the launch's arrays, in its type; nothing for another name or an index
// outside the array.
std::optional<int64_t> arrayElement(const MachineState& state, const MemoryMap& map, const std::string& name) {
    size_t open = name.find('[');
    if (open == std::string::npos || name.back() != ']') return std::nullopt;
    const ArrayPlacement* a = map.find(name.substr(0, open));
    if (!a) return std::nullopt;
    long long index = std::stoll(name.substr(open + 1, name.size() - open - 2));
    std::vector<int64_t> values = readArray(state, *a);
    if (index < 0 || index >= static_cast<long long>(values.size())) return std::nullopt;
    return values[size_t(index)];
}

std::optional<int64_t> registerValue(const MachineState& state, int slot, const std::string& name) {
    if (name.size() < 2 || name.size() > 3 || name[0] != 'r') return std::nullopt;
    if (!std::all_of(name.begin() + 1, name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        return std::nullopt;
    int r = std::stoi(name.substr(1));
    if (r >= 16) return std::nullopt;
    return int32_t(state.threads[size_t(slot)].regs[size_t(r)]);
}

}  // namespace

NameLookup threadNames(const MachineState& state, const BuiltProgram& b, int slot, int line) {
    CudaThread t = cudaThreadOf(state, slot);
    const Dim3 &grid = b.launch.grid, &block = b.launch.block;
    std::array<int, 3> threadIdx = coordinates(block, t.thread), blockIdx = coordinates(grid, t.block);
    return
        [&state, &b, slot, line, threadIdx, blockIdx, grid, block](const std::string& name) -> std::optional<int64_t> {
            auto axis = [&](const std::string& base, std::array<int, 3> v) -> std::optional<int64_t> {
                for (int i = 0; i < 3; ++i)
                    if (name == base + "." + "xyz"[i]) return v[size_t(i)];
                return std::nullopt;
            };
            for (auto v : {axis("threadIdx", threadIdx), axis("blockIdx", blockIdx),
                           axis("blockDim", {block.x, block.y, block.z}), axis("gridDim", {grid.x, grid.y, grid.z})})
                if (v) return v;
            for (const ProgramVariable& v : b.program.variables)
                if (v.name == name && line >= v.firstLine && line <= v.lastLine)
                    return readVariable(state, b.map, b.program, v, slot);
            if (std::optional<int64_t> r = registerValue(state, slot, name)) return r;
            return arrayElement(state, b.map, name);
        };
}

int DebugController::nextLineWithCode(int line) const {
    std::set<int> lines;
    m_built->blocksAt([&](int l) {
        if (l >= line) lines.insert(l);
        return false;
    });
    return lines.empty() ? 0 : *lines.begin();
}

QString DebugController::toggleBreakpoint(int line) {
    QString moved;
    const BuiltProgram& b = *m_built;
    if (m_breakpoints.erase(line) == 0) {
        if (b.program.blocks.empty() || !b.blocksAt([line](int l) { return l == line; }).empty()) {
            m_breakpoints[line] = {};  // before a build every line may hold code
        } else if (int to = nextLineWithCode(line); to == 0) {
            return QString("Line %1 has no machine code, nor does any line after it: no breakpoint set.").arg(line);
        } else {
            m_breakpoints[to] = {};
            moved = QString("Line %1 has no machine code: the breakpoint is on line %2, the next line with code.")
                        .arg(line)
                        .arg(to);
        }
    }
    applyBreakpoints();
    return moved;
}

void DebugController::setBreakpoints(std::set<int> lines) {
    // An edit moves markers but keeps their order: the breakpoints keep their settings by position.
    std::map<int, SourceBreakpoint> moved;
    auto from = m_breakpoints.begin();
    for (int line : lines) {
        auto same = m_breakpoints.find(line);
        moved[line] = same != m_breakpoints.end()            ? same->second
                      : lines.size() == m_breakpoints.size() ? from->second
                                                             : SourceBreakpoint{};
        if (from != m_breakpoints.end()) ++from;
    }
    m_breakpoints = std::move(moved);
    applyBreakpoints();
}

void DebugController::restoreBreakpoints(std::map<int, SourceBreakpoint> breakpoints) {
    m_breakpoints = std::move(breakpoints);
    applyBreakpoints();
}

void DebugController::setBreakpointEnabled(int line, bool enabled) {
    if (auto it = m_breakpoints.find(line); it != m_breakpoints.end()) it->second.enabled = enabled;
    applyBreakpoints();
}

QString DebugController::setBreakpointCondition(int line, const QString& condition) {
    auto it = m_breakpoints.find(line);
    if (it == m_breakpoints.end()) return QString("Line %1 has no breakpoint.").arg(line);
    // The text's form is checked now (every name read as 1); its names, by each thread when a run reaches it.
    std::string error = evaluateCondition(condition.toStdString(), [](const std::string&) { return 1; }).error;
    if (!error.empty() && error.find("division") == std::string::npos && error.find("remainder") == std::string::npos)
        return QString("The condition of line %1: %2").arg(line).arg(QString::fromStdString(error));
    it->second.condition = condition.trimmed();
    applyBreakpoints();
    return {};
}

void DebugController::relocateBreakpoints() {
    QStringList moves;
    std::map<int, SourceBreakpoint> kept;
    for (const auto& [line, bp] : m_breakpoints) {
        if (!m_built->blocksAt([line](int l) { return l == line; }).empty()) {
            kept[line] = bp;
            continue;
        }
        int to = nextLineWithCode(line);
        if (to > 0) kept[to] = bp;
        moves << (to > 0 ? QString("%1 to %2").arg(line).arg(to) : QString("%1 removed").arg(line));
    }
    m_breakpoints = std::move(kept);
    applyBreakpoints();
    if (!moves.isEmpty()) setStatus(m_status + " Breakpoints on lines without code moved: " + moves.join(", ") + ".");
}

void DebugController::applyBreakpoints() {
    // A block breaks on every source line it holds code of; in assembly also on its label line.
    std::set<Breakpoint> out;
    auto enabled = [this](int line) {
        auto it = m_breakpoints.find(line);
        return it != m_breakpoints.end() && it->second.enabled;
    };
    for (int b : m_built->blocksAt(enabled)) out.insert({b, -1});
    {
        auto lock = m_engine->lock();  // a run in flight reads them between its steps
        m_session->breakpoints = std::move(out);
    }
    emit breakpointsChanged();
}

std::vector<int> DebugController::breakpointLinesAt(int block) const {
    std::vector<int> lines;
    for (const auto& [line, bp] : m_breakpoints)
        if (bp.enabled && m_built->blocksAt([line](int l) { return l == line; }).count(block)) lines.push_back(line);
    return lines;
}

DebugController::Hit DebugController::conditionHolds(const std::map<int, SourceBreakpoint>& breakpoints) const {
    // On the engine thread, the session locked: the next step's lanes, each against the conditions of the
    // breakpoints on its block's lines (with `breakpoints` as the run began).
    NextStep next = m_session->peek();
    const MachineState& state = m_session->snapshot();
    for (int line : breakpointLinesAt(next.block)) {
        auto it = breakpoints.find(line);
        if (it == breakpoints.end()) continue;
        if (it->second.condition.isEmpty()) return {true, line, {}};
        for (int l = 0; l < state.lanesPerWarp; ++l) {
            if (!(next.mask >> l & 1)) continue;
            int slot = next.warp * state.lanesPerWarp + l;
            ConditionResult r =
                evaluateCondition(it->second.condition.toStdString(), threadNames(state, *m_built, slot, line));
            if (!r.error.empty())
                return {true, line,
                        QString("the condition of line %1 stopped the run: %2")
                            .arg(line)
                            .arg(QString::fromStdString(r.error))};
            if (r.holds) return {true, line, {}};
        }
    }
    return {false, 0, {}};
}

void DebugController::setDataBreakpoint(int address) {
    m_dataBreakpoint = address;
    emit breakpointsChanged();
}

QString DebugController::wordChanged(int address) const {
    // On the engine thread, the session locked, after a step.
    int at = m_session->position();
    if (address < 0 || at == 0) return {};
    for (const MemWrite& w : m_session->history()[size_t(at - 1)].memWrites)
        if (w.space == MemSpace::Global && w.addr == address && w.before != w.after)
            return QString("global word %1 changed from %2 to %3")
                .arg(address)
                .arg(int32_t(w.before))
                .arg(int32_t(w.after));
    return {};
}

void DebugController::countHit(int line) {
    if (auto it = m_breakpoints.find(line); it != m_breakpoints.end()) ++it->second.hits;
    emit breakpointsChanged();
}

}  // namespace qgpu
